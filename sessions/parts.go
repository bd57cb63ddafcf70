// What one queue brings to the wait-for graph over sessions (its waits,
// read again when the queue changes) and how they enter its counts.

package sessions

import (
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// graphPart is what one queue brings to the graph.
type graphPart struct {
	path  string
	nodes model.Nodes // the Queue.Nodes it was built from, or an equal one since
	typ   model.QueueType
	gen   uint64
	pairs []pairRec
	// readAt is when its waits were last read from its queue (see
	// graphLongQueue).
	readAt time.Time
	// pending is the queue a long queue's part was left unread at, to
	// read when it is due (Graph.late); nil when none.
	pending *model.Queue
}

// pairRec is one wait: a waiting node and a node it waits behind.
type pairRec struct {
	waiter, holder int64
	wnode, hnode   string
	seen           time.Time
	wi             int32 // index of the waiting node in nodes
	wseq           int32 // the waiting node's sequence (the walk's order)
	kept           bool  // found in the part's previous version (readPairs)
}

// same says whether q makes the same waits as the queue p was built from:
// at once for the chunks both share (the Watcher hands out a queue's
// Nodes unchanged until the queue changes), else node by node (a new
// server view rebuilds every queue, most of them unchanged).
func (p *graphPart) same(q *model.Queue) bool {
	if p.typ != q.Type {
		return false
	}
	return p.nodes.EqualBy(q.Nodes, func(x, y *model.Node) bool {
		return x.Name == y.Name && x.Session == y.Session && x.Believes == y.Believes && x.Kind == y.Kind
	})
}

// rebuildPart brings p, built from an older version of q, to q: the
// waits both have keep when they were first seen and cost nothing more;
// only the waits that went and came change the graph's counts.
func (g *Graph) rebuildPart(p *graphPart, q *model.Queue, now time.Time) {
	pairs, kept := g.readPairs(q, p, now)
	for i := range p.pairs {
		if !kept[i] {
			g.applyPair(p, &p.pairs[i], -1)
		}
	}
	for i := range pairs {
		if !pairs[i].kept {
			g.applyPair(p, &pairs[i], 1)
		}
	}
	if old := p.pairs; cap(old) >= graphLongQueue && cap(old) > cap(g.spare) {
		// A long queue's last waits: the room of its next reading
		// (readPairs), not garbage at every graphLongEvery.
		g.spare = old
	}
	p.nodes, p.typ, p.pairs = q.Nodes, q.Type, pairs
}

// readPairs reads the waits of q; a wait already in old (nil: none) is
// marked kept, keeps when it was first seen, and is marked in oldKept.
//
// Both lists follow their queue's node order, in which the nodes common
// to both keep their relative order, so a wait is looked up in old by
// walking it alongside, without a map, unless the order cannot be relied
// on (a semaphore's nodes, a plain ephemeral lock's nameless waiters).
func (g *Graph) readPairs(q *model.Queue, old *graphPart, now time.Time) (pairs []pairRec, oldKept []bool) {
	// About one wait a waiting node (a semaphore's waiters have one per
	// lease holder): sized once, not grown pair by pair. (Not reused from
	// the version before: held between snapshots, it would add its size
	// to every watched node's memory.)
	pairs = g.pairsRoom(q.Nodes.Len())
	var find func(a, b *model.Node) int // index in old.pairs, or -1
	if old != nil && len(old.pairs) > 0 {
		oldKept = make([]bool, len(old.pairs))
		find = old.walker(q.Type == model.TypeSemaphore || old.typ == model.TypeSemaphore)
	}
	g.scratch = model.QueueWaits(q, g.scratch, func(w int, a, b *model.Node) {
		r := pairRec{waiter: a.Session, holder: b.Session, wnode: a.Name, hnode: b.Name, wseq: a.Seq, wi: int32(w), seen: now}
		if k := -1; find != nil {
			if k = find(a, b); k >= 0 && !oldKept[k] {
				r.seen, r.kept, oldKept[k] = old.pairs[k].seen, true, true
			}
		}
		if !r.kept && g.fromNodes {
			r.seen = later(a.Since(), b.Since(), now)
		}
		pairs = append(pairs, r)
	})
	if len(pairs) == 0 {
		if cap(pairs) >= graphLongQueue && g.spare == nil {
			g.spare = pairs
		}
		pairs = nil // kept by the part: no room held for waits that are none
	}
	return pairs, oldKept
}

// longRoom: a long queue's waits are read into room for 1/longRoom
// more than it holds (pairsRoom).
const longRoom = 16

// pairsRoom is an empty list of waits with room for n: the spare one
// (the waits a long queue's part held before its last reading) when it
// is large enough, so that a long queue read again and again under a
// stream of changes reuses the room of its previous reading.
func (g *Graph) pairsRoom(n int) []pairRec {
	if n < graphLongQueue {
		return make([]pairRec, 0, n)
	}
	if cap(g.spare) < n {
		// A little more than this reading needs: a long queue's length
		// wanders by a few nodes between readings, and a room made to
		// the node would be too small for the next reading half the
		// time (a new list of the queue's length, not the spare reused).
		return make([]pairRec, 0, n+n/longRoom)
	}
	pairs := g.spare[:0]
	clear(pairs[:cap(pairs)]) // no node names of former waits kept alive
	g.spare = nil
	return pairs
}

// walker returns a lookup of waits in p: the index of the pair of
// waiting node a and node waited on b, or -1. Asked in node order (the
// order of a queue's Nodes), it walks p.pairs once; byMap looks up in a
// map instead, for an order that cannot be relied on.
func (p *graphPart) walker(byMap bool) func(a, b *model.Node) int {
	type key struct {
		waiter       int64
		wnode, hnode string
	}
	same := func(r *pairRec, a, b *model.Node) bool {
		return r.wnode == a.Name && r.hnode == b.Name && r.waiter == a.Session && r.holder == b.Session
	}
	if byMap {
		at := make(map[key]int, len(p.pairs))
		for i, r := range p.pairs {
			at[key{r.waiter, r.wnode, r.hnode}] = i
		}
		return func(a, b *model.Node) int {
			if i, ok := at[key{a.Session, a.Name, b.Name}]; ok && p.pairs[i].holder == b.Session {
				return i
			}
			return -1
		}
	}
	j := 0
	return func(a, b *model.Node) int {
		if a.Name == "" {
			// A waiter of the plain ephemeral lock owns no node: few of
			// them, looked for from the start.
			for i := range p.pairs {
				if same(&p.pairs[i], a, b) {
					return i
				}
			}
			return -1
		}
		for j < len(p.pairs) && (ordering.SeqLess(p.pairs[j].wseq, a.Seq) || p.pairs[j].wseq == a.Seq && p.pairs[j].wnode < a.Name) {
			j++
		}
		for i := j; i < len(p.pairs) && p.pairs[i].wnode == a.Name; i++ {
			if same(&p.pairs[i], a, b) {
				return i
			}
		}
		return -1
	}
}

// apply adds (sign 1) or removes (sign -1) a part's counts and edges.
func (g *Graph) apply(p *graphPart, sign int32) {
	for i := range p.pairs {
		g.applyPair(p, &p.pairs[i], sign)
	}
}

// applyPair adds (sign 1) or removes (sign -1) one wait of part p.
func (g *Graph) applyPair(p *graphPart, r *pairRec, sign int32) {
	g.version++
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

// bump adds d to m[k], deleting it at zero.
func bump[K comparable](m map[K]int32, k K, d int32) {
	if m[k] += d; m[k] == 0 {
		delete(m, k)
	}
}

func (g *Graph) checkBoth(s int64) {
	if g.waitsOut[s] > 0 && g.waitedOn[s] > 0 {
		g.both[s] = true
	} else {
		delete(g.both, s)
	}
}
