package zkview

import (
	"slices"
	"sort"
	"time"

	"github.com/zklock/zklock/lockops"
)

// buildQueueChanged builds qm's Queue from the one built last, when only
// the changes applied since (applyChange, which names the entries it
// touched in qm.changed) separate them: every other node is copied as it
// was. ok is false when the queue must be built in full (buildQueue):
// the last build was not of the change shape, a listing was merged since,
// or a touched node would make it leave the shape.
//
// The change shape (changeShaped) is lockops.Ordering.Change's, without a
// server view: one recipe's mutex nodes, each believing what its role
// says. In it no warning but stale and self-wait can arise (no split
// holders, no mixed recipes, no watch cycle by the recipes' rules;
// missing watches and herds need the servers' watches), so only the nodes
// and those two change.
func buildQueueChanged(qm *queueModel, stale bool, staleSince time.Time) (Queue, bool) {
	prev := &qm.built
	if !qm.hasBuilt || !qm.builtChanges || qm.relisted || qm.lone != nil || len(qm.order.Other) > 0 ||
		prev.State != PathPresent || qm.state != PathPresent {
		return Queue{}, false
	}
	changed := qm.changed
	slices.SortFunc(changed, lockops.ChangeOrder)
	changed = slices.CompactFunc(changed, func(a, b lockops.ParsedName) bool { return a.Name == b.Name })

	q := Queue{
		Path:     qm.path,
		State:    qm.state,
		Err:      qm.err,
		Type:     prev.Type,
		Handoffs: slices.Clone(qm.handoffs),
		Depth:    slices.Clone(qm.depth),
		ListedAt: qm.listedAt,
	}
	fresh := func(e *lockops.Entry) (Node, bool) {
		be := believedEntry(qm, *e, qm.nodes[e.Name], nil)
		if be.Believes != be.Role || be.Watches != be.Predecessor {
			return Node{}, false // it leaves the shape
		}
		return nodeOf(qm, be, qm.nodes[e.Name], nil), true
	}
	entries := qm.order.Entries
	prevN := prev.Nodes.Len()
	if m := len(entries); len(changed) == 0 && len(qm.removed) > 0 && m > 0 && m < prevN &&
		prev.Nodes.At(m-1).Name == entries[m-1].Name {
		// Nodes left from the tail, nothing else (the entries are prev's
		// first m, in order): prev's nodes up to there.
		q.Nodes = prev.Nodes.prefix(m)
		q.Warnings = selfWaitLeft(prev, &q, m)
	} else if n := prevN; len(qm.removed) == 0 && len(entries) > n && n > 0 &&
		(len(changed) == 0 || changed[0].Seq > prev.Nodes.At(n-1).Seq) {
		// Nodes joined at the tail, nothing else: the new nodes go after
		// the last build's, in its last chunk while it has room (prev's
		// view ends before them, and the next build derives from this
		// one, never again from prev), so a join costs the joiners.
		b := prev.Nodes.builderForTail()
		for i := n; i < len(entries); i++ {
			nd, ok := fresh(&entries[i])
			if !ok {
				return Queue{}, false
			}
			b.add(nd)
		}
		q.Nodes = b.done()
		q.Warnings = selfWaitJoined(prev, &q, n)
	} else {
		nodes, ok := mergeChanged(prev.Nodes, entries, changed, fresh)
		if !ok {
			return Queue{}, false
		}
		q.Nodes = nodes
		if ws, ok := selfWaitMerged(prev, &q, qm.removed); ok {
			q.Warnings = ws
		} else if sw, ok := selfWaitWarning(&q); ok {
			q.Warnings = append(q.Warnings, sw)
		}
	}
	qm.removed = qm.removed[:0]
	if stale && qm.seen {
		q.Warnings = append(q.Warnings, staleWarning(staleSince))
	}
	q.Type = electionType(&q, qm)
	return q, true
}

// selfWaitJoined is q's warnings (self-wait at most: see
// buildQueueChanged) when q is prev with nodes joined from index n: in
// the change shape every waiter waits behind the one holder, so prev's
// self-waiting nodes still are, and a joiner is when the holder's session
// owns it too.
func selfWaitJoined(prev *Queue, q *Queue, n int) []Warning {
	return selfWaitOn(q, appendSelfWaiters(selfWaitNodes(prev), q, n))
}

// selfWaitNodes are the nodes q's self-wait warning names, in queue
// order (nil when it has none). The change builds append to this list in
// its array when it has room, as to the nodes themselves
// (buildQueueChanged): the list q shows ends before that room.
func selfWaitNodes(q *Queue) []string {
	for _, w := range q.Warnings {
		if w.Code == WarnSelfWait {
			return w.Nodes
		}
	}
	return nil
}

// appendSelfWaiters appends to nodes the names of q's nodes from index
// from on that belong to its holder's session (in the change shape, the
// one node they all wait behind is the first).
func appendSelfWaiters(nodes []string, q *Queue, from int) []string {
	if h := q.Nodes.At(0); h.Session != 0 {
		for _, a := range q.Nodes.From(from) {
			if a.Session == h.Session {
				nodes = append(nodes, a.Name)
			}
		}
	}
	return nodes
}

