package zkview

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/sandbox/peers"
	"github.com/zklock/zklock/third_party/zk"
)

// step is one lock request in a scripted queue, made by a real client
// (package sandbox/peers).
type step struct {
	peer   *peers.Proc
	client int
	kind   peers.LockKind
	holds  bool // the client gets the lock at once
}

// queueUp runs steps in order on path, each once the previous one's node
// is in the watcher's model, and returns the node and the request of each
// step.
func queueUp(t *testing.T, w *testWatcher, path string, steps []step) ([]string, []*peers.Hold) {
	t.Helper()
	ctx := tctx(t, 60*time.Second)
	var holds []*peers.Hold
	for i, s := range steps {
		h, err := s.peer.Request(s.client, path, s.kind)
		if err != nil {
			t.Fatal(err)
		}
		holds = append(holds, h)
		if s.holds {
			if err := h.Wait(ctx); err != nil {
				t.Fatalf("step %d on %s: %v", i, path, err)
			}
		}
		waitFor(t, w, 30*time.Second, fmt.Sprintf("node %d on %s", i, path), func(snap *model.Snapshot) bool {
			q := queueOf(snap, path)
			return q != nil && q.Nodes.Len() == i+1 && q.Nodes.At(i).Session == s.peer.Session(s.client)
		})
	}
	q := queueOf(w.Snapshot(), path)
	return modeltest.Names(q), holds
}

// TestRealClientQueues: queues built by real Curator and Kazoo clients
// (mutex and read/write) and by lockops: order, holders, kinds, owners
// and each waiter's watch equal ZooKeeper's truth (ephemeralOwner, wchc).
func TestRealClientQueues(t *testing.T) {
	c := testCluster(t)
	rq := newRealQueues(t, c.Servers())
	rq.queuePeers(t, c.Servers())
	rq.queueLockops(t, c.Servers())

	snap := waitFor(t, rq.w, 30*time.Second, "every waiter verified by the servers", rq.verified)
	watches := serverWatches(t, c.Servers())
	for key, p := range rq.paths {
		rq.checkQueue(t, snap, watches, key, p)
	}
	if what := unhealthy(snap); what != "" {
		t.Errorf("healthy queues: %s\n%s", what, dump(snap))
	}
	rq.checkFreshLook(t)
}

// realQueues are TestRealClientQueues' queues, one per recipe, each on its
// own path, and what each node of each must be.
type realQueues struct {
	paths  map[string]string // by queue name: curator-mutex, ..., lockops
	all    []string          // the paths, sorted
	expect map[string][]realNode
	raw    *zk.Conn         // ZooKeeper's truth
	mon    *lockops.Session // the watcher's session
	w      *testWatcher
	ctx    context.Context // from the lockops queue on
}

// realNode is what a node must be, in queue order.
type realNode struct {
	kind  ordering.Kind
	holds bool
}

// newRealQueues makes the parents and starts a watcher on them, with the
// server view.
func newRealQueues(t *testing.T, servers []string) *realQueues {
	base := testPath(t)
	rq := &realQueues{
		paths: map[string]string{
			"curator-mutex": base + "/curator-mutex",
			"curator-rw":    base + "/curator-rw",
			"kazoo-mutex":   base + "/kazoo-mutex",
			"kazoo-rw":      base + "/kazoo-rw",
			"lockops":       base + "/lockops",
		},
		expect: map[string][]realNode{},
		raw:    rawConn(t, servers),
	}
	for _, p := range rq.paths {
		mkdirs(t, rq.raw, p)
	}
	rq.all = slices.Sorted(maps.Values(rq.paths))
	rq.mon = session(t, servers)
	rq.w = watch(t, rq.mon, Options{Paths: rq.all, ServerView: true, ServerViewEvery: 200 * time.Millisecond})
	return rq
}

// queuePeers builds the Curator and Kazoo queues, a client's request at a
// time, each once the one before is in the watcher's model.
func (rq *realQueues) queuePeers(t *testing.T, servers []string) {
	cur := peers.StartT(t, peers.Curator, peers.Options{Servers: servers, Sessions: 7})
	kaz := peers.StartT(t, peers.Kazoo, peers.Options{Servers: servers, Sessions: 7})
	run := func(key string, steps []step, kinds []ordering.Kind) {
		queueUp(t, rq.w, rq.paths[key], steps)
		for i, s := range steps {
			rq.expect[key] = append(rq.expect[key], realNode{kinds[i], s.holds})
		}
	}
	M, R, W := ordering.KindMutex, ordering.KindRead, ordering.KindWrite
	pm, pr, pw := peers.Mutex, peers.Read, peers.Write
	run("curator-mutex", []step{{cur, 0, pm, true}, {cur, 1, pm, false}, {cur, 2, pm, false}}, []ordering.Kind{M, M, M})
	run("curator-rw", []step{{cur, 3, pw, true}, {cur, 4, pr, false}, {cur, 5, pr, false}, {cur, 6, pw, false}}, []ordering.Kind{W, R, R, W})
	run("kazoo-mutex", []step{{kaz, 0, pm, true}, {kaz, 1, pm, false}, {kaz, 2, pm, false}}, []ordering.Kind{M, M, M})
	run("kazoo-rw", []step{{kaz, 3, pr, true}, {kaz, 4, pr, true}, {kaz, 5, pw, false}, {kaz, 6, pr, false}}, []ordering.Kind{R, R, W, R})
}

