package zkview

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
)

// TestLoadRootThroughQueue: a one-shot read of a root (Load, `ls --root`)
// reads the tree through the root's queue and workers, as a Watcher
// does, so it gives a fresh picture equal to a Watcher's, tells its
// progress as it goes, and leaves no watch on the server (Load sets
// none: go-zookeeper cannot remove one).
func TestLoadRootThroughQueue(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	raw := rawConn(t, c.Servers())
	makeEntityTree(t, raw, root, 2000, 4)
	rc := &requestCounter{}
	mon := session(t, c.Servers(), lockops.WithDialer(rc.dialer()))

	var mu sync.Mutex
	var told []model.Discovery
	cfg := Options{Roots: []string{root}, progressEvery: time.Millisecond, LoadProgress: func(ds []model.Discovery) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, ds...)
	}}
	s, err := Load(tctx(t, 60*time.Second), mon, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Unread != 0 || s.Discovery != nil {
		t.Errorf("the loaded snapshot: unread %d, discovery %+v", s.Unread, s.Discovery)
	}
	if _, byOp := rc.requests(); byOp[opAddWatch] != 0 {
		t.Errorf("Load set %d persistent watches", byOp[opAddWatch])
	}
	mu.Lock()
	checkTold(t, root, told)
	mu.Unlock()

	w := watch(t, session(t, c.Servers()), Options{Roots: []string{root}})
	converge(t, rootPicture(s, false), w)
	var seen []model.Discovery
	w.mu.Lock()
	for _, u := range w.updates {
		seen = append(seen, u.Snapshot.Discovery...)
	}
	w.mu.Unlock()
	checkTold(t, root, seen)
	if d := w.Snapshot().Discovery; d != nil {
		t.Errorf("the picture is whole, yet discovery says %+v", d)
	}
}

// checkTold: progress was told, of root, and it only grew, each time
// with fewer nodes read than found.
func checkTold(t *testing.T, root string, told []model.Discovery) {
	t.Helper()
	if len(told) == 0 {
		t.Fatal("no progress told while the root was read")
	}
	prev := model.Discovery{}
	for _, d := range told {
		if d.Root != root || d.Read >= d.Found || d.Read < prev.Read || d.Found < prev.Found || d.Took < prev.Took {
			t.Fatalf("progress %+v after %+v", d, prev)
		}
		prev = d
	}
	t.Logf("%d progress reports, the last %+v", len(told), prev)
}

// TestPictureDiff: the report of pictures that do not agree names what
// differs, also when only a line's count or the order does, and the
// paths left unread.
func TestPictureDiff(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"x\ny\n", "x\ny\n", ""},
		{"x\ny\n", "x\nz\n", "- y (1 more times than in the other)\n+ z (1 more times than in the other)"},
		{"x\ny\n", "x\ny\ny\n", "+ y (1 more times than in the other)"},
		{"x\ny\n", "y\nx\n", `the same lines in another order, from line 0: "x" against "y"`},
	} {
		if got := pictureDiff(tc.a, tc.b); got != tc.want {
			t.Errorf("pictureDiff(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
	agree := &model.Snapshot{WatchMode: model.ModeRecursive}
	unread := &model.Snapshot{WatchMode: model.ModeChildren, Unread: 3}
	if got := disagreement("", []*model.Snapshot{agree, agree}); got != "" {
		t.Errorf("agreeing snapshots: %q", got)
	}
	if got := disagreement("", []*model.Snapshot{agree, unread}); got != "watcher 1 (children): 3 paths unread\n" {
		t.Errorf("a snapshot with paths unread: %q", got)
	}
	held := &model.Snapshot{Queues: model.QueuesOf(model.Queue{Path: "/a", Nodes: model.NodesOf(model.Node{Name: "lock-0000000001"})})}
	if got := disagreement("", []*model.Snapshot{held}); !strings.Contains(got, "+ /a") {
		t.Errorf("a snapshot with a parent the fresh read has not: %q", got)
	}
}
