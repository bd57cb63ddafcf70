package zkview

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"zklock/lockops"
)

// The sessions view: a wait-for graph over the sessions that own the lock
// nodes of every watched queue. Session S waits for session H when a node
// of S waits in a queue and a node of H is what it waits behind:
//
//   - a mutex or write node: every node before it that holds (in a split
//     queue, every node that believes it holds);
//   - a read node: the nearest write (or mutex) node before it, holding or
//     not: a reader waits for that writer to be done, and the writer for
//     the holders before it, so the graph stays linear in the queue's
//     length instead of pairing every reader with every writer;
//   - a node of a semaphore: every lease that holds, wherever it stands.
//
// Holding and waiting are what each node's own recipe believes
// (Node.Believes). Nodes without a known owner (persistent, or not read
// yet) are left out. Everything is derived from the snapshot's queues:
// no request beyond what the queues already cost.
//
// A cycle over sessions is a cross-lock deadlock only once it has stood
// with no handoff on any of its waits for DeadlockAfter. A session is not
// a thread: two threads of one process sharing one session show as one
// session that both holds and waits, and such a "cycle" may unwind by
// itself. The time it has stood with no progress is what to judge by.

// DeadlockAfter is how long a cycle of waits over sessions must stand,
// with no handoff on any of its waits, before it is called a deadlock:
// well beyond a handoff in flight (a release told to the next waiter, a
// re-list, a watch set: tens of milliseconds) and beyond a client
// retrying after a connection loss, yet short enough to be seen within
// one look at the console.
const DeadlockAfter = 5 * time.Second

// States of a Deadlock, as `zklock sessions --json` writes them.
const (
	// CycleDeadlock: a cycle that has stood DeadlockAfter or longer with
	// no handoff on any of its waits.
	CycleDeadlock = "deadlock"
	// CycleYoung: a cycle seen for less than DeadlockAfter (or seen in one
	// read only, when its age cannot be told).
	CycleYoung = "cycle"
	// CycleSelfWait: a session waits behind a node of its own.
	CycleSelfWait = WarnSelfWait
)

// SessionNode is one lock node of a session in the sessions view.
type SessionNode struct {
	Path string // the queue's path
	Node string // raw name; sanitize before display
	// Parent is the znode's parent when it is not Path (Node.Parent: a
	// semaphore's leases/ or locks/); "" otherwise.
	Parent string
	// Since is when the node took its role, as Node.Since: the hold's
	// start for a held node, the wait's start for a waiting one.
	Since time.Time
}

// Wait is one edge of the wait-for graph as the nodes make it: a waiting
// node of Session behind a node of Holder on Path.
type Wait struct {
	Session    int64
	Client     string // the waiting session's ip:port, "" when unknown
	Path       string
	Node       string // the waiting node
	Holder     int64
	HolderNode string // the node it waits behind
	// Since: the wait has stood since then on these two nodes, with no
	// handoff between them (a node that waits or holds keeps that role
	// until it goes). A Watcher, or the first of two reads, dates it
	// from when it first saw it; FindDeadlocks from the later of the two
	// nodes' Since.
	Since time.Time
}

// Deadlock is a cycle of the wait-for graph over sessions: a cross-lock
// deadlock once it has stood DeadlockAfter with no handoff on any of its
// waits, a young cycle before, or a session waiting behind its own node.
type Deadlock struct {
	// Sessions in wait order: each waits for the next, the last for the
	// first; one session for a self-wait. The lowest session id is first.
	Sessions []int64
	// Waits[i] is the wait of Sessions[i] on Sessions[i+1] (the last on
	// the first): the oldest of its waits when it has several.
	Waits []Wait
	// Paths of the waits, each once, in wait order.
	Paths []string
	// State is CycleDeadlock, CycleYoung or CycleSelfWait.
	State string
	// Since: the cycle has stood, with no handoff on any of its waits, at
	// least since then (the latest of its waits' Since).
	Since time.Time
}

// SessionInfo is one session in the sessions view.
type SessionInfo struct {
	Session int64
	Client  string // ip:port from `cons`, "" when the servers do not tell
	Holds   []SessionNode
	Waits   []SessionNode
	// WaitsFor are the sessions it waits for directly, ascending.
	WaitsFor []int64
	// BlocksDirect counts the other sessions waiting for it directly;
	// Blocks those waiting for it directly or through others.
	BlocksDirect, Blocks int
	// OldestWait is how long the longest-waiting session it blocks
	// (directly or not) has waited; 0 when it blocks none.
	OldestWait time.Duration
}

