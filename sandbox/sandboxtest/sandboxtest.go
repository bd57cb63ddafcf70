// Package sandboxtest holds the test helpers around package sandbox: a
// cluster closed when the test ends, and a go-zookeeper client with a
// session. It imports package testing, so only tests and benchmarks import
// it; the shipped binary does not.
package sandboxtest

import (
	"context"
	"github.com/zklock/zklock/sandbox"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/third_party/zk"
)

// Start starts a cluster for a test or benchmark and closes it when the
// test ends. When ZooKeeper or Java is missing, or the cluster does not
// start, the test fails (it does not skip: a test that needs a server and
// silently skips tests nothing) with the error, which names what to
// install or carries the servers' last log lines. A test that fails later
// gets the last 60 log lines of every member in its output.
func Start(t testing.TB, opts sandbox.Options) *sandbox.Cluster {
	t.Helper()
	Need(t)
	c, err := sandbox.Start(t.Context(), opts)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("ZooKeeper logs:\n%s", c.LogTail(60))
		}
		if err := c.Close(); err != nil {
			t.Errorf("close sandbox: %v", err)
		}
	})
	return c
}

// connectWait bounds how long Connect waits for a session: a local server
// grants one in milliseconds, an ensemble mid-election in a few seconds.
const connectWait = 20 * time.Second

// Connect connects a go-zookeeper client to servers, waits until it has a
// session, and closes it when the test ends (before the cluster, since
// cleanups run last-in first-out). The client's logger is silenced: its
// reconnect chatter would drown the test output.
func Connect(t testing.TB, servers []string, sessionTimeout time.Duration) *zk.Conn {
	t.Helper()
	return ConnectCallback(t, servers, sessionTimeout, nil)
}

// ConnectCallback is Connect with a callback that sees every event of the
// connection, state changes included, on the client's own goroutine: it
// must not block. go-zookeeper's event channel drops events when nobody
// reads it; the callback never misses one.
func ConnectCallback(t testing.TB, servers []string, sessionTimeout time.Duration, cb zk.EventCallback) *zk.Conn {
	t.Helper()
	hasSession := make(chan struct{}, 1)
	conn, _, err := zk.Connect(servers, sessionTimeout,
		zk.WithLogger(nopLogger{}),
		zk.WithEventCallback(func(ev zk.Event) {
			if cb != nil {
				cb(ev)
			}
			if ev.Type == zk.EventSession && ev.State == zk.StateHasSession {
				select {
				case hasSession <- struct{}{}:
				default:
				}
			}
		}))
	if err != nil {
		t.Fatalf("sandbox: connect %v: %v", servers, err)
	}
	t.Cleanup(conn.Close)
	ctx, cancel := context.WithTimeout(t.Context(), connectWait)
	defer cancel()
	select {
	case <-hasSession:
	case <-ctx.Done():
		t.Fatalf("sandbox: no session with %v after %v (state %v)", servers, connectWait, conn.State())
	}
	return conn
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}

// startWait bounds a shared cluster's start: a cold JVM on a busy 2-core
// machine.
const startWait = 90 * time.Second

// Shared is one cluster for all the tests of a package: started by the
// first test that asks (tests that need no server never start it),
// stopped by Close from TestMain. A start that failed fails every test
// that asks, with the error (what to install, or the servers' last log
// lines); it is not tried again.
type Shared struct {
	// Options start the cluster.
	Options sandbox.Options
	// Hint opens the failure message: what needs the server.
	Hint string

	once sync.Once
	c    *sandbox.Cluster
	err  error
}

// Cluster is the shared cluster, started on first use.
func (s *Shared) Cluster(t testing.TB) *sandbox.Cluster {
	t.Helper()
	Need(t)
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startWait)
		defer cancel()
		s.c, s.err = sandbox.Start(ctx, s.Options)
	})
	if s.err != nil {
		hint := s.Hint
		if hint == "" {
			hint = "these tests need a real ZooKeeper"
		}
		t.Fatalf("%s (make deps, or apt-get install zookeeper default-jre-headless): %v", hint, s.err)
	}
	return s.c
}

// Close stops the cluster if it was started.
func (s *Shared) Close() {
	if s.c != nil {
		s.c.Close()
	}
}

// Need skips t under `go test -short` (make test-short, the inner loop with
// no ZooKeeper): every test that starts a server, a KDC or a real client
// calls it first, directly or through Start, Shared and Kerberos. A full
// run (make test) never skips: there a missing ZooKeeper fails the test
// with what to install.
func Need(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real ZooKeeper (make test runs it; -short does not)")
	}
}
