package sandbox_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// TestTLSStandalone: a TLS member serves the same protocol on its secure
// port as on its plain one, the four-letter words included; with
// ssl.clientAuth=want it lets a client without a certificate in; the
// files are PEM and none is left after Close.
func TestTLSStandalone(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{TLS: &sandbox.TLSOptions{ClientAuth: sandbox.ClientAuthWant}})
	f := c.TLS()
	if f == nil || len(c.SecureServers()) != 1 || c.SecureServers()[0] == c.Servers()[0] || c.Members()[0].SecureAddr() != c.SecureServers()[0] {
		t.Fatalf("TLS %+v, secure %v, plain %v", f, c.SecureServers(), c.Servers())
	}
	cfg, err := f.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	ask := func(cfg *tls.Config) (string, tls.ConnectionState) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		var st tls.ConnectionState
		cfg = cfg.Clone()
		cfg.VerifyConnection = func(cs tls.ConnectionState) error { st = cs; return nil }
		reply, err := fourletter.Ask(ctx, c.SecureServers()[0], "srvr", fourletter.WithTLS(cfg))
		if err != nil {
			t.Fatalf("srvr over TLS: %v", err)
		}
		return reply, st
	}
	// Verified as Go verifies by default: the CA, the name 127.0.0.1.
	reply, st := ask(cfg)
	if fourletter.ParseSrvr(reply).Mode != "standalone" {
		t.Errorf("srvr over TLS = %q", reply)
	}
	if leaf := st.PeerCertificates[0]; time.Until(leaf.NotAfter) < 24*time.Hour || !leaf.NotAfter.Equal(f.ServerNotAfter.Truncate(time.Second)) {
		t.Errorf("server certificate expires %v, files say %v", leaf.NotAfter, f.ServerNotAfter)
	}
	// want: no client certificate is still let in.
	anon := cfg.Clone()
	anon.Certificates = nil
	if reply, _ := ask(anon); fourletter.ParseSrvr(reply).Mode != "standalone" {
		t.Errorf("srvr over TLS without a client certificate (clientAuth=want) = %q", reply)
	}
	// The plain port is still plain.
	if reply, err := fourletter.Ask(t.Context(), c.Servers()[0], "srvr"); err != nil || fourletter.ParseSrvr(reply).Mode != "standalone" {
		t.Errorf("srvr on the plain port = %q, %v", reply, err)
	}
	for _, p := range []string{f.CA, f.ClientCert, f.ClientKey, f.ServerStore} {
		b, err := os.ReadFile(p)
		if err != nil || !strings.HasPrefix(string(b), "-----BEGIN ") {
			t.Errorf("%s: not PEM (%v)", p, err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.ClientKey); !os.IsNotExist(err) {
		t.Errorf("key file left after Close: %v", err)
	}
}

// TestTLSBadCertificates: each CertProblem is what a Go client meets.
// No server is needed: the files are what a member would serve.
func TestTLSBadCertificates(t *testing.T) {
	for _, tc := range []struct {
		p    sandbox.CertProblem
		want string
	}{
		{sandbox.CertExpired, "expired"},
		{sandbox.CertWrongName, "IP SANs"},
		{sandbox.CertUnknownCA, "unknown authority"},
	} {
		f, err := sandbox.WriteTLSFiles(t.TempDir(), sandbox.TLSOptions{ServerCert: tc.p})
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := f.ClientConfig()
		if err != nil {
			t.Fatal(err)
		}
		pair, err := tls.LoadX509KeyPair(f.ServerStore, f.ServerStore)
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := x509ParseLeaf(pair)
		if err != nil {
			t.Fatal(err)
		}
		_, err = leaf.Verify(verifyOpts(cfg, pair))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("problem %d: verify = %v, want %q", tc.p, err, tc.want)
		}
	}
}

func x509ParseLeaf(pair tls.Certificate) (*x509.Certificate, error) {
	return x509.ParseCertificate(pair.Certificate[0])
}

// verifyOpts verifies as a client given cfg would, for the name
// 127.0.0.1, with the chain the server sends.
func verifyOpts(cfg *tls.Config, pair tls.Certificate) x509.VerifyOptions {
	inter := x509.NewCertPool()
	for _, der := range pair.Certificate[1:] {
		if c, err := x509.ParseCertificate(der); err == nil {
			inter.AddCert(c)
		}
	}
	return x509.VerifyOptions{Roots: cfg.RootCAs, Intermediates: inter, DNSName: "127.0.0.1"}
}