// Sessions is the sessions view of a snapshot.
type Sessions struct {
	At time.Time
	// List is every session owning a node in the watched queues, by
	// Blocks (most first: the session to look at first), then
	// BlocksDirect, OldestWait, and id.
	List []SessionInfo
	// Deadlocks are the snapshot's (Snapshot.Deadlocks).
	Deadlocks []Deadlock
}

// Find returns the session with id s, nil when it owns no node.
func (ss *Sessions) Find(s int64) *SessionInfo {
	for i := range ss.List {
		if ss.List[i].Session == s {
			return &ss.List[i]
		}
	}
	return nil
}

// holds says whether n acts as a holder: its own recipe believes it holds.
func holds(n *Node) bool { return n.Believes == lockops.RoleHolder }

// queueWaits calls visit(w, h) for every waiting node w of q and node h it
// waits behind (indices into q.Nodes; see the rules at the top of this
// file). Nodes of no known session are skipped. buf is scratch space,
// returned for reuse.
func queueWaits(q *Queue, buf []int, visit func(w, h int)) []int {
	holders := buf[:0]
	semaphore := q.Type == TypeSemaphore
	if semaphore {
		for i := range q.Nodes {
			if holds(&q.Nodes[i]) && q.Nodes[i].Session != 0 {
				holders = append(holders, i)
			}
		}
	}
	lastWrite := -1
	for i := range q.Nodes {
		n := &q.Nodes[i]
		switch {
		case holds(n):
			if !semaphore && n.Session != 0 {
				holders = append(holders, i)
			}
		case n.Session == 0:
		case !semaphore && n.Kind == lockops.KindRead && lastWrite >= 0:
			if q.Nodes[lastWrite].Session != 0 {
				visit(i, lastWrite)
			}
		default:
			for _, h := range holders {
				visit(i, h)
			}
		}
		if n.Kind == lockops.KindWrite || n.Kind == lockops.KindMutex {
			lastWrite = i
		}
	}
	return holders
}

// selfWaitWarning is the self-wait warning of a queue: its waiting nodes
// that wait behind a node of their own session (ok false when none).
func selfWaitWarning(q *Queue) (Warning, bool) {
	var nodes []string
	var first string
	last := -1
	queueWaits(q, nil, func(w, h int) {
		a, b := &q.Nodes[w], &q.Nodes[h]
		if a.Session != b.Session || w == last {
			return
		}
		last = w
		if first == "" {
			first = fmt.Sprintf("%s waits behind %s, both of session %s", short(a.Name), short(b.Name), SessionHex(a.Session))
		}
		nodes = append(nodes, a.Name)
	})
	if nodes == nil {
		return Warning{}, false
	}
	msg := first + ": it waits for itself (two threads sharing one session wait for each other to let go; one thread re-entering a lock that is not re-entrant never will)"
	if len(nodes) > 1 {
		msg = fmt.Sprintf("%d nodes wait behind their own session's node; %s", len(nodes), msg)
	}
	return Warning{Code: WarnSelfWait, Nodes: nodes, Message: msg}, true
}

// --- the graph kept by a Watcher -------------------------------------------

// sessionGraph is the wait-for graph kept across snapshots, one queue at a
// time: a queue whose Nodes did not change since the last snapshot (the
// Watcher reuses a queue's built Queue until it changes) costs a pointer
// comparison, a changed one the length of that queue. Cycles can only
// pass through sessions that both wait and are waited on, so only those
// are searched at each snapshot. The zero value is ready to use.
type sessionGraph struct {
	parts map[string]*graphPart     // by path
	order []*graphPart              // parts in the order of the last update's queues
	out   map[int64]map[int64]int32 // waiting session -> session waited for -> number of waits
	// The waits (node pairs) by waiting session and by session waited
	// on: a cycle passes only through sessions with both (a session that
	// holds and waits, or a writer in line that readers wait behind).
	waitsOut map[int64]int32
	waitedOn map[int64]int32
	both     map[int64]bool
	// waitIn are the parts where a session has waits, so that spelling
	// out a cycle reads its sessions' queues, not every queue.
	waitIn map[int64]map[*graphPart]int32
	// fromNodes: a wait first seen is dated from its nodes' Since (the
	// graph of a single snapshot, FindDeadlocks) instead of the moment
	// the graph first saw it (a Watcher, or a read confirming another).
	fromNodes bool
	gen       uint64
	scratch   []int

	last     []Deadlock  // the cycles of the previous snapshot, for events
	recheck  *time.Timer // publishes again when a young cycle comes of age
	recheckT time.Time
}

