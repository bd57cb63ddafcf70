package peers

// Drivers over SASL DIGEST-MD5, configured as applications are: Curator
// through ZooKeeper's client JAAS file (a Client section with
// DigestLoginModule, named by -Djava.security.auth.login.config), Kazoo
// through KazooClient's sasl_options (pure-sasl, Debian's
// python3-pure-sasl), read by the driver from its environment.

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

// SASL makes every client of a driver authenticate by SASL DIGEST-MD5
// (Config.SASL).
type SASL struct {
	// JAAS is a client JAAS file whose Client section the Curator driver's
	// ZooKeeper client reads (WriteClientJAAS writes one).
	JAAS string
	// User and Password are what the Kazoo driver authenticates with.
	User, Password string
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
	return []string{"-Djava.security.auth.login.config=" + s.JAAS}
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
	return append(env, "ZKLOCK_PEER_SASL_USER="+s.User, "ZKLOCK_PEER_SASL_PASSWORD="+s.Password)
}

// kazooSASLCheck imports pure-sasl once per process: without it Kazoo
// fails every connection with "Missing SASL support", which the driver
// would report only as a client that never connected.
var kazooSASLCheck = sync.OnceValue(func() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, python, "-c", "import puresasl.client").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s cannot import puresasl, which Kazoo's SASL needs (%v: %s): run `make deps` (Debian/Ubuntu: apt-get install python3-pure-sasl)",
			ErrUnavailable, python, err, strings.TrimSpace(string(out)))
	}
	return nil
})
