// The wait-for graph over sessions, kept by the Watcher one changed queue
// at a time, its cycles and their age.

package sessions

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zklock/zklock/model"
)

// Graph is the wait-for graph kept across snapshots, one queue at a
// time: a queue whose Nodes did not change since the last snapshot (the
// Watcher reuses a queue's built Queue until it changes) costs a pointer
// comparison, a changed one the length of that queue. Cycles can only
// pass through sessions that both wait and are waited on, so only those
// are searched at each snapshot. The zero value is ready to use.
type Graph struct {
	parts map[string]*graphPart     // by path
	late  map[*graphPart]struct{}   // long queues left unread (graphLongQueue)
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
	scratch   []*model.Node
	// spare: a long queue's waits before its last reading, the room of
	// the next (pairsRoom); nil when none.
	spare []pairRec

	// version counts the changes of waits (applyPair); described, the
	// Deadlocks the cycles describedFound were last described as at
	// version describedAt, so that a publish that changed no wait does
	// not read every wait of their queues again.
	version        uint64
	described      []model.Deadlock
	describedFound [][]int64
	describedAt    uint64
	// found: the cycles found at version foundAt (findCycles), valid
	// when foundOK: a publish that changed no wait does not look for
	// them again.
	found   [][]int64
	foundAt uint64
	foundOK bool
}

// A queue of graphLongQueue nodes or more is read into the graph at most
// once every graphLongEvery: reading its waits costs its length, and a
// queue that long changes at every event of a busy fleet, so under a
// stream of changes it would cost the graph a queue's length per change
// (at 200 changes a second in a 10,000-node queue, two million waits a
// second). Its cycles are judged at most graphLongEvery late, far below
// DeadlockAfter, the time a cycle must stand to be called a deadlock;
// after its last change it is read within graphLongEvery.
const (
	graphLongQueue = 2048
	graphLongEvery = 200 * time.Millisecond
)

func (g *Graph) init() {
	if g.parts == nil {
		g.parts = map[string]*graphPart{}
		g.late = map[*graphPart]struct{}{}
		g.out = map[int64]map[int64]int32{}
		g.waitsOut = map[int64]int32{}
		g.waitedOn = map[int64]int32{}
		g.both = map[int64]bool{}
		g.waitIn = map[int64]map[*graphPart]int32{}
	}
}

// Update brings the graph to queues (every watched queue of a snapshot
// taken at now): changed queues are re-read, gone ones dropped. behind is
// when the first long queue it left unread is due (graphLongQueue), zero
// when it left none.
func (g *Graph) Update(queues model.Queues, now time.Time) (behind time.Time) {
	g.init()
	g.gen++
	for _, q := range queues.All() {
		if p := g.take(q, now); p != nil {
			p.gen = g.gen
		}
	}
	for path, p := range g.parts {
		if p.gen != g.gen {
			g.drop(path, p)
		}
	}
	return g.behind()
}

// UpdateChanged brings the graph to a snapshot that differs from the
// last one it was brought to only in the queues changed (new or
// rebuilt) and the paths removed: its cost is theirs, not the
// snapshot's. The long queues left unread that are due are read too;
// behind is as Update's. The queues must stay unchanged while the graph
// keeps them (a published snapshot's do).
func (g *Graph) UpdateChanged(changed []*model.Queue, removed []string, now time.Time) (behind time.Time) {
	g.init()
	for _, path := range removed {
		if p := g.parts[path]; p != nil {
			g.drop(path, p)
		}
	}
	for _, q := range changed {
		g.take(q, now)
	}
	for p := range g.late {
		if !now.Before(p.readAt.Add(graphLongEvery)) {
			g.take(p.pending, now)
		}
	}
	return g.behind()
}

// take brings the graph to q, the queue now at q.Path, and returns its
// part. A queue with no wait has none (most of a root's lock parents:
// empty, or a holder alone), unless it is long (graphLongQueue).
func (g *Graph) take(q *model.Queue, now time.Time) *graphPart {
	p := g.parts[q.Path]
	switch {
	case p != nil && p.same(q):
		if !p.nodes.Shares(q.Nodes) {
			g.version++ // the same waits, but what describes them (clients) may differ
		}
		p.nodes, p.pending = q.Nodes, nil
		delete(g.late, p)
	case p != nil && !g.fromNodes && q.Nodes.Len() >= graphLongQueue && now.Sub(p.readAt) < graphLongEvery:
		// A long queue read lately: left as it was read (its nodes
		// and waits together) until it is due.
		p.pending = q
		g.late[p] = struct{}{}
	case p != nil:
		g.rebuildPart(p, q, now)
		p.readAt, p.pending = now, nil
		delete(g.late, p)
	default:
		p = &graphPart{path: q.Path, nodes: q.Nodes, typ: q.Type, readAt: now}
		p.pairs, _ = g.readPairs(q, nil, now)
		g.apply(p, 1)
		g.parts[q.Path] = p
	}
	if len(p.pairs) == 0 && q.Nodes.Len() < graphLongQueue {
		g.drop(q.Path, p)
		return nil
	}
	return p
}