// graphPart is what one queue brings to the graph.
type graphPart struct {
	path  string
	nodes []Node // the Queue.Nodes it was built from, or an equal one since
	typ   QueueType
	gen   uint64
	pairs []pairRec
}

// pairRec is one wait: a waiting node and a node it waits behind.
type pairRec struct {
	waiter, holder int64
	wnode, hnode   string
	wi             int // index of the waiting node in nodes
	seen           time.Time
}

func (g *sessionGraph) init() {
	if g.parts == nil {
		g.parts = map[string]*graphPart{}
		g.out = map[int64]map[int64]int32{}
		g.waitsOut = map[int64]int32{}
		g.waitedOn = map[int64]int32{}
		g.both = map[int64]bool{}
		g.waitIn = map[int64]map[*graphPart]int32{}
	}
}

// update brings the graph to queues (every watched queue of a snapshot
// taken at now): changed queues are re-read, gone ones dropped.
func (g *sessionGraph) update(queues []Queue, now time.Time) {
	g.init()
	g.gen++
	same := len(g.order) == len(queues)
	for i := range queues {
		q := &queues[i]
		var p *graphPart
		if i < len(g.order) && g.order[i].path == q.Path {
			p = g.order[i] // the usual case: the same paths as last time
		} else {
			p, same = g.parts[q.Path], false
		}
		if p != nil && p.same(q) {
			p.nodes, p.gen = q.Nodes, g.gen
			continue
		}
		np := g.buildPart(q, p, now)
		np.gen = g.gen
		if p != nil {
			g.apply(p, -1)
		}
		g.apply(np, 1)
		g.parts[q.Path] = np
		if i < len(g.order) {
			g.order[i] = np
		}
	}
	if !same {
		g.order = g.order[:0]
		for i := range queues {
			g.order = append(g.order, g.parts[queues[i].Path])
		}
	}
	if len(g.parts) > len(queues) {
		for path, p := range g.parts {
			if p.gen != g.gen {
				g.apply(p, -1)
				delete(g.parts, path)
			}
		}
	}
}

// same says whether q makes the same waits as the queue p was built from:
// at once when it is the same slice (the Watcher hands out a queue's
// Nodes unchanged until the queue changes), else node by node (a new
// server view rebuilds every queue, most of them unchanged).
func (p *graphPart) same(q *Queue) bool {
	a, b := p.nodes, q.Nodes
	if len(a) != len(b) || p.typ != q.Type {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Name != y.Name || x.Session != y.Session || x.Believes != y.Believes || x.Kind != y.Kind {
			return false
		}
	}
	return true
}

// buildPart reads one queue; a wait already in old keeps when it was
// first seen.
func (g *sessionGraph) buildPart(q *Queue, old *graphPart, now time.Time) *graphPart {
	// About one wait a waiting node (a semaphore's waiters have one per
	// lease holder): sized once, not grown pair by pair.
	p := &graphPart{path: q.Path, nodes: q.Nodes, typ: q.Type, pairs: make([]pairRec, 0, len(q.Nodes))}
	// A waiter of the plain ephemeral lock owns no node (its name is ""):
	// the session tells it apart.
	type key struct {
		waiter       int64
		wnode, hnode string
	}
	var before map[key]time.Time
	if old != nil && len(old.pairs) > 0 {
		before = make(map[key]time.Time, len(old.pairs))
		for _, r := range old.pairs {
			before[key{r.waiter, r.wnode, r.hnode}] = r.seen
		}
	}
	g.scratch = queueWaits(q, g.scratch, func(w, h int) {
		a, b := &q.Nodes[w], &q.Nodes[h]
		r := pairRec{waiter: a.Session, holder: b.Session, wnode: a.Name, hnode: b.Name, wi: w, seen: now}
		if t, ok := before[key{a.Session, a.Name, b.Name}]; ok {
			r.seen = t
		} else if g.fromNodes {
			r.seen = later(a.Since, b.Since, now)
		}
		p.pairs = append(p.pairs, r)
	})
	return p
}

// later is the later of a and b, or now when both are unknown.
func later(a, b, now time.Time) time.Time {
	if b.After(a) {
		a = b
	}
	if a.IsZero() {
		return now
	}
	return a
}

