package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SASLOptions make every member authenticate its clients by SASL, as
// clusters serving Kafka or HBase do: a JAAS file with a Server section,
// ZooKeeper's SASL authentication provider, and (unless Optional) the
// 3.8 setting that closes the session of a client that did not
// authenticate (zookeeper.sessionRequireClientSASLAuth). Members do not
// authenticate each other (quorum SASL is off).
type SASLOptions struct {
	// Users are DigestLoginModule's users, name to password.
	Users map[string]string
	// Optional leaves SASL possible but not required: a client without it
	// is served, as the identity "ip" only.
	Optional bool
	// ServerSection, when set, replaces the generated JAAS Server section
	// (its body, between the braces): a Krb5LoginModule with a service
	// keytab for GSSAPI.
	ServerSection string
	// JVMOptions are added for SASL only, such as
	// -Djava.security.krb5.conf=FILE for a test KDC.
	JVMOptions []string
}

// saslProvider is ZooKeeper's server side of SASL (the scheme "sasl").
const saslProvider = "org.apache.zookeeper.server.auth.SASLAuthenticationProvider"

// writeSASL writes the server JAAS file under dir and returns the JVM
// options that use it. The settings go to the JVM, not zoo.cfg: ZooKeeper
// reads them as system properties (AuthenticationHelper, ProviderRegistry).
func writeSASL(dir string, o SASLOptions) ([]string, error) {
	body := o.ServerSection
	if body == "" {
		var b strings.Builder
		b.WriteString("  org.apache.zookeeper.server.auth.DigestLoginModule required")
		names := make([]string, 0, len(o.Users))
		for n := range o.Users {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			fmt.Fprintf(&b, "\n  user_%s=%q", n, o.Users[n])
		}
		body = b.String() + ";"
	}
	path := filepath.Join(dir, "jaas-server.conf")
	jaas := "Server {\n" + body + "\n};\n"
	if err := os.WriteFile(path, []byte(jaas), 0o600); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	args := []string{
		"-Djava.security.auth.login.config=" + path,
		"-Dzookeeper.authProvider.1=" + saslProvider,
	}
	if !o.Optional {
		args = append(args, "-Dzookeeper.sessionRequireClientSASLAuth=true")
	}
	return append(args, o.JVMOptions...), nil
}
