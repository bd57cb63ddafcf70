package config

// SASL settings: the --sasl* flags, --jaas and a context's `sasl:` block,
// resolved (files read, password found) before any connection, so that a
// missing file or password is one line at once. Passwords never come from
// argv: a file, ZKLOCK_SASL_PASSWORD, or the JAAS file.

import (
	"fmt"
	"os"
	"strings"

	"github.com/zklock/zklock/sasl"
	"github.com/zklock/zklock/third_party/zk"
)

// Mechanism names, as SASL and ZooKeeper spell them.
const (
	MechDigest = "DIGEST-MD5"
	MechGSSAPI = "GSSAPI"
	// DefaultSASLService is the Kerberos service of ZooKeeper's servers
	// (zookeeper/<host>), as the Java client's zookeeper.sasl.client.username.
	DefaultSASLService = "zookeeper"
	// DefaultJAASSection is the JAAS section ZooKeeper's Java client
	// reads (zookeeper.sasl.clientconfig's default), so that a Kafka or
	// HBase client's JAAS file works as it is.
	DefaultJAASSection = "Client"
)

// ContextSASL is a context's `sasl:` block: the same keys as the flags,
// paths only.
//
//	sasl:
//	  mechanism: DIGEST-MD5      # or GSSAPI
//	  user: alice
//	  password_file: ~/.config/zklock/zk-password
//	  jaas: /etc/kafka/zookeeper_client_jaas.conf   # its Client section
//	  keytab: /etc/security/keytabs/me.keytab
//	  principal: me@EXAMPLE.COM
//	  krb5_conf: /etc/krb5.conf
//	  service: zookeeper
//	  server_principal: zookeeper/zk1.example.com@EXAMPLE.COM
//	  canonicalize_hostname: false   # default true, as the Java client
//	  jaas_section: Client
type ContextSASL struct {
	Mechanism    string `yaml:"mechanism"`
	User         string `yaml:"user"`
	PasswordFile string `yaml:"password_file"`
	JAAS         string `yaml:"jaas"`
	Keytab       string `yaml:"keytab"`
	Principal    string `yaml:"principal"`
	Krb5Conf     string `yaml:"krb5_conf"`
	Service      string `yaml:"service"`
	// ServerPrincipal names the servers' principal outright, as the Java
	// client's zookeeper.server.principal.
	ServerPrincipal string `yaml:"server_principal"`
	// CanonicalizeHostname is the Java client's
	// zookeeper.sasl.client.canonicalize.hostname; nil: true.
	CanonicalizeHostname *bool `yaml:"canonicalize_hostname"`
	// JAASSection is the section of JAAS read, as the Java client's
	// zookeeper.sasl.clientconfig (DefaultJAASSection when empty).
	JAASSection string `yaml:"jaas_section"`
}

// SASL is the resolved SASL setting (nil: none). Password is never shown.
type SASL struct {
	Mechanism string
	User      string
	Password  string
	Keytab    string
	Principal string
	Krb5Conf  string
	Service   string
	// ServerPrincipal is the servers' principal given outright, "" when
	// it is <Service>/<canonical host>.
	ServerPrincipal string
	// HostAsWritten: the server's host name is not canonicalized.
	HostAsWritten bool
	// TicketCache is the JAAS file's Krb5LoginModule ticketCache, read
	// when there is no keytab.
	TicketCache string
	// Source says where the credentials came from, for errors and doctor.
	Source string
	// Mech is the mechanism's client, built (files read) at Resolve.
	Mech zk.SASLMechanism
}

// Identity is who the client authenticates as, for messages and doctor.
func (s *SASL) Identity() string {
	if s.Mechanism == MechGSSAPI {
		return s.Principal
	}
	return s.User
}

// Client builds the client side of the mechanism for lockops.WithSASL.
func (s *SASL) Client() (zk.SASLMechanism, error) {
	switch s.Mechanism {
	case MechDigest:
		return &sasl.Digest{User: s.User, Password: s.Password}, nil
	case MechGSSAPI:
		return newGSSAPI(s)
	}
	return nil, fmt.Errorf("--sasl %s: unknown mechanism (want %s or %s)", s.Mechanism, MechDigest, MechGSSAPI)
}