// queueLockops queues three lockops clients, the first holding; the
// waiters wait until the end of rq.ctx, which it starts.
func (rq *realQueues) queueLockops(t *testing.T, servers []string) {
	rq.ctx = tctx(t, 60*time.Second)
	for i := range 3 {
		l := lockops.NewLock(session(t, servers), rq.paths["lockops"])
		if i == 0 {
			if err := l.Acquire(rq.ctx); err != nil {
				t.Fatal(err)
			}
		} else {
			go func() { _ = l.Acquire(rq.ctx) }()
		}
		eventually(t, 10*time.Second, "lockops node", func() bool { return l.Node() != "" })
		rq.expect["lockops"] = append(rq.expect["lockops"], realNode{ordering.KindMutex, i == 0})
	}
}

// verified says whether snapshot s shows every queue whole, with the
// server view, and each waiter's watch verified by the servers.
func (rq *realQueues) verified(s *model.Snapshot) bool {
	if !s.ServerView {
		return false
	}
	for key, p := range rq.paths {
		q := queueOf(s, p)
		if q == nil || q.Nodes.Len() != len(rq.expect[key]) {
			return false
		}
		for _, n := range q.Nodes.All() {
			if n.Watches() != "" && n.Link != model.LinkVerified {
				return false
			}
		}
	}
	return true
}

// checkQueue compares the model's queue key at p with ZooKeeper's truth:
// the children, their order, owners, kinds and roles, and what each
// session really watches under p (watches: wchc, by session).
func (rq *realQueues) checkQueue(t *testing.T, snap *model.Snapshot, watches map[int64][]string, key, p string) {
	q := queueOf(snap, p)
	if len(q.Warnings()) != 0 {
		t.Errorf("%s: single-recipe queue has warnings %+v", key, q.Warnings())
	}
	kids, _, err := rq.raw.Children(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := modeltest.Names(q); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(kids))) {
		t.Errorf("%s: model %v, server %v", key, got, kids)
	}
	for i, n := range q.Nodes.All() {
		if i > 0 && !ordering.SeqLess(q.Nodes.At(i-1).Seq, n.Seq) {
			t.Errorf("%s: %s before %s", key, q.Nodes.At(i-1).Name, n.Name)
		}
		_, st, err := rq.raw.Get(p + "/" + n.Name)
		if err != nil {
			t.Fatal(err)
		}
		if n.Session != st.EphemeralOwner {
			t.Errorf("%s %s: session 0x%x, ephemeralOwner 0x%x", key, n.Name, n.Session, st.EphemeralOwner)
		}
		e := rq.expect[key][i]
		if n.Kind != e.kind || (n.Role == ordering.RoleHolder) != e.holds || n.Believes != n.Role {
			t.Errorf("%s %s: kind %v role %v believes %v, want kind %v holds %v", key, n.Name, n.Kind, n.Role, n.Believes, e.kind, e.holds)
		}
		checkRealWatch(t, watches, key, p, *n)
	}
}

// checkRealWatch: what n's session really watches under p is exactly
// what the model says it waits on.
func checkRealWatch(t *testing.T, watches map[int64][]string, key, p string, n model.Node) {
	var real []string
	for _, wp := range watches[n.Session] {
		if strings.HasPrefix(wp, p+"/") {
			real = append(real, strings.TrimPrefix(wp, p+"/"))
		}
	}
	if key == "lockops" {
		// lockops may watch one node more (see its doc): the
		// predecessor must be among them.
		if n.Watches() != "" && !slices.Contains(real, n.Watches()) {
			t.Errorf("%s %s: wchc %v lacks %s", key, n.Name, real, n.Watches())
		}
		return
	}
	var model []string
	if n.Watches() != "" {
		model = []string{n.Watches()}
	}
	sort.Strings(real)
	if !slices.Equal(real, model) {
		t.Errorf("%s %s: model watches %v, wchc says %v", key, n.Name, model, real)
	}
}

// checkFreshLook: a fresh look without history (`zklock ls`), with and
// without the server view: Kazoo's holding readers, which their replay on
// today's list would make wait on the writer queued behind them, still
// hold.
func (rq *realQueues) checkFreshLook(t *testing.T) {
	for _, sview := range []bool{true, false} {
		fresh, err := Load(rq.ctx, rq.mon, Options{Paths: rq.all, ServerView: sview})
		if err != nil {
			t.Fatal(err)
		}
		for key, p := range rq.paths {
			q := queueOf(fresh, p)
			if len(q.Warnings()) != 0 {
				t.Errorf("Load (server view %v) %s: warnings %+v", sview, key, q.Warnings())
			}
			for i, n := range q.Nodes.All() {
				if (n.Believes == ordering.RoleHolder) != rq.expect[key][i].holds {
					t.Errorf("Load (server view %v) %s %s: believes %v", sview, key, n.Name, n.Believes)
				}
			}
		}
		if what := unhealthy(fresh); what != "" {
			t.Errorf("Load (server view %v): %s", sview, what)
		}
	}
}

