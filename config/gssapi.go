package config

import (
	"fmt"

	"github.com/zklock/zklock/sasl"
	"github.com/zklock/zklock/third_party/zk"
)

// newGSSAPI builds the Kerberos client: krb5.conf and the keytab (or the
// credential cache, KRB5CCNAME, when no keytab is given) are read here, so
// that a wrong file is one line before any connection. The principal
// found (name@REALM) replaces the one given.
func newGSSAPI(s *SASL) (zk.SASLMechanism, error) {
	g, err := sasl.NewGSSAPI(sasl.GSSAPIOptions{
		Principal: s.Principal,
		Keytab:    s.Keytab,
		Krb5Conf:  s.Krb5Conf,
		Service:   s.Service,
		// The Java client's zookeeper.server.principal and
		// zookeeper.sasl.client.canonicalize.hostname.
		ServerPrincipal: s.ServerPrincipal,
		HostAsWritten:   s.HostAsWritten,
		CCache:          s.TicketCache,
	})
	if err != nil {
		return nil, fmt.Errorf("--sasl GSSAPI (from %s): %w", s.Source, err)
	}
	s.Principal = g.Principal()
	return g, nil
}