// selfWaitOn is q's warnings when the self-waiting nodes of q, a queue
// in the change shape, are nodes.
func selfWaitOn(q *Queue, nodes []string) []Warning {
	if len(nodes) == 0 {
		return nil
	}
	// The first of them is near the head in the usual case.
	i := q.Nodes.Index(func(x *Node) bool { return x.Name == nodes[0] })
	if i < 0 { // cannot happen in the change shape: read the queue
		if w, ok := selfWaitWarning(q); ok {
			return []Warning{w}
		}
		return nil
	}
	return []Warning{selfWait(nodes, selfWaitFirst(q.Nodes.At(i), q.Nodes.At(0)))}
}

// selfWaitLeft is q's warnings (self-wait at most) when q is prev with
// only its first m nodes: leaving cannot make a node wait behind its own
// session, so prev's self-waiting nodes are, but for those that left.
// The warning names its nodes in queue order: those that left are last.
func selfWaitLeft(prev *Queue, q *Queue, m int) []Warning {
	nodes := selfWaitNodes(prev)
	if len(nodes) == 0 {
		return nil
	}
	left := make(map[string]bool, prev.Nodes.Len()-m)
	for _, n := range prev.Nodes.From(m) {
		left[n.Name] = true
	}
	k := len(nodes)
	for k > 0 && left[nodes[k-1]] {
		k--
	}
	return selfWaitOn(q, nodes[:k:k]) // capped: a later join must not write over what prev names
}

// selfWaitMerged is q's warnings (self-wait at most) when q is prev
// changed by mergeChanged, worked out from prev's when the holder stayed
// and the nodes that joined all come after prev's last (as the servers'
// sequence numbers make them): prev's self-waiting nodes but those that
// left, then the joiners of the holder's session. ok is false when q
// must be read instead (selfWaitWarning).
func selfWaitMerged(prev, q *Queue, removed []string) (ws []Warning, ok bool) {
	pn, qn := prev.Nodes.Len(), q.Nodes.Len()
	if pn == 0 || qn == 0 {
		return nil, false
	}
	h, last := q.Nodes.At(0), prev.Nodes.At(pn-1)
	if ph := prev.Nodes.At(0); ph.Name != h.Name || ph.Session != h.Session {
		return nil, false
	}
	nodes := selfWaitNodes(prev)
	// Those that left: found by sequence in prev's nodes and in the
	// warning's list (both in queue order), without reading either.
	left, drop := 0, []int(nil)
	for _, name := range removed {
		r, ok := lockops.ParseName(name)
		if !ok {
			return nil, false
		}
		if i := prev.Nodes.search(r.Seq); i < pn && prev.Nodes.At(i).Name == name {
			left++
		}
		if i := searchName(nodes, r.Seq); i < len(nodes) && nodes[i] == name {
			drop = append(drop, i)
		}
	}
	// Those that joined: after prev's last node, and all of them there.
	from := q.Nodes.search(last.Seq + 1)
	if from < qn && !lockops.SeqLess(last.Seq, q.Nodes.At(from).Seq) || pn-left+(qn-from) != qn {
		return nil, false
	}
	slices.Sort(drop)
	drop = slices.Compact(drop)
	if len(drop) > 0 {
		if drop[len(drop)-1] == len(drop)-1 {
			nodes = nodes[len(drop):] // the oldest waiters left: the usual case
		} else {
			kept := make([]string, 0, len(nodes)-len(drop))
			for i, name := range nodes {
				if _, gone := slices.BinarySearch(drop, i); !gone {
					kept = append(kept, name)
				}
			}
			nodes = kept
		}
	}
	return selfWaitOn(q, appendSelfWaiters(nodes, q, from)), true
}

// searchName is the first of names, lock node names in sequence order,
// whose sequence is not before seq.
func searchName(names []string, seq int32) int {
	return sort.Search(len(names), func(i int) bool {
		n, _ := lockops.ParseName(names[i])
		return !lockops.SeqLess(n.Seq, seq)
	})
}

// changeShaped: q, just built in full from qm without a server view, is
// of the shape buildQueueChanged can update: lockops.Ordering.Change's
// (one recipe's mutex nodes, nothing else among the children), every
// node believing what its role says, and no warning but stale or
// self-wait.
func changeShaped(qm *queueModel, q *Queue) bool {
	qm.relisted = false
	if q.State != PathPresent || q.Nodes.Len() == 0 || len(q.Other) > 0 || qm.lone != nil {
		return false
	}
	for _, w := range q.Warnings {
		if w.Code != WarnStale && w.Code != WarnSelfWait {
			return false
		}
	}
	recipe := q.Nodes.At(0).Recipe
	for _, n := range q.Nodes.All() {
		if n.Recipe != recipe || n.Kind != lockops.KindMutex || n.Seq < 0 || n.Believes != n.Role || n.Watches != n.Predecessor {
			return false
		}
	}
	for i := range qm.order.Entries {
		if qm.order.Entries[i].Latch {
			return false
		}
	}
	return true
}