// apply adds (sign 1) or removes (sign -1) a part's counts and edges.
func (g *sessionGraph) apply(p *graphPart, sign int32) {
	for _, r := range p.pairs {
		m := g.out[r.waiter]
		if m == nil {
			m = map[int64]int32{}
			g.out[r.waiter] = m
		}
		m[r.holder] += sign
		if m[r.holder] == 0 {
			delete(m, r.holder)
			if len(m) == 0 {
				delete(g.out, r.waiter)
			}
		}
		bump(g.waitsOut, r.waiter, sign)
		bump(g.waitedOn, r.holder, sign)
		g.checkBoth(r.waiter)
		g.checkBoth(r.holder)
		in := g.waitIn[r.waiter]
		if in == nil {
			in = map[*graphPart]int32{}
			g.waitIn[r.waiter] = in
		}
		bump(in, p, sign)
		if len(in) == 0 {
			delete(g.waitIn, r.waiter)
		}
	}
}

// bump adds d to m[k], deleting it at zero.
func bump[K comparable](m map[K]int32, k K, d int32) {
	if m[k] += d; m[k] == 0 {
		delete(m, k)
	}
}

func (g *sessionGraph) checkBoth(s int64) {
	if g.waitsOut[s] > 0 && g.waitedOn[s] > 0 {
		g.both[s] = true
	} else {
		delete(g.both, s)
	}
}

// cycles finds every cycle of the graph as it stands at now: the
// strongly connected components of the sessions that wait and are
// waited on, each covered by shortest cycles, and every session waiting for itself.
func (g *sessionGraph) cycles(now time.Time) []Deadlock {
	if len(g.both) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(g.both))
	for s := range g.both {
		ids = append(ids, s)
	}
	slices.Sort(ids)
	index := make(map[int64]int, len(ids))
	for i, s := range ids {
		index[s] = i
	}
	adj := make([][]int32, len(ids))
	var selfLoops []int64
	for i, s := range ids {
		for t := range g.out[s] {
			if t == s {
				selfLoops = append(selfLoops, s)
				continue
			}
			if j, ok := index[t]; ok {
				adj[i] = append(adj[i], int32(j))
			}
		}
		slices.Sort(adj[i])
	}
	comp, count := components(len(ids), func(v int) []int32 { return adj[v] })
	size := make([]int, count)
	for _, c := range comp {
		size[c]++
	}
	var found [][]int64
	seen := map[string]bool{}
	covered := make([]bool, len(ids))
	for v := range ids { // ascending session ids
		if size[comp[v]] < 2 || covered[v] {
			continue
		}
		cyc := shortestCycle(adj, comp, int32(v))
		sess := make([]int64, len(cyc))
		for i, c := range cyc {
			covered[c] = true
			sess[i] = ids[c]
		}
		sess = rotateLowest(sess)
		if k := fmt.Sprint(sess); !seen[k] {
			seen[k] = true
			found = append(found, sess)
		}
	}
	slices.Sort(selfLoops)
	for _, s := range selfLoops {
		found = append(found, []int64{s})
	}
	if len(found) == 0 {
		return nil
	}
	return g.describe(found, now)
}

// describe turns cycles of sessions into Deadlocks, with the oldest wait
// of each step, read from the parts.
func (g *sessionGraph) describe(found [][]int64, now time.Time) []Deadlock {
	type step struct{ from, to int64 }
	want := map[step]*Wait{}
	for _, c := range found {
		for i, s := range c {
			want[step{s, c[(i+1)%len(c)]}] = nil
		}
	}
	var parts []*graphPart
	for k := range want {
		for p := range g.waitIn[k.from] {
			if !slices.Contains(parts, p) {
				parts = append(parts, p)
			}
		}
	}
	// Ties between equally old waits go to the first path.
	slices.SortFunc(parts, func(a, b *graphPart) int { return strings.Compare(a.path, b.path) })
	for _, p := range parts {
		path := p.path
		for _, r := range p.pairs {
			k := step{r.waiter, r.holder}
			cur, ok := want[k]
			if !ok || (cur != nil && !r.seen.Before(cur.Since)) {
				continue
			}
			want[k] = &Wait{Session: r.waiter, Client: p.nodes[r.wi].Client, Path: path, Node: r.wnode,
				Holder: r.holder, HolderNode: r.hnode, Since: r.seen}
		}
	}
	out := make([]Deadlock, 0, len(found))
	for _, c := range found {
		d := Deadlock{Sessions: c}
		for i, s := range c {
			wt := want[step{s, c[(i+1)%len(c)]}]
			if wt == nil { // cannot happen: every edge comes from a pair
				continue
			}
			d.Waits = append(d.Waits, *wt)
			if !slices.Contains(d.Paths, wt.Path) {
				d.Paths = append(d.Paths, wt.Path)
			}
			if wt.Since.After(d.Since) {
				d.Since = wt.Since
			}
		}
		switch {
		case len(c) == 1:
			d.State = CycleSelfWait
		case now.Sub(d.Since) >= DeadlockAfter:
			d.State = CycleDeadlock
		default:
			d.State = CycleYoung
		}
		out = append(out, d)
	}
	sortDeadlocks(out)
	return out
}

