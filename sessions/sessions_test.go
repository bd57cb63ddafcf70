package sessions

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
)

func rw(n model.Node, kind ordering.Kind) model.Node {
	n.Kind = kind
	return n
}

func snapOf(qs ...model.Queue) *model.Snapshot {
	slices.SortFunc(qs, func(a, b model.Queue) int { return cmpString(a.Path, b.Path) })
	s := &model.Snapshot{At: modeltest.T0, Queues: model.QueuesOf(qs...)}
	s.Deadlocks = FindDeadlocks(model.QueuesOf(qs...), modeltest.T0)
	return s
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// blocks is "session:blocks/direct" for each session, in the view's order.
func blocks(ss *Sessions) []string {
	var out []string
	for _, s := range ss.List {
		out = append(out, fmt.Sprintf("%d:%d/%d", s.Session, s.Blocks, s.BlocksDirect))
	}
	return out
}

func TestSessionsCycleOfTwoOverTwoPaths(t *testing.T) {
	for _, tc := range []struct {
		age  time.Duration
		want string
	}{
		{10 * time.Second, model.CycleDeadlock},
		{DeadlockAfter, model.CycleDeadlock},
		{DeadlockAfter - time.Millisecond, model.CycleYoung},
		{time.Second, model.CycleYoung},
	} {
		snap := snapOf(
			modeltest.MutexQ("/a", modeltest.Hold(1, 1, time.Minute), modeltest.Wait(2, 2, tc.age)),
			modeltest.MutexQ("/b", modeltest.Hold(1, 2, time.Minute), modeltest.Wait(2, 1, 2*time.Minute)),
		)
		if len(snap.Deadlocks) != 1 {
			t.Fatalf("age %v: %d cycles, want 1: %+v", tc.age, len(snap.Deadlocks), snap.Deadlocks)
		}
		d := snap.Deadlocks[0]
		if !slices.Equal(d.Sessions, []int64{1, 2}) || !slices.Equal(d.Paths, []string{"/b", "/a"}) || d.State != tc.want {
			t.Errorf("age %v: %+v, want sessions [1 2] paths [/b /a] %s", tc.age, d, tc.want)
		}
		if !d.Since.Equal(modeltest.T0.Add(-tc.age)) {
			t.Errorf("age %v: since %v, want the younger wait's start %v", tc.age, d.Since, modeltest.T0.Add(-tc.age))
		}
		w0, w1 := d.Waits[0], d.Waits[1]
		if w0.Session != 1 || w0.Holder != 2 || w0.Path != "/b" || w0.Node != "lock-0000000002" || w0.HolderNode != "lock-0000000001" ||
			w1.Session != 2 || w1.Holder != 1 || w1.Path != "/a" || w0.Client != "10.0.0.1:4000" {
			t.Errorf("age %v: waits %+v", tc.age, d.Waits)
		}
		ss := SessionsOf(snap)
		// 2 blocks 1, whose wait is the older: 2 comes first.
		if got := blocks(ss); !slices.Equal(got, []string{"2:1/1", "1:1/1"}) {
			t.Errorf("blocks %v", got)
		}
		if len(ss.Deadlocks) != 1 {
			t.Errorf("SessionsOf lost the deadlocks")
		}
	}
}

func TestSessionsCycleOfThreeOverThreePaths(t *testing.T) {
	snap := snapOf(
		modeltest.MutexQ("/a", modeltest.Hold(1, 30, time.Minute), modeltest.Wait(2, 10, time.Minute)),
		modeltest.MutexQ("/b", modeltest.Hold(1, 10, time.Minute), modeltest.Wait(2, 20, time.Minute)),
		modeltest.MutexQ("/c", modeltest.Hold(1, 20, time.Minute), modeltest.Wait(2, 30, time.Minute)),
		// A bystander waiting on the cycle: blocked, not part of it.
		modeltest.MutexQ("/d", modeltest.Hold(1, 20, time.Minute), modeltest.Wait(2, 40, time.Minute)),
	)
	if len(snap.Deadlocks) != 1 {
		t.Fatalf("%d cycles, want 1: %+v", len(snap.Deadlocks), snap.Deadlocks)
	}
	d := snap.Deadlocks[0]
	// 10 waits on /a held by 30; 30 on /c held by 20; 20 on /b held by 10.
	if !slices.Equal(d.Sessions, []int64{10, 30, 20}) || !slices.Equal(d.Paths, []string{"/a", "/c", "/b"}) || d.State != model.CycleDeadlock {
		t.Errorf("%+v", d)
	}
	ss := SessionsOf(snap)
	// Each member blocks the two others; 20 also blocks 40 directly.
	if got := blocks(ss); !slices.Equal(got, []string{"20:3/2", "10:3/1", "30:3/1", "40:0/0"}) {
		t.Errorf("blocks %v", got)
	}
}

// Two cycles sharing a session are both spelled out; a session that
// waits on the cycle is not in it.
func TestSessionsDeadlockTwoCyclesOneComponent(t *testing.T) {
	snap := snapOf(
		modeltest.MutexQ("/a", modeltest.Hold(1, 1, time.Minute), modeltest.Wait(2, 2, time.Minute), modeltest.Wait(3, 3, time.Minute)),
		modeltest.MutexQ("/b", modeltest.Hold(1, 2, time.Minute), modeltest.Wait(2, 1, time.Minute)),
		modeltest.MutexQ("/c", modeltest.Hold(1, 3, time.Minute), modeltest.Wait(2, 1, time.Minute)),
	)
	var got [][]int64
	for _, d := range snap.Deadlocks {
		got = append(got, d.Sessions)
	}
	if !slices.EqualFunc(got, [][]int64{{1, 2}, {1, 3}}, slices.Equal[[]int64]) {
		t.Errorf("cycles %v, want [[1 2] [1 3]]", got)
	}
}

func TestSessionsSelfWait(t *testing.T) {
	// Same path: session 7 holds #1 and waits behind it with #2.
	same := modeltest.MutexQ("/a", modeltest.Hold(1, 7, time.Minute), modeltest.Wait(2, 7, time.Minute), modeltest.Wait(3, 8, time.Minute))
	// Another path: 9 holds /b, and on /c waits behind its own holder.
	other := []model.Queue{
		modeltest.MutexQ("/b", modeltest.Hold(1, 9, time.Minute), modeltest.Wait(2, 5, time.Minute)),
		modeltest.MutexQ("/c", modeltest.Hold(1, 9, time.Minute), modeltest.Wait(2, 9, time.Minute)),
	}
	snap := snapOf(append([]model.Queue{same}, other...)...)
	var got []string
	for _, d := range snap.Deadlocks {
		got = append(got, fmt.Sprintf("%v %s %v", d.Sessions, d.State, d.Paths))
	}
	if want := []string{"[7] self-wait [/a]", "[9] self-wait [/c]"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	w, ok := model.SelfWaitWarning(&same)
	if !ok || w.Code != model.WarnSelfWait || !slices.Equal(w.Nodes, []string{"lock-0000000002"}) {
		t.Errorf("warning %+v %v", w, ok)
	}
	if _, ok := model.SelfWaitWarning(&other[0]); ok {
		t.Errorf("self-wait on a queue of two sessions")
	}
	ss := SessionsOf(snap)
	// A self-wait blocks nobody else; 7 blocks 8, 9 blocks 5.
	for _, s := range ss.List {
		switch s.Session {
		case 7, 9:
			if s.Blocks != 1 || s.BlocksDirect != 1 || !slices.Contains(s.WaitsFor, s.Session) {
				t.Errorf("%d: %+v", s.Session, s)
			}
		}
	}
}

// A chain of five: each holds one lock and waits on the next; the last
// holds and waits on nothing. No cycle; the last is the root blocker.
func TestSessionsChainRootBlocker(t *testing.T) {
	var qs []model.Queue
	for i := int64(1); i <= 5; i++ {
		nodes := []model.Node{modeltest.Hold(1, i, time.Hour)}
		if i > 1 {
			nodes = append(nodes, modeltest.Wait(2, i-1, time.Duration(i)*time.Second))
		}
		qs = append(qs, modeltest.MutexQ(fmt.Sprintf("/p%d", i), nodes...))
	}
	snap := snapOf(qs...)
	if len(snap.Deadlocks) != 0 {
		t.Fatalf("cycles in a chain: %+v", snap.Deadlocks)
	}
	ss := SessionsOf(snap)
	if got := blocks(ss); !slices.Equal(got, []string{"5:4/1", "4:3/1", "3:2/1", "2:1/1", "1:0/0"}) {
		t.Errorf("blocks %v", got)
	}
	root := ss.List[0]
	// 1 waits on /p2 since 2s ago ... 4 waits on /p5 since 5s ago: the
	// longest wait behind 5 is 4's own, 5s.
	if root.OldestWait != 5*time.Second || len(root.Waits) != 0 || len(root.Holds) != 1 || root.Holds[0].Path != "/p5" {
		t.Errorf("root %+v", root)
	}
	if ss.List[4].OldestWait != 0 {
		t.Errorf("a session blocking none has an oldest wait: %+v", ss.List[4])
	}
}

func TestSessionsReadLocks(t *testing.T) {
	// R1 and R2 hold; W3 waits for both; R4 waits for W3 (the nearest
	// writer before it), not for the readers.
	q := modeltest.MutexQ("/rw",
		rw(modeltest.Hold(1, 1, time.Minute), ordering.KindRead),
		rw(modeltest.Hold(2, 2, time.Minute), ordering.KindRead),
		rw(modeltest.Wait(3, 3, time.Minute), ordering.KindWrite),
		rw(modeltest.Wait(4, 4, time.Minute), ordering.KindRead),
	)
	q.Type = model.TypeRWLock
	ss := SessionsOf(snapOf(q))
	if got := blocks(ss); !slices.Equal(got, []string{"1:2/1", "2:2/1", "3:1/1", "4:0/0"}) {
		t.Errorf("blocks %v", got)
	}
	if w := ss.Find(3).WaitsFor; !slices.Equal(w, []int64{1, 2}) {
		t.Errorf("writer waits for %v", w)
	}
	if w := ss.Find(4).WaitsFor; !slices.Equal(w, []int64{3}) {
		t.Errorf("reader waits for %v", w)
	}
	// A writer holds: both readers wait for it.
	q2 := modeltest.MutexQ("/rw2",
		rw(modeltest.Hold(1, 1, time.Minute), ordering.KindWrite),
		rw(modeltest.Wait(2, 2, time.Minute), ordering.KindRead),
		rw(modeltest.Wait(3, 3, time.Minute), ordering.KindRead),
	)
	q2.Type = model.TypeRWLock
	if got := blocks(SessionsOf(snapOf(q2))); !slices.Equal(got, []string{"1:2/2", "2:0/0", "3:0/0"}) {
		t.Errorf("blocks %v", got)
	}
}

// Fan-in: many sessions on one holder, over two paths, one of them
// waiting on both.
func TestSessionsFanInBlocker(t *testing.T) {
	snap := snapOf(
		modeltest.MutexQ("/a", modeltest.Hold(1, 1, time.Minute), modeltest.Wait(2, 2, 40*time.Second), modeltest.Wait(3, 3, 30*time.Second), modeltest.Wait(4, 4, 20*time.Second)),
		modeltest.MutexQ("/b", modeltest.Hold(1, 1, time.Minute), modeltest.Wait(2, 5, 90*time.Second), modeltest.Wait(3, 2, 10*time.Second)),
	)
	ss := SessionsOf(snap)
	top := ss.List[0]
	if top.Session != 1 || top.Blocks != 4 || top.BlocksDirect != 4 || top.OldestWait != 90*time.Second || len(top.Holds) != 2 {
		t.Errorf("top %+v", top)
	}
	if s := ss.Find(2); len(s.Waits) != 2 || s.Waits[0].Path != "/a" || s.Waits[1].Path != "/b" {
		t.Errorf("session 2 %+v", s)
	}
}

// A diamond is counted once: 4 waits for 2 and 3, both wait for 1.
func TestSessionsBlockerDiamond(t *testing.T) {
	snap := snapOf(
		modeltest.MutexQ("/x", modeltest.Hold(1, 2, time.Minute), modeltest.Wait(2, 4, time.Minute)),
		modeltest.MutexQ("/y", modeltest.Hold(1, 3, time.Minute), modeltest.Wait(2, 4, time.Minute)),
		modeltest.MutexQ("/z", modeltest.Hold(1, 1, time.Minute), modeltest.Wait(2, 2, time.Minute), modeltest.Wait(3, 3, time.Minute)),
	)
	if got := blocks(SessionsOf(snap)); !slices.Equal(got, []string{"1:3/2", "2:1/1", "3:1/1", "4:0/0"}) {
		t.Errorf("blocks %v", got)
	}
}

// A semaphore's waiters wait for every lease holder, wherever it stands.
func TestSessionsSemaphoreBlockers(t *testing.T) {
	q := model.Queue{Path: "/sem", State: model.PathPresent, Type: model.TypeSemaphore, Nodes: model.NodesOf(
		modeltest.Hold(5, 1, time.Minute), modeltest.Hold(3, 2, time.Minute), modeltest.Wait(1, 3, time.Minute), modeltest.Wait(7, 4, time.Minute),
	)}
	ss := SessionsOf(snapOf(q))
	if got := blocks(ss); !slices.Equal(got, []string{"1:2/2", "2:2/2", "3:0/0", "4:0/0"}) {
		t.Errorf("blocks %v", got)
	}
}

// Nodes of no known owner are left out; empty and absent queues are fine.
func TestSessionsUnknownOwners(t *testing.T) {
	snap := snapOf(
		modeltest.MutexQ("/a", modeltest.Hold(1, 0, time.Minute), modeltest.Wait(2, 2, time.Minute)),
		model.Queue{Path: "/gone", State: model.PathAbsent},
		modeltest.MutexQ("/empty"),
	)
	ss := SessionsOf(snap)
	if got := blocks(ss); !slices.Equal(got, []string{"2:0/0"}) {
		t.Errorf("blocks %v", got)
	}
	if len(SessionsOf(&model.Snapshot{}).List) != 0 {
		t.Error("sessions of an empty snapshot")
	}
}

// The Watcher's graph dates a wait from when it first saw it: a cycle
// comes of age after DeadlockAfter with no handoff, and a handoff on any
// of its waits makes it young again.
func TestSessionsDeadlockAgeAcrossSnapshots(t *testing.T) {
	build := func(holderA string) []model.Queue {
		a := modeltest.MutexQ("/a", modeltest.Hold(1, 1, 0), modeltest.Wait(2, 2, 0))
		a.Nodes.At(0).Name = holderA
		return []model.Queue{a, modeltest.MutexQ("/b", modeltest.Hold(1, 2, 0), modeltest.Wait(2, 1, 0))}
	}
	var g Graph
	at := func(d time.Duration) time.Time { return modeltest.T0.Add(d) }
	g.Update(model.QueuesOf(build("lock-0000000001")...), at(0))
	if c := g.Cycles(at(0)); len(c) != 1 || c[0].State != model.CycleYoung || !c[0].Since.Equal(at(0)) {
		t.Fatalf("first sight: %+v", c)
	}
	// The same queues again (new slices, same nodes), 6s later.
	g.Update(model.QueuesOf(build("lock-0000000001")...), at(6*time.Second))
	if c := g.Cycles(at(6 * time.Second)); len(c) != 1 || c[0].State != model.CycleDeadlock || !c[0].Since.Equal(at(0)) {
		t.Fatalf("6s later: %+v", c)
	}
	// A handoff on /a to another node of the same session: progress.
	g.Update(model.QueuesOf(build("lock-0000000000")...), at(7*time.Second))
	if c := g.Cycles(at(7 * time.Second)); len(c) != 1 || c[0].State != model.CycleYoung || !c[0].Since.Equal(at(7*time.Second)) {
		t.Fatalf("after a handoff: %+v", c)
	}
	// One session gone: cleared.
	g.Update(model.QueuesOf([]model.Queue{modeltest.MutexQ("/a", modeltest.Wait(2, 2, 0)), modeltest.MutexQ("/b", modeltest.Hold(1, 2, 0))}...), at(8*time.Second))
	if c := g.Cycles(at(8 * time.Second)); len(c) != 0 {
		t.Fatalf("after the session left: %+v", c)
	}
	// A path no longer watched drops out of the graph.
	g.Update(model.Queues{}, at(9*time.Second))
	if len(g.parts) != 0 || len(g.out) != 0 || len(g.waitsOut) != 0 || len(g.waitedOn) != 0 || len(g.waitIn) != 0 || len(g.both) != 0 {
		t.Errorf("graph not empty: %+v", g)
	}
}

// Two reads DeadlockAfter apart judge a cycle without watching.
func TestSessionsJudgeAgainDeadlock(t *testing.T) {
	q := func() []model.Queue {
		return []model.Queue{modeltest.MutexQ("/a", modeltest.Hold(1, 1, 0), modeltest.Wait(2, 2, 0)), modeltest.MutexQ("/b", modeltest.Hold(1, 2, 0), modeltest.Wait(2, 1, 0))}
	}
	first := &model.Snapshot{At: modeltest.T0, Queues: model.QueuesOf(q()...)}
	next := &model.Snapshot{At: modeltest.T0.Add(DeadlockAfter), Queues: model.QueuesOf(q()...)}
	if d := JudgeAgain(first, next); len(d) != 1 || d[0].State != model.CycleDeadlock || !d[0].Since.Equal(modeltest.T0) {
		t.Errorf("judged %+v", d)
	}
	moved := q()
	moved[1].Nodes.At(0).Name = "lock-0000000003"
	next.Queues = model.QueuesOf(moved...)
	if d := JudgeAgain(first, next); len(d) != 1 || d[0].State != model.CycleYoung {
		t.Errorf("after a handoff: %+v", d)
	}
	young, due := YoungCycles(&model.Snapshot{Deadlocks: JudgeAgain(first, next)})
	if !young || !due.Equal(next.At.Add(DeadlockAfter)) {
		t.Errorf("young %v due %v", young, due)
	}
}

// --- benchmarks -------------------------------------------------------------

// benchQueues is paths queues of per sessions each (one holder, the rest
// waiting), every session distinct: 10,000 sessions over 1,000 paths.
func benchQueues(paths, per int) []model.Queue {
	qs := make([]model.Queue, paths)
	s := int64(1)
	for p := range qs {
		nodes := make([]model.Node, per)
		for i := range nodes {
			role := ordering.RoleWaiting
			if i == 0 {
				role = ordering.RoleHolder
			}
			nodes[i] = modeltest.Node(int32(i), s, role, time.Minute)
			s++
		}
		qs[p] = modeltest.MutexQ(fmt.Sprintf("/locks/p%04d", p), nodes...)
	}
	return qs
}

// handoff makes queue p's holder go and its first waiter hold, with a new
// session joining at the end: a new Nodes slice, as the Watcher builds.
func handoff(qs []model.Queue, p int, next *int64, seq *int32) {
	old := qs[p].Nodes
	nodes := make([]model.Node, 0, old.Len())
	nodes = append(nodes, old.Slice()[1:]...)
	nodes[0].Role, nodes[0].Believes = ordering.RoleHolder, ordering.RoleHolder
	*seq++
	*next++
	nodes = append(nodes, modeltest.Node(*seq, *next, ordering.RoleWaiting, 0))
	qs[p].Nodes = model.NodesOf(nodes...)
}

// BenchmarkSessionsGraphChange is the Watcher's cost of the sessions view
// per change: one queue of 10 among 1,000 (10,000 sessions) hands off,
// and the graph is brought up to date and searched for cycles, with a
// two-session deadlock standing elsewhere.
func BenchmarkSessionsGraphChange(b *testing.B) {
	qs := benchQueues(1000, 10)
	// A standing cycle over the first two paths' holders.
	h0, h1 := qs[0].Nodes.At(0).Session, qs[1].Nodes.At(0).Session
	qs[0].Nodes = model.NodesOf(append(qs[0].Nodes.Slice(), modeltest.Node(100, h1, ordering.RoleWaiting, 0))...)
	qs[1].Nodes = model.NodesOf(append(qs[1].Nodes.Slice(), modeltest.Node(100, h0, ordering.RoleWaiting, 0))...)
	var g Graph
	now := modeltest.T0
	g.Update(model.QueuesOf(qs...), now)
	if c := g.Cycles(now); len(c) != 1 {
		b.Fatalf("cycles %+v", c)
	}
	next, seq := int64(1_000_000), int32(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		handoff(qs, 2+i%998, &next, &seq)
		now = now.Add(time.Millisecond)
		g.Update(model.QueuesOf(qs...), now)
		if len(g.Cycles(now)) != 1 {
			b.Fatal("cycle lost")
		}
	}
}

// BenchmarkSessionsGraphAllRebuilt: a new server view rebuilds every
// queue (new slices, same nodes): the graph compares, rebuilds nothing.
func BenchmarkSessionsGraphAllRebuilt(b *testing.B) {
	qs := benchQueues(1000, 10)
	var g Graph
	g.Update(model.QueuesOf(qs...), modeltest.T0)
	copies := make([][]model.Queue, 2)
	for k := range copies {
		copies[k] = slices.Clone(qs)
		for p := range copies[k] {
			copies[k][p].Nodes = model.NodesOf(qs[p].Nodes.Slice()...)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		g.Update(model.QueuesOf(copies[i%2]...), modeltest.T0)
		g.Cycles(modeltest.T0)
	}
}

// BenchmarkSessionsTable is the whole table (SessionsOf) for 10,000
// sessions over 1,000 paths, built on demand by the console's sessions
// pane and `zklock sessions`.
func BenchmarkSessionsTable(b *testing.B) {
	snap := &model.Snapshot{At: modeltest.T0, Queues: model.QueuesOf(benchQueues(1000, 10)...)}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if ss := SessionsOf(snap); len(ss.List) != 10000 {
			b.Fatal(len(ss.List))
		}
	}
}

// BenchmarkSessionsTableChain: the worst shape for counting, one chain
// of 10,000 sessions.
func BenchmarkSessionsTableChain(b *testing.B) {
	qs := make([]model.Queue, 10000)
	for i := range qs {
		nodes := []model.Node{modeltest.Hold(1, int64(i+1), time.Hour)}
		if i > 0 {
			nodes = append(nodes, modeltest.Wait(2, int64(i), time.Second))
		}
		qs[i] = modeltest.MutexQ(fmt.Sprintf("/c/%05d", i), nodes...)
	}
	snap := &model.Snapshot{At: modeltest.T0, Queues: model.QueuesOf(qs...)}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if ss := SessionsOf(snap); ss.List[0].Blocks != 9999 {
			b.Fatal(ss.List[0])
		}
	}
}

// Random graphs: Blocks and BlocksDirect match a brute-force search, and
// every session on a cycle is in some reported cycle.
func TestSessionsBlocksMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 17))
	for round := range 300 {
		sessions := 2 + rng.IntN(12)
		var qs []model.Queue
		for p := range 1 + rng.IntN(8) {
			var nodes []model.Node
			for i := range rng.IntN(5) {
				role := ordering.RoleWaiting
				if i == 0 || rng.IntN(6) == 0 {
					role = ordering.RoleHolder
				}
				n := modeltest.Node(int32(i), 1+int64(rng.IntN(sessions)), role, time.Duration(rng.IntN(60))*time.Second)
				if rng.IntN(4) == 0 {
					n.Kind = ordering.KindRead
				}
				nodes = append(nodes, n)
			}
			q := modeltest.MutexQ(fmt.Sprintf("/r%d", p), nodes...)
			if rng.IntN(5) == 0 {
				q.Type = model.TypeSemaphore
			}
			qs = append(qs, q)
		}
		snap := snapOf(qs...)
		// Brute force: the edges, then who reaches whom.
		edges := map[int64]map[int64]bool{}
		for i := range snap.Queues.Len() {
			q := snap.Queues.At(i)
			model.QueueWaits(q, nil, func(_ int, x, y *model.Node) {
				a, b := x.Session, y.Session
				if edges[a] == nil {
					edges[a] = map[int64]bool{}
				}
				edges[a][b] = true
			})
		}
		reaches := func(from int64) map[int64]bool {
			seen := map[int64]bool{}
			stack := []int64{from}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for y := range edges[x] {
					if !seen[y] {
						seen[y] = true
						stack = append(stack, y)
					}
				}
			}
			return seen
		}
		ss := SessionsOf(snap)
		reach := map[int64]map[int64]bool{}
		for _, s := range ss.List {
			reach[s.Session] = reaches(s.Session)
		}
		inCycle := map[int64]bool{}
		for _, s := range ss.List {
			blocks, direct := 0, 0
			for _, o := range ss.List {
				if o.Session == s.Session {
					continue
				}
				if reach[o.Session][s.Session] {
					blocks++
				}
				if edges[o.Session][s.Session] {
					direct++
				}
				if reach[o.Session][s.Session] && reach[s.Session][o.Session] {
					inCycle[s.Session] = true
				}
			}
			if s.Blocks != blocks || s.BlocksDirect != direct {
				t.Fatalf("round %d: session %d blocks %d/%d, brute force %d/%d\n%+v", round, s.Session, s.Blocks, s.BlocksDirect, blocks, direct, snap.Queues)
			}
		}
		covered := map[int64]bool{}
		for _, d := range snap.Deadlocks {
			for i, s := range d.Sessions {
				next := d.Sessions[(i+1)%len(d.Sessions)]
				if !edges[s][next] || d.Waits[i].Session != s || d.Waits[i].Holder != next {
					t.Fatalf("round %d: %d does not wait for %d: %+v", round, s, next, d)
				}
				if len(d.Sessions) > 1 {
					covered[s] = true
				}
			}
		}
		for s := range inCycle {
			if !covered[s] {
				t.Fatalf("round %d: session %d is on a cycle none reports: %+v", round, s, snap.Deadlocks)
			}
		}
	}
}

