package cmd

import (
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// closedPort is a loopback port nobody listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestBadInvocations: every bad input gets one clear line on stderr and a
// non-zero exit, never a panic or stack trace, within the connect timeout.
func TestBadInvocations(t *testing.T) {
	srv := serversFlag(t)
	c := testConn(t)
	base := testPath(t)

	// A lock parent with one live lock node, a persistent node named like
	// a lock node, and an ACL-protected parent.
	parent := base + "/job"
	mkdirs(t, c, parent, nil)
	live := createNode(t, c, parent, curatorPrefix, "holder")
	if _, err := c.Create(parent+"/lock-0000000777", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	secret := base + "/secret"
	if err := c.AddAuth("digest", []byte("alice:s3cret")); err != nil {
		t.Fatal(err)
	}
	mkdirs(t, c, secret, zk.DigestACL(zk.PermAll, "alice", "s3cret"))

	cfg := writeFile(t, "config.yaml", "contexts:\n  prod:\n    servers: ["+testCluster(t).ConnectString()+"]\n    read_only: true\n")
	badAuth := writeFile(t, "bad.auth", "just-a-user-no-password\n")
	dead := closedPort(t)

	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"refused port", nil, []string{"--servers", dead, "--connect-timeout", "2s", "ls", "/x"}, "connection refused by " + dead},
		{"console without a terminal", nil, []string{"--servers", dead, "--connect-timeout", "2s", "--read-only", "/x"}, "the console needs a terminal on stdout"},
		{"unknown host", nil, []string{"--servers", "no-such-host.invalid:2181", "ls", "/x"}, "unknown host no-such-host.invalid:2181"},
		{"malformed server list", nil, []string{"--servers", "zk1:2181,,zk2", "ls", "/x"}, "malformed server list"},
		{"server port out of range", nil, []string{"--servers", "zk1:99999", "ls", "/x"}, "bad port"},
		{"malformed ZK_SERVERS", []string{"ZK_SERVERS=::1:2181"}, []string{"ls", "/x"}, "brackets"},
		{"relative path", nil, []string{srv, "ls", "locks/job"}, `invalid path "locks/job": must start with /`},
		{"trailing slash", nil, []string{srv, "ls", "/locks/job/"}, "must not end with /"},
		{"relative path, console", nil, []string{srv, "locks"}, "unknown command or invalid path"},
		{"dot segment", nil, []string{srv, "run", "/locks/../x", "--", "true"}, "relative segment"},
		{"unknown flag", nil, []string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
		{"unknown subcommand flag", nil, []string{"ls", "--jsn", "/x"}, "unknown flag: --jsn"},
		{"unknown theme", nil, []string{srv, "--theme", "neon", "/x"}, `unknown theme "neon"`},
		{"run without a command", nil, []string{srv, "run", "/x"}, "put -- between the lock path and the command"},
		{"run with only --", nil, []string{srv, "run", "/x", "--"}, "no command after --"},
		{"run with two paths", nil, []string{srv, "run", "/x", "/y", "--", "true"}, "one lock path before --"},
		{"run of a missing command", nil, []string{srv, "run", "/x", "--", "/no/such/command"}, "no such file"},
		{"run with a bad kind", nil, []string{srv, "run", "--kind", "exclusive", "/x", "--", "true"}, "want mutex, read, write, lease or election"},
		{"run with a bad style", nil, []string{srv, "run", "--style", "zookeeper", "/x", "--", "true"}, "unknown style"},
		{"missing auth file", nil, []string{srv, "--auth-file", "/no/such/auth", "ls", "/x"}, "auth file"},
		{"bad auth file", nil, []string{srv, "--auth-file", badAuth, "ls", "/x"}, "want user:password"},
		{"bad ZK_AUTH", []string{"ZK_AUTH=:nouser"}, []string{srv, "ls", "/x"}, "ZKLOCK_AUTH (or ZK_AUTH)"},
		{"NoAuth", nil, []string{srv, "ls", secret}, "NoAuth"},
		{"wrong credentials", []string{"ZK_AUTH=alice:wrong"}, []string{srv, "ls", secret}, "NoAuth"},
		{"force-release of a parent", nil, []string{srv, "release", "--force", "--yes", parent}, "not named like a lock node"},
		{"force-release of a vanished node", nil, []string{srv, "release", "--force", "--yes", parent + "/" + curatorPrefix + "0000000099"}, "no such node"},
		{"force-release under a missing parent", nil, []string{srv, "release", "--force", "--yes", "/no/such/lock-0000000001"}, "does not exist"},
		{"force-release of a persistent node", nil, []string{srv, "release", "--force", "--yes", parent + "/lock-0000000777"}, "persistent"},
		{"release without --force", nil, []string{srv, "release", parent + "/" + live}, "needs --force"},
		{"force-release without --yes off a terminal", nil, []string{srv, "release", "--force", parent + "/" + live}, "pass --yes"},
		{"revoke of a parent", nil, []string{srv, "revoke", "--yes", parent}, "not named like a lock node"},
		{"read-only context + release", []string{"ZKLOCK_CONFIG=" + cfg}, []string{"--context", "prod", "release", "--force", "--yes", parent + "/" + live}, `context "prod" is read-only; pass --write`},
		{"read-only context + run", []string{"ZKLOCK_CONFIG=" + cfg}, []string{"--context", "prod", "run", "/x", "--", "true"}, "pass --write"},
		{"read-only context + revoke", []string{"ZKLOCK_CONFIG=" + cfg}, []string{"--context", "prod", "revoke", "--yes", parent + "/" + live}, "pass --write"},
		{"--read-only + run", nil, []string{srv, "--read-only", "run", "/x", "--", "true"}, "--read-only forbids"},
		{"unknown context", []string{"ZKLOCK_CONFIG=" + cfg}, []string{"--context", "staging", "ls", "/x"}, `context "staging" is not in`},
		{"missing config file", []string{"ZKLOCK_CONFIG=/no/such/config.yaml"}, []string{"--context", "prod", "ls", "/x"}, `no such context: "prod" (named by --context): no config file at /no/such/config.yaml`},
		{"zero session timeout", nil, []string{srv, "--session-timeout", "0s", "ls", "/x"}, "must be positive"},
		{"nothing to watch", nil, []string{srv, "--read-only"}, "nothing to watch"},
		{"ls without paths", nil, []string{srv, "ls"}, "give lock parent paths"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// runBinary bounds each run (binaryLimit) to catch a hang;
			// how fast a bad input is said is no assertion here.
			stdout, stderr, code := runBinary(t, tt.env, tt.args...)
			assertOneLineFailure(t, stderr, code, tt.want)
			if strings.Contains(stdout, "goroutine ") {
				t.Fatalf("stack trace on stdout: %q", stdout)
			}
		})
	}
	if len(tests) < 15 {
		t.Fatalf("only %d bad invocations", len(tests))
	}
}