// sortDeadlocks puts deadlocks first, then young cycles, then self-waits;
// the oldest first within each.
func sortDeadlocks(ds []Deadlock) {
	rank := map[string]int{CycleDeadlock: 0, CycleYoung: 1, CycleSelfWait: 2}
	slices.SortStableFunc(ds, func(a, b Deadlock) int {
		if r := rank[a.State] - rank[b.State]; r != 0 {
			return r
		}
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		return slices.Compare(a.Sessions, b.Sessions)
	})
}

// rotateLowest rotates a cycle so that its lowest session comes first.
func rotateLowest(c []int64) []int64 {
	lo := slices.Index(c, slices.Min(c))
	return append(c[lo:len(c):len(c)], c[:lo]...)
}

// components labels the strongly connected components of a graph of n
// vertices (Tarjan's algorithm, iterative: a chain of 10,000 sessions must
// not grow the stack). Components are numbered in the order found, which
// is reverse topological: a component's number is lower than that of
// every component with an edge into it.
func components(n int, succ func(v int) []int32) (comp []int32, count int) {
	index := make([]int32, n)
	low := make([]int32, n)
	comp = make([]int32, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	var stack []int32
	next := int32(0)
	type frame struct{ v, edge int32 }
	var call []frame
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		call = append(call[:0], frame{int32(root), 0})
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		for len(call) > 0 {
			top := &call[len(call)-1]
			v := top.v
			if out := succ(int(v)); int(top.edge) < len(out) {
				u := out[top.edge]
				top.edge++
				switch {
				case index[u] < 0:
					index[u], low[u] = next, next
					next++
					stack = append(stack, u)
					call = append(call, frame{u, 0})
				case comp[u] < 0: // on the stack
					low[v] = min(low[v], index[u])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				for {
					u := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					comp[u] = int32(count)
					if u == v {
						break
					}
				}
				count++
			}
		}
	}
	return comp, count
}

// shortestCycle is a shortest cycle through v among the vertices of its
// component (breadth-first from v back to v), as vertices in edge order
// from v.
func shortestCycle(adj [][]int32, comp []int32, v int32) []int32 {
	parent := map[int32]int32{v: -1}
	queue := []int32{v}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, u := range adj[x] {
			if comp[u] != comp[v] {
				continue
			}
			if u == v {
				var cyc []int32
				for y := x; y != -1; y = parent[y] {
					cyc = append(cyc, y)
				}
				slices.Reverse(cyc)
				return cyc
			}
			if _, ok := parent[u]; !ok {
				parent[u] = x
				queue = append(queue, u)
			}
		}
	}
	return []int32{v} // not reached inside a component of two or more
}

// FindDeadlocks is the cycles of the wait-for graph of queues alone,
// judged at now, each wait dated from its two nodes' Since. A Watcher
// fills Snapshot.Deadlocks with the waits dated from when it first saw
// them instead; FindDeadlocks serves snapshots built by other means.
func FindDeadlocks(queues []Queue, now time.Time) []Deadlock {
	g := sessionGraph{fromNodes: true}
	g.update(queues, now)
	return g.cycles(now)
}

// JudgeAgain dates the cycles of next by what first showed: a wait seen
// in both snapshots on the same two nodes stood all the while (a node
// that waits or holds keeps that role until it goes), so a cycle whose
// every wait was in first is at least as old as first. It returns next's
// cycles so dated (Load then Load again DeadlockAfter later tells a
// deadlock from a young cycle without watching anything).
func JudgeAgain(first, next *Snapshot) []Deadlock {
	var g sessionGraph
	g.update(first.Queues, first.At)
	g.update(next.Queues, next.At)
	return g.cycles(next.At)
}

