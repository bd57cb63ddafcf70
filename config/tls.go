package config

// TLS settings: a context's `tls:` block and the --tls-* flags, resolved
// into a tls.Config before any connection, so that a missing or wrong
// file is one line at once. The config file holds paths only, never key
// material.

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// ContextTLS is a context's `tls:` block. Its presence turns TLS on
// (with the system's roots when no CA is given), unless
// zookeeper.client.secure is false.
//
//	tls:
//	  ca: /etc/zookeeper/ca.pem          # trust bundle (PEM)
//	  cert: ~/.config/zklock/me.pem      # client certificate (PEM)
//	  key: ~/.config/zklock/me-key.pem   # its unencrypted key (PEM, mode 600)
//	  server_name: zk.prod.example       # verify this name instead of each host
//	  insecure_skip_verify: false        # true: do not check the name (the chain still is)
//
// ZooKeeper's Java client property names are accepted as aliases, so that
// a block copied from a client's properties works when its stores are PEM
// (ZooKeeper 3.5+ reads PEM stores with ssl.*.type=PEM):
// zookeeper.ssl.trustStore.location (ca), zookeeper.ssl.keyStore.location
// (cert and key in one file), zookeeper.ssl.hostnameVerification (false:
// insecure_skip_verify), zookeeper.client.secure, and the two .type keys
// (PEM only). Store passwords are refused: zklock reads unencrypted PEM
// files only.
type ContextTLS struct {
	CA                 string `yaml:"ca"`
	Cert               string `yaml:"cert"`
	Key                string `yaml:"key"`
	ServerName         string `yaml:"server_name"`
	InsecureSkipVerify bool   `yaml:"insecure_skip_verify"`

	TrustStore           string `yaml:"zookeeper.ssl.trustStore.location"`
	TrustStoreType       string `yaml:"zookeeper.ssl.trustStore.type"`
	KeyStore             string `yaml:"zookeeper.ssl.keyStore.location"`
	KeyStoreType         string `yaml:"zookeeper.ssl.keyStore.type"`
	HostnameVerification *bool  `yaml:"zookeeper.ssl.hostnameVerification"`
	Secure               *bool  `yaml:"zookeeper.client.secure"`
	TrustStorePassword   string `yaml:"zookeeper.ssl.trustStore.password"`
	KeyStorePassword     string `yaml:"zookeeper.ssl.keyStore.password"`
}

// TLS is the resolved TLS setting: the files as given (for display and
// `zklock doctor`), and the client configuration built from them.
type TLS struct {
	CA, Cert, Key string
	ServerName    string
	// SkipHostnameVerify: the server's name is not checked (its chain
	// is): --tls-insecure-skip-verify, insecure_skip_verify.
	SkipHostnameVerify bool
	// Config trusts CA (the system's roots when empty) and presents the
	// client certificate; lockops.WithTLS takes it.
	Config *tls.Config
}

