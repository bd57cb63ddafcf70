package cmd

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/audit"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// sharedTLS is a 3-member TLS ensemble (client certificates required),
// for every TLS test of the package; each member keeps a plain port too.
var sharedTLS = &sandboxtest.Shared{
	Options: sandbox.Options{Members: 3, TLS: &sandbox.TLSOptions{ClientAuth: sandbox.ClientAuthNeed}},
	Hint:    "cmd TLS tests need a real ZooKeeper",
}

// sharedExpired is a TLS standalone whose certificate expired, and whose
// plain port allows only srvr and ruok: doctor's refusals are read there.
var sharedExpired = &sandboxtest.Shared{
	Options: sandbox.Options{TLS: &sandbox.TLSOptions{ServerCert: sandbox.CertExpired},
		ExtraConfig: []string{"4lw.commands.whitelist=srvr,ruok"}},
	Hint: "cmd TLS tests need a real ZooKeeper",
}

// tlsFlags are the --servers and --tls-* flags for c's secure ports.
func tlsFlags(c *sandbox.Cluster, chroot string) []string {
	f := c.TLS()
	return []string{"--servers=" + strings.Join(c.SecureServers(), ",") + chroot,
		"--tls-ca", f.CA, "--tls-cert", f.ClientCert, "--tls-key", f.ClientKey}
}