// ConfirmCycles judges the young cycles of a one-off read: it waits until
// they would have stood DeadlockAfter, reads cfg again (Load) and returns
// that read with its cycles dated across both (JudgeAgain): a cycle seen
// in both on the same nodes is a deadlock, one with a handoff in between
// is young again, one gone is gone. snap is returned as is when it shows
// no young cycle. It takes at most DeadlockAfter plus a read; ctx bounds
// it.
func ConfirmCycles(ctx context.Context, s *lockops.Session, cfg Config, snap *Snapshot) (*Snapshot, error) {
	young, due := YoungCycles(snap)
	if !young {
		return snap, nil
	}
	t := time.NewTimer(time.Until(due))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, fmt.Errorf("zkview: confirm cycles: %w", ctx.Err())
	}
	next, err := Load(ctx, s, cfg)
	if err != nil {
		return nil, err
	}
	next.Deadlocks = JudgeAgain(snap, next)
	return next, nil
}

// YoungCycles says whether snap shows a cycle not yet judged a deadlock,
// and when the youngest would come of age.
func YoungCycles(snap *Snapshot) (bool, time.Time) {
	var due time.Time
	for _, d := range snap.Deadlocks {
		if d.State == CycleYoung {
			if t := d.Since.Add(DeadlockAfter); t.After(due) {
				due = t
			}
		}
	}
	return !due.IsZero(), due
}

// judgeSessionsLocked brings the Watcher's wait-for graph to the queues
// of the snapshot being built at now and returns its cycles, telling on
// the event log which ones appeared, became deadlocks and cleared. While a
// young cycle stands, a snapshot is published again when it comes of age,
// even if nothing else changes.
func (w *Watcher) judgeSessionsLocked(queues []Queue, now time.Time) []Deadlock {
	g := &w.graph
	g.update(queues, now)
	cur := g.cycles(now)
	w.cycleEventsLocked(g.last, cur, now)
	g.last = cur
	young, due := YoungCycles(&Snapshot{Deadlocks: cur})
	if !young && g.recheck != nil {
		g.recheck.Stop()
		g.recheck, g.recheckT = nil, time.Time{}
	}
	if young && !w.oneShot && !g.recheckT.Equal(due) {
		if g.recheck != nil {
			g.recheck.Stop()
		}
		g.recheckT = due
		// A little after the due time: the cycle is judged by the clock of
		// the rebuild that follows, which must be past it.
		g.recheck = time.AfterFunc(due.Sub(now)+10*time.Millisecond, func() {
			if w.ctx.Err() != nil {
				return
			}
			w.mu.Lock()
			w.graph.recheckT = time.Time{}
			w.markDirtyLocked()
			w.mu.Unlock()
			w.kickPublish()
		})
	}
	return cur
}

// cycleEventsLocked tells what changed between two snapshots' cycles
// over two or more sessions (a self-wait is told by its queue's warning).
func (w *Watcher) cycleEventsLocked(old, cur []Deadlock, now time.Time) {
	key := func(d Deadlock) string { return fmt.Sprint(d.Sessions) }
	had := make(map[string]string, len(old))
	for _, d := range old {
		had[key(d)] = d.State
	}
	has := make(map[string]bool, len(cur))
	for _, d := range cur {
		has[key(d)] = true
		if prev, ok := had[key(d)]; (ok && prev == d.State) || d.State == CycleSelfWait {
			continue
		}
		w.emitLocked(Event{At: now, Kind: EventWarning, Path: d.Paths[0], Node: d.Waits[0].Node, Text: DeadlockText(d, now)})
	}
	for _, d := range old {
		if !has[key(d)] && d.State != CycleSelfWait {
			w.emitLocked(Event{At: now, Kind: EventWarning, Path: d.Paths[0],
				Text: "cross-lock cycle cleared: " + sessionList(d.Sessions)})
		}
	}
}

// DeadlockText is a deadlock in one line: its state, its sessions and
// where each waits.
func DeadlockText(d Deadlock, now time.Time) string {
	var b strings.Builder
	switch d.State {
	case CycleDeadlock:
		fmt.Fprintf(&b, "cross-lock deadlock, no handoff for %s: ", fmtGap(now.Sub(d.Since)))
	case CycleSelfWait:
		b.WriteString("self-wait: ")
	default:
		fmt.Fprintf(&b, "cross-lock cycle, %s old (a deadlock if it stands %s with no handoff): ", fmtGap(now.Sub(d.Since)), DeadlockAfter)
	}
	for i, wt := range d.Waits {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s waits on %s %s held by %s", SessionHex(wt.Session), SanitizeString(wt.Path, 0),
			NodeRef(wt.Node, 24), SessionHex(wt.Holder))
		if wt.Holder == wt.Session {
			fmt.Fprintf(&b, " (its own %s)", NodeRef(wt.HolderNode, 24))
		}
	}
	return b.String()
}

