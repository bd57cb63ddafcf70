// The sessions table, built on demand: every session with what it holds
// and waits on, what it blocks, root blocker first.

package sessions

import (
	"slices"
	"time"

	"github.com/zklock/zklock/model"
)

// SessionsOf builds the sessions view of snap: every session owning a node
// in its queues, what it holds and waits on, how many sessions it blocks,
// and snap.Deadlocks. It reads only snap and may be called on any
// snapshot; a consumer builds it when it shows it, once per snapshot (a
// few milliseconds for 10,000 sessions).
func SessionsOf(snap *model.Snapshot) *Sessions {
	t := tallySessions(snap)
	list := t.infos()
	off, adj := t.graph(list)
	blocked(list, off, adj, t.oldest, snap.At)
	return &Sessions{At: snap.At, List: byBlocking(list), Deadlocks: snap.Deadlocks}
}

// sessionTally is SessionsOf's first pass over a snapshot: the sessions
// numbered in order of appearance, their nodes, and their waits.
type sessionTally struct {
	index   map[int64]int32
	entries []tallyEntry
	ids     []int64
	clients []string
	health  []model.Health
	oldest  []time.Time // per session: its oldest wait's start
	from    []int32     // the waits, as session numbers
	to      []int32
}

// tallyEntry is one node of a session (who) that holds or waits.
type tallyEntry struct {
	who  int32
	hold bool
	node SessionNode
}

// tallySessions numbers the sessions of snap, lists their nodes and their
// waits.
func tallySessions(snap *model.Snapshot) *sessionTally {
	total := 0
	for _, q := range snap.Queues.All() {
		total += q.Nodes.Len()
	}
	t := &sessionTally{
		index:   make(map[int64]int32, total),
		entries: make([]tallyEntry, 0, total),
		ids:     make([]int64, 0, total),
		clients: make([]string, 0, total),
		oldest:  make([]time.Time, 0, total),
	}
	var buf []*model.Node
	for _, q := range snap.Queues.All() {
		for _, n := range q.Nodes.All() {
			if n.Session != 0 {
				t.add(q, n)
			}
		}
		buf = model.QueueWaits(q, buf, func(_ int, a, b *model.Node) {
			t.from = append(t.from, t.index[a.Session])
			t.to = append(t.to, t.index[b.Session])
		})
	}
	return t
}

// add tallies n of q, numbering its session when it is new.
func (t *sessionTally) add(q *model.Queue, n *model.Node) {
	i, ok := t.index[n.Session]
	if !ok {
		i = int32(len(t.ids))
		t.index[n.Session] = i
		t.ids = append(t.ids, n.Session)
		t.clients = append(t.clients, "")
		t.health = append(t.health, model.Health{})
		t.oldest = append(t.oldest, time.Time{})
	}
	if t.clients[i] == "" {
		t.clients[i] = n.Client()
	}
	if !t.health[i].Known() {
		t.health[i] = n.Health()
	}
	e := tallyEntry{who: i, hold: model.Holds(n), node: sessionNode(q, n)}
	t.entries = append(t.entries, e)
	if !e.hold && !n.Since().IsZero() && (t.oldest[i].IsZero() || n.Since().Before(t.oldest[i])) {
		t.oldest[i] = n.Since()
	}
}

// infos is one SessionInfo a session, with its holds and waits carved out
// of two arrays, in path and sequence order (the order of the queues and
// their nodes).
func (t *sessionTally) infos() []SessionInfo {
	n := len(t.ids)
	list := make([]SessionInfo, n)
	for i := range list {
		list[i].Session, list[i].Client, list[i].Health = t.ids[i], t.clients[i], t.health[i]
	}
	for _, e := range t.entries {
		if list[e.who].Identity == "" {
			list[e.who].Identity = e.node.Identity
		}
	}
	nh, nw := make([]int32, n), make([]int32, n)
	holdsN := 0
	for _, e := range t.entries {
		if e.hold {
			nh[e.who]++
			holdsN++
		} else {
			nw[e.who]++
		}
	}
	holdArr := make([]SessionNode, 0, holdsN)
	waitArr := make([]SessionNode, 0, len(t.entries)-holdsN)
	for i := range list {
		holdArr = holdArr[:len(holdArr)+int(nh[i])]
		list[i].Holds = holdArr[len(holdArr)-int(nh[i]) : len(holdArr)-int(nh[i]) : len(holdArr)]
		waitArr = waitArr[:len(waitArr)+int(nw[i])]
		list[i].Waits = waitArr[len(waitArr)-int(nw[i]) : len(waitArr)-int(nw[i]) : len(waitArr)]
	}
	for _, e := range t.entries {
		if e.hold {
			list[e.who].Holds = append(list[e.who].Holds, e.node)
		} else {
			list[e.who].Waits = append(list[e.who].Waits, e.node)
		}
	}
	return list
}

// graph is the wait-for graph in compressed rows (off, adj), each row
// sorted and without repeats or self-waits; it fills list's WaitsFor and
// BlocksDirect.
func (t *sessionTally) graph(list []SessionInfo) (off, adj []int32) {
	n, from := len(t.ids), t.from
	off = make([]int32, n+1)
	for _, a := range from {
		off[a+1]++
	}
	for i := range n {
		off[i+1] += off[i]
	}
	adj = make([]int32, len(from))
	fill := slices.Clone(off[:n])
	for k, a := range from {
		adj[fill[a]] = t.to[k]
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
			waitsFor = append(waitsFor, t.ids[b])
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
	return off, adj[:cut]
}

// byBlocking is list sorted root blocker first: by sessions blocked, then
// blocked directly, then the oldest wait, then session id.
func byBlocking(list []SessionInfo) []SessionInfo {
	order := make([]int32, len(list))
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
	sorted := make([]SessionInfo, len(list))
	for i, o := range order {
		sorted[i] = list[o]
	}
	return sorted
}

// sessionNode is n of q in the sessions view, dated as `ls` dates it.
func sessionNode(q *model.Queue, n *model.Node) SessionNode {
	start, b := n.Tenure()
	return SessionNode{Path: q.Path, Node: n.Name, Parent: n.Parent(), Kind: n.KindName(),
		Admission: q.Type == model.TypeSemaphore && !n.Lease, Since: start, SinceBound: b, Identity: n.Identity()}
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
	poff, padj := componentWaiters(comp, count, off, adj)
	upCount, upOldest := upstream(size, own, poff, padj)
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

// componentWaiters are the components waiting for each component
// (comp numbers the sessions' components, count of them), in compressed
// rows (poff, padj) over the sessions' graph off/adj.
func componentWaiters(comp []int32, count int, off, adj []int32) (poff, padj []int32) {
	poff = make([]int32, count+1)
	for v := range len(comp) {
		for _, u := range adj[off[v]:off[v+1]] {
			if comp[u] != comp[v] {
				poff[comp[u]+1]++
			}
		}
	}
	for c := range count {
		poff[c+1] += poff[c]
	}
	padj = make([]int32, poff[count])
	fill := slices.Clone(poff[:count])
	for v := range len(comp) {
		for _, u := range adj[off[v]:off[v+1]] {
			if cu, cv := comp[u], comp[v]; cu != cv {
				padj[fill[cu]] = cv
				fill[cu]++
			}
		}
	}
	return poff, padj
}

// upstream counts, for each component, the sessions of the components
// that wait for it, directly or not, and their oldest wait (size and own
// per component; its waiters in poff/padj).
func upstream(size []int32, own []time.Time, poff, padj []int32) ([]int, []time.Time) {
	count := len(size)
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
	return upCount, upOldest
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