// resolveSASL merges the flags over the context's block over --jaas's
// section; nil when no mechanism is asked for. canonSet says that
// --sasl-canonicalize-hostname was given (its default must not hide the
// context's).
func resolveSASL(g *Flags, c *ContextSASL, canonSet bool) (*SASL, error) {
	var cs ContextSASL
	if c != nil {
		cs = *c
	}
	s := &SASL{Source: "flags"}
	jaas, section := first(g.JAAS, cs.JAAS), first(g.JAASSection, cs.JAASSection)
	if section != "" && jaas == "" {
		return nil, fmt.Errorf("--jaas-section %s without --jaas FILE", section)
	}
	if jaas != "" {
		j, err := sasl.ReadJAAS(ExpandHome(jaas), first(section, DefaultJAASSection))
		if err != nil {
			return nil, fmt.Errorf("--jaas: %w", err)
		}
		s.Mechanism, s.User, s.Password, s.Keytab, s.Principal = j.Mechanism, j.User, j.Password, j.Keytab, j.Principal
		s.TicketCache = j.TicketCache
		s.Source = jaas
	}
	s.Mechanism = strings.ToUpper(first(g.SASL, first(cs.Mechanism, s.Mechanism)))
	if s.Mechanism == "" {
		if g.SASLUser != "" || g.SASLPasswordFile != "" || g.SASLKeytab != "" || g.SASLPrincipal != "" || g.SASLServerPrincipal != "" {
			return nil, fmt.Errorf("--sasl-* flags without --sasl MECH (%s or %s) or --jaas FILE", MechDigest, MechGSSAPI)
		}
		return nil, nil
	}
	s.ServerPrincipal = first(g.SASLServerPrincipal, cs.ServerPrincipal)
	s.HostAsWritten = g.SASLHostAsWritten
	if !canonSet && cs.CanonicalizeHostname != nil {
		s.HostAsWritten = !*cs.CanonicalizeHostname
	}
	s.User = first(g.SASLUser, first(cs.User, s.User))
	s.Keytab = ExpandHome(first(g.SASLKeytab, first(cs.Keytab, s.Keytab)))
	s.Principal = first(g.SASLPrincipal, first(cs.Principal, s.Principal))
	s.Service = first(g.SASLService, first(cs.Service, DefaultSASLService))
	s.Krb5Conf = ExpandHome(first(g.Krb5Conf, first(cs.Krb5Conf, first(os.Getenv("KRB5_CONFIG"), "/etc/krb5.conf"))))
	switch s.Mechanism {
	case MechDigest:
		if err := s.resolvePassword(first(g.SASLPasswordFile, cs.PasswordFile)); err != nil {
			return nil, err
		}
	case MechGSSAPI:
		// Without a keytab the credential cache (kinit's) is used.
		if s.Keytab != "" && s.Principal == "" {
			return nil, fmt.Errorf("--sasl GSSAPI --sasl-keytab needs --sasl-principal NAME (or --jaas FILE with a Krb5LoginModule keyTab and principal)")
		}
	}
	var err error
	if s.Mech, err = s.Client(); err != nil {
		return nil, err
	}
	return s, nil
}

// resolvePassword finds DIGEST-MD5's password: --sasl-password-file (or
// the context's password_file), else ZKLOCK_SASL_PASSWORD, else the JAAS
// file's.
func (s *SASL) resolvePassword(file string) error {
	if s.User == "" {
		return fmt.Errorf("--sasl %s needs --sasl-user NAME (or --jaas FILE with a username)", MechDigest)
	}
	switch {
	case file != "":
		b, err := os.ReadFile(ExpandHome(file))
		if err != nil {
			return fmt.Errorf("--sasl-password-file: %w", err)
		}
		s.Password = strings.TrimRight(string(b), "\r\n")
		if s.Password == "" {
			return fmt.Errorf("--sasl-password-file %s is empty", file)
		}
	case os.Getenv("ZKLOCK_SASL_PASSWORD") != "":
		s.Password = os.Getenv("ZKLOCK_SASL_PASSWORD")
	case s.Password == "":
		return fmt.Errorf("--sasl %s as %q: no password: give --sasl-password-file FILE or ZKLOCK_SASL_PASSWORD (never in argv)", MechDigest, s.User)
	}
	return nil
}