// sessionList is "0x1 → 0x2 → 0x1", or "0x1" for one session.
func sessionList(ss []int64) string {
	parts := make([]string, 0, len(ss)+1)
	for _, s := range ss {
		parts = append(parts, SessionHex(s))
	}
	if len(ss) > 1 {
		parts = append(parts, SessionHex(ss[0]))
	}
	return strings.Join(parts, " → ")
}

// --- the table, built on demand ---------------------------------------------

// SessionsOf builds the sessions view of snap: every session owning a node
// in its queues, what it holds and waits on, how many sessions it blocks,
// and snap.Deadlocks. It reads only snap and may be called on any
// snapshot; a consumer builds it when it shows it, once per snapshot (a
// few milliseconds for 10,000 sessions).
func SessionsOf(snap *Snapshot) *Sessions {
	total := 0
	for qi := range snap.Queues {
		total += len(snap.Queues[qi].Nodes)
	}
	// Pass 1: number the sessions, list their nodes and their waits.
	type entry struct {
		who  int32
		hold bool
		node SessionNode
	}
	index := make(map[int64]int32, total)
	entries := make([]entry, 0, total)
	var (
		ids     = make([]int64, 0, total)
		clients = make([]string, 0, total)
		oldest  = make([]time.Time, 0, total) // per session: its oldest wait's start
		from    []int32                       // the waits, as session numbers
		to      []int32
		buf     []int
	)
	for qi := range snap.Queues {
		q := &snap.Queues[qi]
		for ni := range q.Nodes {
			n := &q.Nodes[ni]
			if n.Session == 0 {
				continue
			}
			i, ok := index[n.Session]
			if !ok {
				i = int32(len(ids))
				index[n.Session] = i
				ids = append(ids, n.Session)
				clients = append(clients, "")
				oldest = append(oldest, time.Time{})
			}
			if clients[i] == "" {
				clients[i] = n.Client
			}
			e := entry{who: i, hold: holds(n), node: SessionNode{Path: q.Path, Node: n.Name, Parent: n.Parent, Since: n.Since}}
			entries = append(entries, e)
			if !e.hold && !n.Since.IsZero() && (oldest[i].IsZero() || n.Since.Before(oldest[i])) {
				oldest[i] = n.Since
			}
		}
		buf = queueWaits(q, buf, func(w, h int) {
			from = append(from, index[q.Nodes[w].Session])
			to = append(to, index[q.Nodes[h].Session])
		})
	}
	n := len(ids)
	list := make([]SessionInfo, n)
	for i := range list {
		list[i].Session, list[i].Client = ids[i], clients[i]
	}
	// Holds and waits carved out of two arrays, in path and sequence
	// order (the order of the queues and their nodes).
	nh, nw := make([]int32, n), make([]int32, n)
	holdsN := 0
	for _, e := range entries {
		if e.hold {
			nh[e.who]++
			holdsN++
		} else {
			nw[e.who]++
		}
	}
	holdArr := make([]SessionNode, 0, holdsN)
	waitArr := make([]SessionNode, 0, len(entries)-holdsN)
	for i := range list {
		holdArr = holdArr[:len(holdArr)+int(nh[i])]
		list[i].Holds = holdArr[len(holdArr)-int(nh[i]) : len(holdArr)-int(nh[i]) : len(holdArr)]
		waitArr = waitArr[:len(waitArr)+int(nw[i])]
		list[i].Waits = waitArr[len(waitArr)-int(nw[i]) : len(waitArr)-int(nw[i]) : len(waitArr)]
	}
	for _, e := range entries {
		if e.hold {
			list[e.who].Holds = append(list[e.who].Holds, e.node)
		} else {
			list[e.who].Waits = append(list[e.who].Waits, e.node)
		}
	}
	// The graph, in compressed rows, each row sorted and without repeats.
	off := make([]int32, n+1)
	for _, a := range from {
		off[a+1]++
	}
	for i := range n {
		off[i+1] += off[i]
	}
	adj := make([]int32, len(from))
	fill := slices.Clone(off[:n])
	for k, a := range from {
		adj[fill[a]] = to[k]
		fill[a]++
	}
	waitsFor := make([]int64, 0, len(from))
	indeg := make([]int32, n)
	cut := int32(0)
	for a := range n {
		row := adj[off[a]:off[a+1]]
		slices.Sort(row)
		row = slices.Compact(row)
		start := len(waitsFor)
		for _, b := range row {
			waitsFor = append(waitsFor, ids[b])
			if int(b) != a {
				indeg[b]++
			}
		}
		list[a].WaitsFor = waitsFor[start:len(waitsFor):len(waitsFor)]
		slices.Sort(list[a].WaitsFor)
		// Self-waits are not blocking anyone else: out of the rows.
		row = slices.DeleteFunc(row, func(b int32) bool { return int(b) == a })
		copy(adj[cut:], row)
		off[a] = cut
		cut += int32(len(row))
	}
	off[n] = cut
	for i := range list {
		list[i].BlocksDirect = int(indeg[i])
	}
	blocked(list, off, adj[:cut], oldest, snap.At)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int {
		a, b := &list[x], &list[y]
		switch {
		case a.Blocks != b.Blocks:
			return b.Blocks - a.Blocks
		case a.BlocksDirect != b.BlocksDirect:
			return b.BlocksDirect - a.BlocksDirect
		case a.OldestWait != b.OldestWait:
			return cmpInt64(int64(b.OldestWait), int64(a.OldestWait))
		}
		return cmpInt64(a.Session, b.Session)
	})
	sorted := make([]SessionInfo, n)
	for i, o := range order {
		sorted[i] = list[o]
	}
	return &Sessions{At: snap.At, List: sorted, Deadlocks: snap.Deadlocks}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// blocked fills Blocks and OldestWait from the graph (waiting session ->
