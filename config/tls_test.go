package config

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zklock/zklock/sandbox"
)

func tlsFiles(t *testing.T) *sandbox.TLSFiles {
	t.Helper()
	f, err := sandbox.WriteTLSFiles(filepath.Join(t.TempDir(), "tls"), sandbox.TLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func writeConfig(t *testing.T, text string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ZKLOCK_CONFIG", p)
}

func resolveTLSFlags(t *testing.T, g Flags) (*Settings, error) {
	t.Helper()
	t.Setenv("ZK_SERVERS", "")
	t.Setenv("ZK_AUTH", "")
	g.SessionTimeout, g.ConnectTimeout = DefaultSessionTimeout, DefaultConnectTimeout
	return g.Resolve(func(string) bool { return false })
}

// TestTLSContextAndAliases: the tls: block and ZooKeeper's client
// property names give the same configuration; flags win per field;
// without any of them TLS is off.
func TestTLSContextAndAliases(t *testing.T) {
	f := tlsFiles(t)
	writeConfig(t, `contexts:
  ours:
    servers: [zk1:2281]
    tls: {ca: `+f.CA+`, cert: `+f.ClientCert+`, key: `+f.ClientKey+`, server_name: zk.example}
  java:
    servers: [zk1:2281]
    tls:
      zookeeper.client.secure: true
      zookeeper.ssl.trustStore.location: `+f.CA+`
      zookeeper.ssl.trustStore.type: PEM
      zookeeper.ssl.keyStore.location: `+f.ClientPair+`
      zookeeper.ssl.hostnameVerification: false
  off:
    servers: [zk1:2281]
    tls:
      zookeeper.client.secure: false
      zookeeper.ssl.trustStore.location: `+f.CA+`
  plain:
    servers: [zk1:2181]
`)
	s, err := resolveTLSFlags(t, Flags{Context: "ours"})
	if err != nil {
		t.Fatal(err)
	}
	if s.TLS == nil || s.TLS.Config.RootCAs == nil || len(s.TLS.Config.Certificates) != 1 || s.TLS.Config.ServerName != "zk.example" || s.TLS.SkipHostnameVerify {
		t.Fatalf("ours: %+v", s.TLS)
	}
	s, err = resolveTLSFlags(t, Flags{Context: "java"})
	if err != nil {
		t.Fatal(err)
	}
	if s.TLS == nil || s.TLS.CA != f.CA || s.TLS.Cert != f.ClientPair || len(s.TLS.Config.Certificates) != 1 || !s.TLS.SkipHostnameVerify {
		t.Fatalf("java names: %+v", s.TLS)
	}
	// A flag wins over the context, field by field.
	s, err = resolveTLSFlags(t, Flags{Context: "ours", TLSServerName: "other.example"})
	if err != nil || s.TLS.Config.ServerName != "other.example" || len(s.TLS.Config.Certificates) != 1 {
		t.Fatalf("flag over context: %+v, %v", s.TLS, err)
	}
	for _, name := range []string{"off", "plain"} {
		if s, err := resolveTLSFlags(t, Flags{Context: name}); err != nil || s.TLS != nil {
			t.Errorf("context %s: TLS %+v, %v; want off", name, s.TLS, err)
		}
	}
	// --tls alone: the system's CAs, no client certificate.
	if s, err := resolveTLSFlags(t, Flags{TLS: true}); err != nil || s.TLS == nil || s.TLS.Config.RootCAs != nil || len(s.TLS.Config.Certificates) != 0 {
		t.Errorf("--tls: %+v, %v", s.TLS, err)
	}
	if s, err := resolveTLSFlags(t, Flags{TLSCA: f.CA, TLSInsecureSkipVerify: true}); err != nil || s.TLS == nil || !s.TLS.SkipHostnameVerify {
		t.Errorf("--tls-insecure-skip-verify: %+v, %v", s.TLS, err)
	}
}

// TestTLSBadSettings: each mistake is one error naming the file or key
// and the fix, before any connection.
func TestTLSBadSettings(t *testing.T) {
	f := tlsFiles(t)
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "store.p12")
	os.WriteFile(notPEM, []byte{0x30, 0x82, 0x01, 0x02, 0xff}, 0o600)
	empty := filepath.Join(dir, "empty.pem")
	os.WriteFile(empty, []byte("-----BEGIN NOTHING-----\n-----END NOTHING-----\n"), 0o600)
	encrypted := filepath.Join(dir, "enc-key.pem")
	os.WriteFile(encrypted, pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1, 2, 3}}), 0o600)
	keyOnly := filepath.Join(dir, "cert-only.pem")
	b, _ := os.ReadFile(f.ClientCert)
	os.WriteFile(keyOnly, b, 0o600)

	cases := []struct {
		name string
		g    Flags
		want string
	}{
		{"missing CA", Flags{TLSCA: filepath.Join(dir, "nope.pem")}, "nope.pem"},
		{"CA not PEM", Flags{TLSCA: notPEM}, "not PEM"},
		{"CA without certificate", Flags{TLSCA: empty}, "no certificate"},
		{"key without cert", Flags{TLSKey: f.ClientKey}, "without --tls-cert"},
		{"encrypted key", Flags{TLSCert: f.ClientCert, TLSKey: encrypted}, "encrypted"},
		{"cert without its key", Flags{TLSCert: keyOnly}, "--tls-key"},
		{"cert and a key of another", Flags{TLSCert: f.ClientCert, TLSKey: writeOtherKey(t, dir)}, "with key"},
	}
	for _, tc := range cases {
		_, err := resolveTLSFlags(t, tc.g)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line with %q", tc.name, err, tc.want)
		}
	}

	for _, bad := range []struct{ block, want string }{
		{"zookeeper.ssl.keyStore.password: secret", "passwords do not belong"},
		{"zookeeper.ssl.trustStore.type: JKS", "PEM only"},
		{"ca: " + f.CA + "\n      key_data: abc", "key_data"},
	} {
		writeConfig(t, "contexts:\n  c:\n    servers: [zk:2281]\n    tls:\n      "+bad.block+"\n")
		_, err := resolveTLSFlags(t, Flags{Context: "c"})
		if err == nil || !strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("tls block %q: %v; want %q (and never the secret)", bad.block, err, bad.want)
		}
	}
}

// writeOtherKey writes the key of another certificate.
func writeOtherKey(t *testing.T, dir string) string {
	t.Helper()
	other, err := sandbox.WriteTLSFiles(filepath.Join(dir, "other"), sandbox.TLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(other.ClientKey)
	if blk, _ := pem.Decode(b); blk == nil {
		t.Fatal("no key")
	} else if _, err := x509.ParsePKCS8PrivateKey(blk.Bytes); err != nil {
		t.Fatal(err)
	}
	return other.ClientKey
}