// drop takes the part of a queue no longer watched out of the graph.
func (g *Graph) drop(path string, p *graphPart) {
	g.apply(p, -1)
	delete(g.parts, path)
	delete(g.late, p)
}

// behind is when the first long queue left unread is due, zero when
// none is.
func (g *Graph) behind() (behind time.Time) {
	for p := range g.late {
		if due := p.readAt.Add(graphLongEvery); behind.IsZero() || due.Before(behind) {
			behind = due
		}
	}
	return behind
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

// cycles finds every cycle of the graph as it stands at now: the
// strongly connected components of the sessions that wait and are
// waited on, each covered by shortest cycles, and every session waiting for itself.
func (g *Graph) Cycles(now time.Time) []model.Deadlock {
	if len(g.both) == 0 {
		return nil
	}
	found := g.found
	if !g.foundOK || g.foundAt != g.version {
		found = g.findCycles()
		g.found, g.foundAt, g.foundOK = found, g.version, true
	}
	if len(found) == 0 {
		return nil
	}
	if g.described != nil && g.describedAt == g.version && slices.EqualFunc(found, g.describedFound, slices.Equal) {
		// The same cycles over the same waits: their waits and ages are
		// as described last time, only their state follows the clock.
		out := slices.Clone(g.described)
		for i := range out {
			out[i].State = cycleState(len(out[i].Sessions), out[i].Since, now)
		}
		sortDeadlocks(out)
		return out
	}
	out := g.describe(found, now)
	g.described, g.describedFound, g.describedAt = out, found, g.version
	return out
}

// findCycles finds the cycles of sessions of the graph as it stands (see
// Cycles), each a list of sessions, the lowest first.
func (g *Graph) findCycles() [][]int64 {
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
	return found
}

// cycleState is the state of a cycle over n sessions whose last wait
// began at since.
func cycleState(n int, since, now time.Time) string {
	switch {
	case n == 1:
		return model.CycleSelfWait
	case now.Sub(since) >= DeadlockAfter:
		return model.CycleDeadlock
	}
	return model.CycleYoung
}

// describe turns cycles of sessions into Deadlocks, with the oldest wait
// of each step, read from the parts.
func (g *Graph) describe(found [][]int64, now time.Time) []model.Deadlock {
	type step struct{ from, to int64 }
	want := map[step]*model.Wait{}
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
		// Waits in a row mostly share their step (a long queue's
		// waiters behind its one holder): it is looked up once a run,
		// not once a wait.
		var k step
		var cur *model.Wait
		wanted, looked := false, false
		for i := range p.pairs {
			r := &p.pairs[i]
			if rk := (step{r.waiter, r.holder}); !looked || rk != k {
				k, looked = rk, true
				cur, wanted = want[k]
			}
			if !wanted || (cur != nil && !r.seen.Before(cur.Since)) {
				continue
			}
			cur = &model.Wait{Session: r.waiter, Client: p.nodes.At(int(r.wi)).Client(), Path: path, Node: r.wnode,
				Holder: r.holder, HolderNode: r.hnode, Since: r.seen}
			want[k] = cur
		}
	}
	out := make([]model.Deadlock, 0, len(found))
	for _, c := range found {
		d := model.Deadlock{Sessions: c}
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
		d.State = cycleState(len(c), d.Since, now)
		out = append(out, d)
	}
	sortDeadlocks(out)
	return out
}

// sortDeadlocks puts deadlocks first, then young cycles, then self-waits;
// the oldest first within each.
func sortDeadlocks(ds []model.Deadlock) {
	rank := map[string]int{model.CycleDeadlock: 0, model.CycleYoung: 1, model.CycleSelfWait: 2}
	slices.SortStableFunc(ds, func(a, b model.Deadlock) int {
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
func FindDeadlocks(queues model.Queues, now time.Time) []model.Deadlock {
	g := Graph{fromNodes: true}
	g.Update(queues, now)
	return g.Cycles(now)
}

// JudgeAgain dates the cycles of next by what first showed: a wait seen
// in both snapshots on the same two nodes stood all the while (a node
// that waits or holds keeps that role until it goes), so a cycle whose
// every wait was in first is at least as old as first. It returns next's
// cycles so dated (Load then Load again DeadlockAfter later tells a
// deadlock from a young cycle without watching anything).
func JudgeAgain(first, next *model.Snapshot) []model.Deadlock {
	var g Graph
	g.Update(first.Queues, first.At)
	g.Update(next.Queues, next.At)
	return g.Cycles(next.At)
}

// YoungCycles says whether snap shows a cycle not yet judged a deadlock,
// and when the youngest would come of age.
func YoungCycles(snap *model.Snapshot) (bool, time.Time) {
	var due time.Time
	for _, d := range snap.Deadlocks {
		if d.State == model.CycleYoung {
			if t := d.Since.Add(DeadlockAfter); t.After(due) {
				due = t
			}
		}
	}
	return !due.IsZero(), due
}