// sessions waited for, in compressed rows off/adj, no self-waits): over its
// components (sessions in a cycle block each other), a component with one
// component waiting for it inherits that one's count plus its size;
// others count their waiters breadth-first. A chain of 10,000 costs
// 10,000 steps, not 50 million.
func blocked(list []SessionInfo, off, adj []int32, oldest []time.Time, now time.Time) {
	n := len(list)
	comp, count := components(n, func(v int) []int32 { return adj[off[v]:off[v+1]] })
	size := make([]int32, count)
	own := make([]time.Time, count) // the members' oldest wait
	for v, c := range comp {
		size[c]++
		own[c] = earlier(own[c], oldest[v])
	}
	// The distinct components waiting for each component, compressed.
	poff := make([]int32, count+1)
	for v := range n {
		for _, u := range adj[off[v]:off[v+1]] {
			if comp[u] != comp[v] {
				poff[comp[u]+1]++
			}
		}
	}
	for c := range count {
		poff[c+1] += poff[c]
	}
	padj := make([]int32, poff[count])
	fill := slices.Clone(poff[:count])
	for v := range n {
		for _, u := range adj[off[v]:off[v+1]] {
			if cu, cv := comp[u], comp[v]; cu != cv {
				padj[fill[cu]] = cv
				fill[cu]++
			}
		}
	}
	preds := func(c int32) []int32 { return padj[poff[c]:poff[c+1]] }
	upCount := make([]int, count)
	upOldest := make([]time.Time, count)
	stamp := make([]int32, count)
	var queue []int32
	// A component's waiters are numbered after it: walk backwards so
	// that they are done first.
	for c := int32(count) - 1; c >= 0; c-- {
		queue = queue[:0]
		for _, p := range preds(c) {
			if stamp[p] != c+1 {
				stamp[p] = c + 1
				queue = append(queue, p)
			}
		}
		switch len(queue) {
		case 0:
		case 1:
			p := queue[0]
			upCount[c] = int(size[p]) + upCount[p]
			upOldest[c] = earlier(own[p], upOldest[p])
		default:
			for len(queue) > 0 {
				p := queue[0]
				queue = queue[1:]
				upCount[c] += int(size[p])
				upOldest[c] = earlier(upOldest[c], own[p])
				for _, pp := range preds(p) {
					if stamp[pp] != c+1 {
						stamp[pp] = c + 1
						queue = append(queue, pp)
					}
				}
			}
		}
	}
	var members map[int32][]int // of components of two or more, rare
	for v, c := range comp {
		if size[c] > 1 {
			if members == nil {
				members = map[int32][]int{}
			}
			members[c] = append(members[c], v)
		}
	}
	for v, c := range comp {
		list[v].Blocks = upCount[c] + int(size[c]) - 1
		o := upOldest[c]
		for _, u := range members[c] {
			if u != v {
				o = earlier(o, oldest[u])
			}
		}
		if !o.IsZero() && list[v].Blocks > 0 {
			list[v].OldestWait = max(now.Sub(o), 0)
		}
	}
}

// earlier is the earlier of two times, a zero time counting as unknown.
func earlier(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}