// TestSplitHolders: stock Curator and stock Kazoo on one parent both hold:
// split-holders names both nodes (a warning `ls --check` fails on: cmd's
// TestCheckCode).
func TestSplitHolders(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	mkdirs(t, rawConn(t, c.Servers()), p)
	cur := peers.StartT(t, peers.Curator, peers.Options{Servers: c.Servers()})
	kaz := peers.StartT(t, peers.Kazoo, peers.Options{Servers: c.Servers()})
	ctx := tctx(t, 60*time.Second)
	if _, err := cur.Acquire(ctx, 0, p, peers.Mutex); err != nil {
		t.Fatal(err)
	}
	if _, err := kaz.Acquire(ctx, 0, p, peers.Mutex); err != nil {
		t.Fatal(err)
	}

	snap, err := Load(tctx(t, 20*time.Second), session(t, c.Servers()), Options{Paths: []string{p}, ServerView: true})
	if err != nil {
		t.Fatal(err)
	}
	q := queueOf(snap, p)
	if q == nil || q.Nodes.Len() != 2 {
		t.Fatalf("queue %+v", q)
	}
	split := modeltest.Warning(q, model.WarnSplitHolders)
	if split == nil || !slices.Equal(split.Nodes, modeltest.Names(q)) {
		t.Fatalf("split-holders %+v, want both of %v", split, modeltest.Names(q))
	}
	if q.Nodes.At(0).Recipe != ordering.RecipeCurator || q.Nodes.At(1).Recipe != ordering.RecipeKazoo ||
		q.Nodes.At(1).Role != ordering.RoleWaiting || q.Nodes.At(1).Believes != ordering.RoleHolder {
		t.Errorf("nodes %+v", q.Nodes)
	}
	if modeltest.Warning(q, model.WarnMixedRecipes) == nil {
		t.Errorf("no mixed-recipes warning: %+v", q.Warnings())
	}
}

// TestKazooDeadlock: Kazoo 2.8's read lock rule deadlocks W1 R1 W2 once
// W1 goes; the servers' watches show the cycle, flagged deadlock naming
// R1 and W2.
func TestKazooDeadlock(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	mkdirs(t, rawConn(t, c.Servers()), p)
	kaz := peers.StartT(t, peers.Kazoo, peers.Options{Servers: c.Servers(), Sessions: 3})
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Paths: []string{p}, ServerView: true, ServerViewEvery: 200 * time.Millisecond})
	nodes, holds := queueUp(t, w, p, []step{{kaz, 0, peers.Write, true}, {kaz, 1, peers.Read, false}, {kaz, 2, peers.Write, false}})
	w1, r1, w2 := nodes[0], nodes[1], nodes[2]
	// Before the release: a chain, no cycle (R1 really waits on W1).
	waitPolled(t, w, 15*time.Second, "chain verified", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return s.ServerView && q.Nodes.At(1).Link == model.LinkVerified && q.Nodes.At(2).Link == model.LinkVerified
	})
	if d := modeltest.Warning(queueOf(w.Snapshot(), p), model.WarnDeadlock); d != nil {
		t.Errorf("deadlock before W1 released: %+v", d)
	}
	if err := holds[0].Release(tctx(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	snap := waitFor(t, w, 20*time.Second, "deadlock", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Nodes.Len() == 2 && modeltest.Warning(q, model.WarnDeadlock) != nil
	})
	q := queueOf(snap, p)
	d := modeltest.Warning(q, model.WarnDeadlock)
	if !slices.Equal(d.Nodes, []string{r1, w2}) {
		t.Errorf("deadlock names %v, want [%s %s] (W1 was %s)", d.Nodes, r1, w2, w1)
	}
	if holds[1].Held() || holds[2].Held() {
		t.Errorf("a deadlocked client got the lock")
	}
	// A fresh look (no history) sees the same cycle in the servers' watches.
	fresh, err := Load(tctx(t, 20*time.Second), mon, Options{Paths: []string{p}, ServerView: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := modeltest.Warning(queueOf(fresh, p), model.WarnDeadlock); d == nil || !slices.Equal(d.Nodes, []string{r1, w2}) {
		t.Errorf("Load: deadlock %+v", d)
	}
	// The real watches: R1's session on W2, W2's session on R1.
	watches := serverWatches(t, c.Servers())
	if !slices.Contains(watches[q.Nodes.At(0).Session], p+"/"+w2) || !slices.Contains(watches[q.Nodes.At(1).Session], p+"/"+r1) {
		t.Errorf("wchc does not show the cycle: %v", watches)
	}
}