// TestUnreachableWithinConnectTimeout: an ensemble that accepts the TCP
// connection and never answers (the worst kind of unreachable: a hung
// server, a firewall that swallows packets) is reported within
// --connect-timeout. The clock starts when the binary first dials, so the
// start-up of a race-built binary on a loaded machine is not counted.
func TestUnreachableWithinConnectTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out connect timeouts (make test runs it; -short does not)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dialed := make(chan time.Time, 1)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			select {
			case dialed <- time.Now():
			default:
			}
			// Read and drop: the connect request is never answered.
			go func() { defer c.Close(); _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	p := startBinary(t, nil, "--servers", l.Addr().String(), "--connect-timeout", "2s", "ls", "/x")
	code := p.wait(t, binaryLimit)
	exited := time.Now()
	// Said by the connect timeout (how soon after it is
	// BenchmarkUnreachableSaid's to measure, not a window here).
	assertOneLineFailure(t, p.err.String(), code, "cannot reach ZooKeeper at "+l.Addr().String()+" within 2s")
	select {
	case at := <-dialed:
		t.Logf("reported %v after the first dial, connect timeout 2s", exited.Sub(at).Round(time.Millisecond))
	default:
		t.Fatal("the binary never dialled the ensemble")
	}
}

// BenchmarkUnreachableSaid: a zklock run against a server that accepts
// and never answers, --connect-timeout 200ms, until it has said so: the
// timeout plus the binary's start and its one line.
func BenchmarkUnreachableSaid(b *testing.B) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	bin := buildBinary(b)
	for b.Loop() {
		cmd := exec.Command(bin, "--servers", l.Addr().String(), "--connect-timeout", "200ms", "ls", "/x")
		if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "cannot reach ZooKeeper") {
			b.Fatalf("unreachable: %v %q", err, out)
		}
	}
}

// TestRefusedNamedAtOnce: every server refusing the connection is said
// at once, naming them, well before the connect timeout; a server that
// answers among refusing ones is still used.
func TestRefusedNamedAtOnce(t *testing.T) {
	sandboxtest.Need(t) // its second half connects to a live member
	a, b := closedPort(t), closedPort(t)
	_, stderr, code := runBinary(t, nil, "--servers", a+","+b, "--connect-timeout", "20s", "ls", "/x")
	// Said by the refusals, not by the connect timeout: the refusal's
	// line, not "cannot reach ... within 20s" (how soon is a benchmark's).
	assertOneLineFailure(t, stderr, code, "connection refused by ")
	if !strings.Contains(stderr, a) || !strings.Contains(stderr, b) || strings.Contains(stderr, "within 20s") {
		t.Errorf("the line does not name both servers' refusals: %q", stderr)
	}
	// One live member among refusing ones: connected, no error.
	_, stderr, code = runBinary(t, nil, "--servers", a+","+testCluster(t).ConnectString(), "ls", "--root", "/")
	if code != 0 {
		t.Errorf("a live member beside a refusing one: code %d, stderr %q", code, stderr)
	}
}
