package cmd

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"testing"

	"github.com/zklock/zklock/config"
)

// TestConsoleIdentity: the header's identity in the ACL schemes' words,
// from the SASL setting and the TLS client certificate.
func TestConsoleIdentity(t *testing.T) {
	withCert := &config.TLS{Config: &tls.Config{Certificates: []tls.Certificate{{
		Leaf: &x509.Certificate{Subject: pkix.Name{CommonName: "deploy", Organization: []string{"Example"}}}}}}}
	tests := []struct {
		name string
		s    config.Settings
		want string
	}{
		{"none", config.Settings{}, ""},
		{"TLS without a client certificate", config.Settings{TLS: &config.TLS{Config: &tls.Config{}}}, ""},
		{"digest", config.Settings{SASL: &config.SASL{Mechanism: config.MechDigest, User: "alice"}}, "sasl alice"},
		{"kerberos", config.Settings{SASL: &config.SASL{Mechanism: config.MechGSSAPI, User: "x", Principal: "alice@EXAMPLE.COM"}}, "sasl alice@EXAMPLE.COM"},
		{"client certificate", config.Settings{TLS: withCert}, "x509 CN=deploy,O=Example"},
		{"both", config.Settings{SASL: &config.SASL{Mechanism: config.MechDigest, User: "alice"}, TLS: withCert},
			"sasl alice · x509 CN=deploy,O=Example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := consoleIdentity(&tt.s); got != tt.want {
				t.Errorf("consoleIdentity = %q, want %q", got, tt.want)
			}
		})
	}
}
