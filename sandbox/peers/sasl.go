package peers

// Drivers over SASL DIGEST-MD5 or GSSAPI, configured as applications are:
// Curator through ZooKeeper's client JAAS file (a Client section with
// DigestLoginModule, or Krb5LoginModule and a keytab, named by
// -Djava.security.auth.login.config), Kazoo through KazooClient's
// sasl_options (pure-sasl, Debian's python3-pure-sasl; GSSAPI through
// python3-kerberos and kinit's credential cache), read by the driver from
// its environment.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// SASL makes every client of a driver authenticate by SASL DIGEST-MD5,
// or GSSAPI when Mechanism says so (Options.SASL).
type SASL struct {
	// JAAS is a client JAAS file whose Client section the Curator driver's
	// ZooKeeper client reads (WriteClientJAAS writes one).
	JAAS string
	// User and Password are what the Kazoo driver authenticates with.
	User, Password string
	// Mechanism is "GSSAPI" for Kerberos, else DIGEST-MD5.
	Mechanism string
	// JVMOptions are the Curator driver's extra options, such as
	// -Djava.security.krb5.conf=FILE.
	JVMOptions []string
	// Env is the Kazoo driver's extra environment, such as KRB5CCNAME
	// and KRB5_CONFIG: pure-sasl's GSSAPI reads a credential cache.
	Env []string
}

// mechGSSAPI is SASL's name of Kerberos V5.
const mechGSSAPI = "GSSAPI"

// WriteClientKrb5JAAS writes, under dir, the client JAAS file a Java
// application gives ZooKeeper's client for GSSAPI as principal (from
// keytab, with the realm's krb5Conf), and returns a SASL for both drivers:
// Kazoo authenticates from the credential cache ccache (made by kinit).
func WriteClientKrb5JAAS(dir, keytab, principal, krb5Conf, ccache string) (*SASL, error) {
	if strings.ContainsAny(keytab+principal, "\"\\\n") {
		return nil, fmt.Errorf("%w: keytab or principal with a quote, backslash or newline", ErrBadArgument)
	}
	path := filepath.Join(dir, "jaas-client-krb5.conf")
	jaas := fmt.Sprintf("Client {\n  com.sun.security.auth.module.Krb5LoginModule required\n  useKeyTab=true\n  keyTab=\"%s\"\n"+
		"  storeKey=true\n  useTicketCache=false\n  principal=\"%s\";\n};\n", keytab, principal)
	if err := os.WriteFile(path, []byte(jaas), 0o600); err != nil {
		return nil, fmt.Errorf("peers: client JAAS file: %w", err)
	}
	return &SASL{JAAS: path, Mechanism: mechGSSAPI, JVMOptions: []string{"-Djava.security.krb5.conf=" + krb5Conf},
		Env: []string{"KRB5_CONFIG=" + krb5Conf, "KRB5CCNAME=FILE:" + ccache}}, nil
}

// WriteClientJAAS writes, under dir, the client JAAS file a Java
// application gives ZooKeeper's client for DIGEST-MD5 as user, and returns
// a SASL for both drivers.
func WriteClientJAAS(dir, user, password string) (*SASL, error) {
	if strings.ContainsAny(user+password, "\"\\\n") {
		return nil, fmt.Errorf("%w: SASL user or password with a quote, backslash or newline", ErrBadArgument)
	}
	path := filepath.Join(dir, "jaas-client.conf")
	jaas := fmt.Sprintf("Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n  username=\"%s\"\n  password=\"%s\";\n};\n", user, password)
	if err := os.WriteFile(path, []byte(jaas), 0o600); err != nil {
		return nil, fmt.Errorf("peers: client JAAS file: %w", err)
	}
	return &SASL{JAAS: path, User: user, Password: password}, nil
}

// curatorSASLOptions are the JVM options that make ZooKeeper's client,
// under Curator, authenticate from the JAAS file.
func curatorSASLOptions(s *SASL) []string {
	if s == nil {
		return nil
	}
	return append([]string{"-Djava.security.auth.login.config=" + s.JAAS}, s.JVMOptions...)
}

// kazooSASLEnv adds to env what tells the Kazoo driver to use SASL
// (kazoo_peer.py, sasl_options); a nil env is the parent's environment.
func kazooSASLEnv(env []string, s *SASL) []string {
	if s == nil {
		return env
	}
	if env == nil {
		env = os.Environ()
	}
	if s.Mechanism == mechGSSAPI {
		return append(append(env, "ZKLOCK_PEER_SASL_MECHANISM="+mechGSSAPI), s.Env...)
	}
	return append(env, "ZKLOCK_PEER_SASL_USER="+s.User, "ZKLOCK_PEER_SASL_PASSWORD="+s.Password)
}

// kazooSASLCheck imports pure-sasl once per process: without it Kazoo
// fails every connection with "Missing SASL support", which the driver
// would report only as a client that never connected.
var kazooSASLCheck = sync.OnceValue(func() error {
	return pythonImports("puresasl.client", "python3-pure-sasl", "Kazoo's SASL")
})

// kazooGSSAPICheck imports the kerberos module pure-sasl's GSSAPI uses.
var kazooGSSAPICheck = sync.OnceValue(func() error {
	return pythonImports("kerberos", "python3-kerberos", "pure-sasl's GSSAPI")
})

// pythonImports checks that python can import module, which who needs.
func pythonImports(module, pkg, who string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, "-c", "import "+module).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s cannot import %s, which %s needs (%v: %s): run `make deps` (Debian/Ubuntu: apt-get install %s)",
			ErrUnavailable, python, module, who, err, strings.TrimSpace(string(out)), pkg)
	}
	return nil
}