// tlsSession is a lock-core session over TLS to c, closed at the end of
// the test.
func tlsSession(t *testing.T, c *sandbox.Cluster, opts ...lockops.SessionOption) *lockops.Session {
	t.Helper()
	cfg, err := c.TLS().ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := lockops.Connect(ctx, c.SecureServers(), append([]lockops.SessionOption{lockops.WithTLS(cfg)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// holdOver takes p with s, in the background; it returns once held or
// queued and releases at the end of the test.
func holdOver(t *testing.T, s *lockops.Session, p string, want ordering.LockState) *lockops.Lock {
	t.Helper()
	l := lockops.NewLock(s, p, lockops.WithNote("tls-test"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = l.Acquire(ctx) }()
	t.Cleanup(func() { cancel(); <-done; _ = l.Release(context.Background()) })
	eventually(t, 20*time.Second, fmt.Sprintf("the lock on %s to be %v", p, want), func() bool {
		return l.State() == want && l.Node() != ""
	})
	return l
}

func lsJSON(t *testing.T, out string) []model.JSONPath {
	t.Helper()
	var paths []model.JSONPath
	if err := json.Unmarshal([]byte(out), &paths); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, out)
	}
	return paths
}

// TestTLSLsAndRun: over TLS to a 3-member ensemble, ls --json reads a
// queue held by the lock core over TLS (the server view's cons and wchc
// go over TLS too: the waiter's watch is verified), and run waits its
// turn, runs, and releases.
func TestTLSLsAndRun(t *testing.T) {
	c := sharedTLS.Cluster(t)
	p := testPath(t)
	holder := holdOver(t, tlsSession(t, c), p, ordering.LockHolding)
	waiter := holdOver(t, tlsSession(t, c), p, ordering.LockQueued)

	out, errOut, code := runBinary(t, nil, append(tlsFlags(c, ""), "ls", "--json", p)...)
	if code != 0 {
		t.Fatalf("ls over TLS: code %d, stderr %q", code, errOut)
	}
	jp := lsJSON(t, out)[0]
	if len(jp.Queue) != 2 || jp.Queue[0].Node != holder.Node() || jp.Queue[1].Node != waiter.Node() {
		t.Fatalf("ls over TLS: %+v", jp)
	}
	if v := jp.Queue[1].WatchVerified; v == nil || !*v || jp.Queue[1].Client == "" {
		t.Errorf("the waiter's watch is not verified over TLS (four-letter words on the secure ports): %+v", jp.Queue[1])
	}

	// run queues behind both; it runs once they release.
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	pr := startBinary(t, nil, append(tlsFlags(c, ""), "--audit-log", auditFile, "run", p, "--", "sh", "-c", `echo "$ZKLOCK_NODE"`)...)
	conn := testTLSConn(t, c)
	eventually(t, 20*time.Second, "run's node to queue", func() bool {
		kids, _, _ := conn.Children(p)
		return len(kids) == 3
	})
	if err := holder.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the waiter to hold", func() bool { return waiter.State() == ordering.LockHolding })
	if err := waiter.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code := pr.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("run over TLS: code %d, stderr %q", code, pr.err.String())
	}
	if !strings.HasPrefix(pr.out.String(), p+"/_c_") {
		t.Errorf("CMD saw ZKLOCK_NODE %q", pr.out.String())
	}
	for _, r := range readAudit(t, auditFile) {
		if !r.TLS || r.Chroot != "" || r.Path != p {
			t.Errorf("audit over TLS: %+v", r)
		}
	}
}

// testTLSConn is a raw go-zookeeper client over TLS (no chroot) with a
// session, for planting and reading nodes; closed at the end of the test.
func testTLSConn(t *testing.T, c *sandbox.Cluster) *zk.Conn {
	t.Helper()
	cfg, err := c.TLS().ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	dial := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		tc := cfg.Clone()
		tc.ServerName, _, _ = net.SplitHostPort(addr)
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, addr, tc)
	}
	hasSession := make(chan struct{}, 1)
	conn, _, err := zk.Connect(c.SecureServers(), 30*time.Second, zk.WithDialer(dial),
		zk.WithLogger(log.New(io.Discard, "", 0)),
		zk.WithEventCallback(func(ev zk.Event) {
			if ev.Type == zk.EventSession && ev.State == zk.StateHasSession {
				select {
				case hasSession <- struct{}{}:
				default:
				}
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	select {
	case <-hasSession:
	case <-time.After(30 * time.Second):
		t.Fatalf("no session over TLS with %v (state %v)", c.SecureServers(), conn.State())
	}
	return conn
}

// TestTLSChroot: a queue under /app/locks/x is /locks/x through
// host:port/app over TLS, in ls and run, and the audit log records the
// chroot with paths relative to it.
func TestTLSChroot(t *testing.T) {
	c := sharedTLS.Cluster(t)
	rel := "/locks/x" + strings.TrimPrefix(testPath(t), "/t")
	abs := "/app" + rel
	mkdirs(t, testTLSConn(t, c), abs, nil)
	holder := holdOver(t, tlsSession(t, c), abs, ordering.LockHolding)

	out, errOut, code := runBinary(t, nil, append(tlsFlags(c, "/app"), "ls", "--json", rel)...)
	if code != 0 {
		t.Fatalf("ls through /app: code %d, stderr %q", code, errOut)
	}
	jp := lsJSON(t, out)[0]
	if jp.Path != rel || !jp.Exists || len(jp.Queue) != 1 || jp.Queue[0].Node != holder.Node() {
		t.Fatalf("ls %s through /app: %+v", rel, jp)
	}
	if strings.Contains(out, "/app") {
		t.Errorf("ls output shows the chroot:\n%s", out)
	}

	auditFile := filepath.Join(t.TempDir(), "audit.log")
	pr := startBinary(t, nil, append(tlsFlags(c, "/app"), "--audit-log", auditFile, "run", rel, "--", "sh", "-c", `echo "$ZKLOCK_PATH $ZKLOCK_NODE"`)...)
	eventually(t, 20*time.Second, "run's node under /app", func() bool {
		kids, _, _ := testTLSConn(t, c).Children(abs)
		return len(kids) == 2
	})
	if err := holder.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code := pr.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("run through /app: code %d, stderr %q", code, pr.err.String())
	}
	if f := strings.Fields(pr.out.String()); len(f) != 2 || f[0] != rel || !strings.HasPrefix(f[1], rel+"/") {
		t.Errorf("CMD saw %q, want paths under %s", pr.out.String(), rel)
	}
	recs := readAudit(t, auditFile)
	if len(recs) != 2 {
		t.Fatalf("audit: %+v", recs)
	}
	for _, r := range recs {
		if r.Chroot != "/app" || r.Path != rel || !r.TLS {
			t.Errorf("audit through /app: %+v", r)
		}
	}
}

// startClusters starts clusters side by side and closes them when the
// test ends.
func startClusters(t *testing.T, opts ...sandbox.Options) []*sandbox.Cluster {
	t.Helper()
	out := make([]*sandbox.Cluster, len(opts))
	errs := make([]error, len(opts))
	var wg sync.WaitGroup
	for i, o := range opts {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
			defer cancel()
			out[i], errs[i] = sandbox.Start(ctx, o)
		})
	}
	wg.Wait()
	for _, c := range out {
		if c != nil {
			t.Cleanup(func() { c.Close() })
		}
	}
	for _, err := range errs {
		if err != nil {
			t.Fatalf("cmd TLS tests need a real ZooKeeper (make deps): %v", err)
		}
	}
	return out
}

// tlsBadLimit: a connect that cannot succeed says why within this, far
// inside the connect timeout the tests give (20 s): the first failed
// handshake decides.
const tlsBadLimit = 8 * time.Second

// TestTLSBadConnections: each way a TLS connect goes wrong is one line
// naming the server and the fix, exit 1, quickly, and nothing is left on
// the servers.
func TestTLSBadConnections(t *testing.T) {
	good := sharedTLS.Cluster(t)
	expired := sharedExpired.Cluster(t)
	type bad struct {
		name string
		args []string
		want []string
	}
	f := good.TLS()
	cases := []bad{
		{"expired", tlsFlags(expired, ""), []string{expired.SecureServers()[0], "expired at", "renew"}},
		{"unknown authority", []string{"--servers=" + good.SecureServers()[0], "--tls-ca", f.OtherCA, "--tls-cert", f.ClientCert, "--tls-key", f.ClientKey},
			[]string{good.SecureServers()[0], "signed by", "--tls-ca"}},
		{"name mismatch", append(tlsFlags(good, ""), "--tls-server-name", "zk.elsewhere.example"),
			[]string{good.SecureServers()[0], "not \"zk.elsewhere.example\"", "--tls-server-name"}},
		{"TLS on a plain port", []string{"--servers=" + good.ConnectString(), "--tls-ca", f.CA, "--tls-cert", f.ClientCert, "--tls-key", f.ClientKey},
			[]string{good.Servers()[0], "plain ZooKeeper, not TLS"}},
		{"plain on a TLS port", []string{"--servers=" + good.SecureServers()[0]},
			[]string{good.SecureServers()[0], "the server may require TLS"}},
		{"no client certificate", []string{"--servers=" + good.SecureServers()[0], "--tls-ca", f.CA},
			[]string{good.SecureServers()[0], "requires a client certificate", "--tls-cert"}},
	}
	// Two more bad servers, started side by side.
	bads := startClusters(t,
		sandbox.Options{TLS: &sandbox.TLSOptions{ServerCert: sandbox.CertWrongName}},
		sandbox.Options{TLS: &sandbox.TLSOptions{ServerCert: sandbox.CertUnknownCA}})
	wrongName, unknownCA := bads[0], bads[1]
	cases = append(cases,
		bad{"server certificate for another name", tlsFlags(wrongName, ""),
			[]string{wrongName.SecureServers()[0], sandbox.WrongServerName, "not \"127.0.0.1\"", "--tls-server-name"}},
		bad{"server certificate from an unknown CA", tlsFlags(unknownCA, ""),
			[]string{unknownCA.SecureServers()[0], "zklock sandbox other CA", unknownCA.TLS().CA}},
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			args := append(append([]string{}, tc.args...), "--connect-timeout", "20s", "ls", "/locks")
			_, errOut, code := runBinary(t, nil, args...)
			el := time.Since(start)
			assertOneLineFailure(t, errOut, code, tc.want[0])
			if code != exitFailure {
				t.Errorf("exit code %d, want %d", code, exitFailure)
			}
			for _, w := range tc.want[1:] {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
			if el > tlsBadLimit {
				t.Errorf("took %v, want within %v", el, tlsBadLimit)
			}
			t.Logf("%v: %s", el.Round(time.Millisecond), strings.TrimSpace(errOut))
		})
	}
}

// TestTLSForceRelease: release --force over TLS deletes a holder's node
// held over TLS (owner check and audit as over plain TCP), and the
// waiter takes the lock; the holder learns it lost it.
func TestTLSForceRelease(t *testing.T) {
	c := sharedTLS.Cluster(t)
	p := testPath(t)
	holder := holdOver(t, tlsSession(t, c), p, ordering.LockHolding)
	waiter := holdOver(t, tlsSession(t, c), p, ordering.LockQueued)
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	_, errOut, code := runBinary(t, nil, append(tlsFlags(c, ""), "--audit-log", auditFile, "release", "--force", "--yes", p+"/"+holder.Node())...)
	if code != 0 {
		t.Fatalf("release --force over TLS: code %d, stderr %q", code, errOut)
	}
	eventually(t, 20*time.Second, "the waiter to hold", func() bool { return waiter.State() == ordering.LockHolding })
	select {
	case <-holder.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the force-released holder was not told its lock is lost")
	}
	recs := readAudit(t, auditFile)
	if len(recs) != 2 || !recs[1].TLS || recs[1].Outcome != audit.OutcomeOK || recs[1].Node != holder.Node() {
		t.Errorf("audit of a force-release over TLS: %+v", recs)
	}
}
