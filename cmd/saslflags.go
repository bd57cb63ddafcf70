package cmd

// One line for each way SASL authentication fails: who refused, why, and
// what to change.

import (
	"strconv"

	"github.com/spf13/pflag"

	"github.com/zklock/zklock/config"
)

// registerSASLFlags binds the --sasl* flags (PRODUCT.md, "SASL and
// Kerberos"). There is no password flag: argv is visible to every user
// of the machine.
func registerSASLFlags(f *pflag.FlagSet, g *config.Flags) {
	f.StringVar(&g.SASL, "sasl", "", "authenticate by SASL: DIGEST-MD5 or GSSAPI (Kerberos)")
	f.StringVar(&g.SASLUser, "sasl-user", "", "DIGEST-MD5 user name")
	f.StringVar(&g.SASLPasswordFile, "sasl-password-file", "", "file holding the DIGEST-MD5 password (or env ZKLOCK_SASL_PASSWORD; never in argv)")
	f.StringVar(&g.SASLKeytab, "sasl-keytab", "", "GSSAPI: the client's keytab")
	f.StringVar(&g.SASLPrincipal, "sasl-principal", "", "GSSAPI: the client's principal, name@REALM")
	f.StringVar(&g.Krb5Conf, "krb5-conf", "", "GSSAPI: krb5.conf (default $KRB5_CONFIG or /etc/krb5.conf)")
	f.StringVar(&g.SASLService, "sasl-service", config.DefaultSASLService, "GSSAPI: the servers' Kerberos service, as in SERVICE/host@REALM")
	f.StringVar(&g.JAAS, "jaas", "", "read --sasl and its credentials from the Client section of a JAAS file (DigestLoginModule, Krb5LoginModule)")
	f.StringVar(&g.JAASSection, "jaas-section", "", "the section of --jaas to read, as the Java client's zookeeper.sasl.clientconfig (default "+config.DefaultJAASSection+")")
	f.StringVar(&g.SASLServerPrincipal, "sasl-server-principal", "", "GSSAPI: the servers' principal, SERVICE/HOST[@REALM], as the Java client's zookeeper.server.principal (default SERVICE/<canonical host>)")
	f.Var((*hostAsWritten)(&g.SASLHostAsWritten), "sasl-canonicalize-hostname", "GSSAPI: name the server in its principal by the canonical name of its address, as the Java client's zookeeper.sasl.client.canonicalize.hostname; =false: the host as written in --servers")
	f.Lookup("sasl-canonicalize-hostname").NoOptDefVal = "true"
}

// hostAsWritten is --sasl-canonicalize-hostname, stored inverted so that
// config.Flags' zero value is the Java client's default (canonicalize).
type hostAsWritten bool

func (h *hostAsWritten) String() string { return strconv.FormatBool(!bool(*h)) }
func (h *hostAsWritten) Type() string   { return "bool" }
func (h *hostAsWritten) Set(v string) error {
	b, err := strconv.ParseBool(v)
	*h = hostAsWritten(!b)
	return err
}
