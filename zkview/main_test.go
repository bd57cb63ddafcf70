package zkview

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// The integration tests share one standalone ZooKeeper (100 ms tick, so
// sessions may be as short as 200 ms), started by the first test that
// needs it and stopped by TestMain. The fault tests start their own
// ensemble.
var shared = &sandboxtest.Shared{Options: sandbox.Options{Members: 1, TickTime: 100 * time.Millisecond}, Hint: "zkview tests need a real ZooKeeper and Java"}

func testCluster(t testing.TB) *sandbox.Cluster {
	t.Helper()
	return shared.Cluster(t)
}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Close()
	os.Exit(code)
}

var pathSeq atomic.Int64

// testPath is a fresh lock parent path for one test.
func testPath(t testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	return fmt.Sprintf("/zkview/%s-%d", name, pathSeq.Add(1))
}

// session connects a lockops Session, closed at the end of the test.
func session(t testing.TB, servers []string, opts ...lockops.SessionOption) *lockops.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opts = append([]lockops.SessionOption{lockops.WithSessionTimeout(4 * time.Second)}, opts...)
	s, err := lockops.Connect(ctx, servers, opts...)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// rawConn is a plain go-zookeeper client (a "bad client" or a recipe
// written by hand).
func rawConn(t testing.TB, servers []string) *zk.Conn {
	t.Helper()
	return sandboxtest.Connect(t, servers, 4*time.Second)
}

// mkdirs creates p and its parents as persistent nodes.
func mkdirs(t testing.TB, c *zk.Conn, p string) {
	t.Helper()
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	cur := ""
	for _, part := range parts {
		cur += "/" + part
		_, err := c.Create(cur, nil, 0, zk.WorldACL(zk.PermAll))
		if err != nil && err != zk.ErrNodeExists {
			t.Fatalf("create %s: %v", cur, err)
		}
	}
}

// createSeq creates an ephemeral sequential child named prefix+seq.
func createSeq(t testing.TB, c *zk.Conn, parent, prefix string, data []byte) string {
	t.Helper()
	p, err := c.Create(parent+"/"+prefix, data, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatalf("create %s/%s: %v", parent, prefix, err)
	}
	return p[strings.LastIndexByte(p, '/')+1:]
}

// watcher starts a Watcher, closed at the end of the test, and a reader
// that keeps its Updates drained (collecting every update for the tests
// that check them).
type testWatcher struct {
	*Watcher
	mu      sync.Mutex
	updates []model.Update
	done    chan struct{}
}

func watch(t testing.TB, s *lockops.Session, cfg Options) *testWatcher {
	t.Helper()
	w, err := Watch(context.Background(), s, cfg)
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	tw := &testWatcher{Watcher: w, done: make(chan struct{})}
	go func() {
		defer close(tw.done)
		for u := range w.Updates() {
			tw.mu.Lock()
			tw.updates = append(tw.updates, u)
			tw.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		w.Close()
		<-tw.done
	})
	return tw
}

// events returns every event received so far.
func (tw *testWatcher) events() []model.Change {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	var evs []model.Change
	for _, u := range tw.updates {
		evs = append(evs, u.Changes...)
	}
	return evs
}

// waitFor polls the Watcher's snapshot until cond holds, failing the test
// after timeout with desc and the last snapshot.
func waitFor(t testing.TB, w *testWatcher, timeout time.Duration, desc string, cond func(*model.Snapshot) bool) *model.Snapshot {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		s := w.Snapshot()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s; last snapshot (conn %v):\n%s", timeout, desc, s.Conn.State, dump(s))
		}
		<-tick.C
	}
}

// waitPolled is waitFor for what only the server view can say (a watch
// verified): it asks for a fresh poll every second while it waits. The
// poller spaces its polls serverViewShare (200) times the slowest answer,
// decoding included, so a poll slowed by a loaded machine under -race
// (the shared test server's whole watch list) could push the next one
// past the wait with nothing wrong; that is the suspected cause of two
// loaded timeouts, not a measured one. Refresh is what the console's
// refresh asks for.
func waitPolled(t testing.TB, w *testWatcher, timeout time.Duration, desc string, cond func(*model.Snapshot) bool) *model.Snapshot {
	t.Helper()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				w.Refresh()
			}
		}
	}()
	return waitFor(t, w, timeout, desc, cond)
}

// eventually waits for cond with a deadline.
func eventually(t testing.TB, timeout time.Duration, desc string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, desc)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func queueOf(s *model.Snapshot, p string) *model.Queue {
	for i := range s.Queues.Len() {
		if s.Queues.At(i).Path == p {
			return s.Queues.At(i)
		}
	}
	return nil
}

// dump is a snapshot as `ls --json` shows it, for a failing test's
// message.
func dump(s *model.Snapshot) string {
	b, err := json.MarshalIndent(model.ToJSON(s), "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// unhealthy names what a healthy picture must not show: a warning on any
// queue, or a cycle of waits over sessions; "" when there is none. A
// snapshot without them passes `zklock ls --check` (its exit code is
// package cmd's, tested there).
func unhealthy(s *model.Snapshot) string {
	for _, q := range s.Queues.All() {
		if len(q.Warnings()) > 0 {
			return fmt.Sprintf("%s warns %+v", q.Path, q.Warnings())
		}
	}
	if len(s.Deadlocks) > 0 {
		return fmt.Sprintf("cycles over sessions %+v", s.Deadlocks)
	}
	return ""
}

func tctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
