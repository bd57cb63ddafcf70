package layouts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
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
	"github.com/zklock/zklock/zkview"
)

// The integration tests share one standalone ZooKeeper (100 ms tick),
// started by the first test that needs it and stopped by TestMain.
var shared = &sandboxtest.Shared{Options: sandbox.Options{Members: 1, TickTime: 100 * time.Millisecond}, Hint: "layouts tests need a real ZooKeeper and Java"}

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

// testPath is a fresh path for one test.
func testPath(t testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	return fmt.Sprintf("/layouts/%s-%d", name, pathSeq.Add(1))
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

// rawConn is a plain go-zookeeper client.
func rawConn(t testing.TB, servers []string) *zk.Conn {
	t.Helper()
	return sandboxtest.Connect(t, servers, 4*time.Second)
}

// mkdirs creates p and its parents as persistent nodes.
func mkdirs(t testing.TB, c *zk.Conn, p string) {
	t.Helper()
	cur := ""
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		cur += "/" + part
		if _, err := c.Create(cur, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && err != zk.ErrNodeExists {
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

// testWatcher is a Watcher with its layer, closed at the end of the
// test, its Updates drained.
type testWatcher struct {
	*zkview.Watcher
	layer   *layer
	mu      sync.Mutex
	changes []model.Change // every Update's, in order
}

// events returns every change received so far.
func (tw *testWatcher) events() []model.Change {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return slices.Clone(tw.changes)
}

// watch starts a Watcher of cfg with the systems' layouts read in full
// every every (an hour: only a read after a reconnection, or a live
// re-read, can show a change).
func watch(t testing.TB, s *lockops.Session, cfg zkview.Options, every time.Duration) *testWatcher {
	t.Helper()
	tw := &testWatcher{}
	cfg.Systems = func(h zkview.Host) zkview.Overlay {
		tw.layer = newLayer(h, every)
		return tw.layer
	}
	w, err := zkview.Watch(context.Background(), s, cfg)
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	tw.Watcher = w
	done := make(chan struct{})
	go func() {
		defer close(done)
		for u := range w.Updates() {
			tw.mu.Lock()
			tw.changes = append(tw.changes, u.Changes...)
			tw.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		w.Close()
		<-done
	})
	return tw
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

// eventually waits for cond with a deadline.
func eventually(t testing.TB, timeout time.Duration, desc string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, desc)
		}
		<-tick.C
	}
}

func queueOf(s *model.Snapshot, p string) *model.Queue {
	if i, ok := s.Queues.Find(p); ok {
		return s.Queues.At(i)
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