// resolveTLS merges the --tls-* flags over the context's block; nil when
// TLS is off.
func resolveTLS(g *Flags, c *ContextTLS, where string) (*TLS, error) {
	var t TLS
	on := false
	if c != nil {
		if c.TrustStorePassword != "" || c.KeyStorePassword != "" {
			return nil, fmt.Errorf("%s: tls: store passwords do not belong in the config file; zklock reads unencrypted PEM files (paths only)", where)
		}
		for key, typ := range map[string]string{"zookeeper.ssl.trustStore.type": c.TrustStoreType, "zookeeper.ssl.keyStore.type": c.KeyStoreType} {
			if typ != "" && typ != "PEM" && typ != "pem" {
				return nil, fmt.Errorf("%s: tls: %s is %s; zklock reads PEM only (convert: openssl pkcs12 -in STORE -nodes -out store.pem)", where, key, typ)
			}
		}
		on = c.Secure == nil || *c.Secure
		t.CA = first(c.CA, c.TrustStore)
		t.Cert, t.Key = c.Cert, c.Key
		if c.KeyStore != "" {
			t.Cert, t.Key = first(t.Cert, c.KeyStore), first(t.Key, c.KeyStore)
		}
		t.ServerName = c.ServerName
		t.SkipHostnameVerify = c.InsecureSkipVerify || (c.HostnameVerification != nil && !*c.HostnameVerification)
	}
	if g.TLS || g.TLSCA != "" || g.TLSCert != "" || g.TLSKey != "" || g.TLSServerName != "" || g.TLSInsecureSkipVerify {
		on = true
		where = "flags"
	}
	if !on {
		return nil, nil
	}
	t.CA = first(g.TLSCA, t.CA)
	t.Cert = first(g.TLSCert, t.Cert)
	t.Key = first(g.TLSKey, t.Key)
	t.ServerName = first(g.TLSServerName, t.ServerName)
	t.SkipHostnameVerify = t.SkipHostnameVerify || g.TLSInsecureSkipVerify
	cfg, err := t.build()
	if err != nil {
		return nil, err
	}
	t.Config = cfg
	return &t, nil
}

// build reads the files. A key given without a certificate, a file that
// is not PEM, or an encrypted key is an error that names the file and the
// fix.
func (t *TLS) build() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CA != "" {
		b, err := readPEM(t.CA, "CA bundle (--tls-ca)")
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("CA bundle %s (--tls-ca): no certificate in it", t.CA)
		}
		cfg.RootCAs = pool
	}
	if t.Key != "" && t.Cert == "" {
		return nil, fmt.Errorf("--tls-key %s without --tls-cert: give the client certificate too", t.Key)
	}
	if t.Cert != "" {
		certPEM, err := readPEM(t.Cert, "client certificate (--tls-cert)")
		if err != nil {
			return nil, err
		}
		keyFile := t.Key
		if keyFile == "" {
			keyFile = t.Cert // one file holding both, as ZooKeeper's PEM key store
		}
		keyPEM, err := readPEM(keyFile, "client key (--tls-key)")
		if err != nil {
			return nil, err
		}
		if encryptedPEM(keyPEM) {
			return nil, fmt.Errorf("client key %s is encrypted; zklock takes an unencrypted key file (mode 600): openssl pkey -in %s -out key.pem", keyFile, keyFile)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			if t.Key == "" {
				return nil, fmt.Errorf("client certificate %s: %v (give the key with --tls-key)", t.Cert, err)
			}
			return nil, fmt.Errorf("client certificate %s with key %s: %v", t.Cert, t.Key, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// AdminConfig is the tls.Config for https to the members' AdminServers
// (the context's CA and client certificate), nil without TLS. With
// SkipHostnameVerify the chain is still checked against the CAs, as for
// the client links.
func (t *TLS) AdminConfig() *tls.Config {
	if t == nil || t.Config == nil {
		return nil
	}
	c := t.Config.Clone()
	if t.SkipHostnameVerify && !c.InsecureSkipVerify {
		roots := c.RootCAs
		c.InsecureSkipVerify = true
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("config: the AdminServer sent no certificate")
			}
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, ic := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(ic)
			}
			_, err := cs.PeerCertificates[0].Verify(opts)
			return err
		}
	}
	return c
}

func readPEM(path, what string) ([]byte, error) {
	b, err := os.ReadFile(ExpandHome(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !bytes.Contains(b, []byte("-----BEGIN ")) {
		return nil, fmt.Errorf("%s %s is not PEM; zklock reads PEM only (from a PKCS12 store: openssl pkcs12 -in %s -nodes -out store.pem; from JKS: keytool -importkeystore to PKCS12 first)", what, path, path)
	}
	return b, nil
}

func encryptedPEM(b []byte) bool {
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return false
		}
		if blk.Type == "ENCRYPTED PRIVATE KEY" || blk.Headers["Proc-Type"] != "" {
			return true
		}
	}
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