// TestSessionsGraphLongQueue: a queue of graphLongQueue nodes or more is
// read into the graph at most every graphLongEvery: a change within that
// time is left for later (update says when it is due), and read once it
// is due, so a cycle through it is found then; a short queue is read at
// once.
func TestSessionsGraphLongQueue(t *testing.T) {
	long := func(lastSession int64) model.Queue {
		nodes := []model.Node{modeltest.Hold(0, 1, 0)}
		for i := range graphLongQueue {
			nodes = append(nodes, modeltest.Wait(int32(i+1), 1000+int64(i), 0))
		}
		nodes = append(nodes, modeltest.Wait(graphLongQueue+1, lastSession, 0))
		return modeltest.MutexQ("/long", nodes...)
	}
	// Session 2 holds /short and waits in /long behind session 1; session
	// 1 waiting on /short closes the cycle.
	shortName := modeltest.MutexQ("/short", modeltest.Hold(1, 2, 0), modeltest.Wait(2, 1, 0))
	var g Graph
	at := func(d time.Duration) time.Time { return modeltest.T0.Add(d) }
	if behind := g.Update(model.QueuesOf([]model.Queue{long(3), shortName}...), at(0)); !behind.IsZero() {
		t.Fatalf("first read left a queue for later (due %v)", behind)
	}
	if c := g.Cycles(at(0)); len(c) != 0 {
		t.Fatalf("a cycle before session 2 waits in /long: %+v", c)
	}
	// 10 ms later session 2 joins /long: left for later.
	behind := g.Update(model.QueuesOf([]model.Queue{long(2), shortName}...), at(10*time.Millisecond))
	if !behind.Equal(at(graphLongEvery)) {
		t.Fatalf("due %v, want %v", behind, at(graphLongEvery))
	}
	if c := g.Cycles(at(10 * time.Millisecond)); len(c) != 0 {
		t.Fatalf("the long queue was read before it was due: %+v", c)
	}
	// Once due, it is read: the cycle shows.
	if behind := g.Update(model.QueuesOf([]model.Queue{long(2), shortName}...), at(graphLongEvery)); !behind.IsZero() {
		t.Fatalf("still left for later at its due time (due %v)", behind)
	}
	if c := g.Cycles(at(graphLongEvery)); len(c) != 1 || len(c[0].Sessions) != 2 {
		t.Fatalf("after the long queue was read: %+v", c)
	}
}
