package zkview

import (
	"cmp"
	"slices"
	"time"

	"zklock/lockops"
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
	slices.SortFunc(changed, func(a, b lockops.ParsedName) int {
		if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
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
	if n, m := len(prev.Nodes), len(entries); len(changed) == 0 && qm.removedSince > 0 && m > 0 && m < n &&
		prev.Nodes[m-1].Name == entries[m-1].Name {
		// Nodes left from the tail, nothing else (the entries are prev's
		// first m, in order): prev's nodes up to there, its capacity cut
		// so that a later join does not write over what prev shows.
		q.Nodes = prev.Nodes[:m:m]
		// Leaving cannot make a node wait behind its own session; a
		// self-wait prev had is counted again (rare: read it all).
		if slices.ContainsFunc(prev.Warnings, func(w Warning) bool { return w.Code == WarnSelfWait }) {
			if sw, ok := selfWaitWarning(&q); ok {
				q.Warnings = append(q.Warnings, sw)
			}
		}
	} else if n := len(prev.Nodes); qm.removedSince == 0 && len(entries) > n && n > 0 &&
		(len(changed) == 0 || changed[0].Seq > prev.Nodes[n-1].Seq) {
		// Nodes joined at the tail, nothing else: the new nodes go after
		// the last build's, in the same array when it has room (prev's
		// view ends before them, and the next build derives from this
		// one, never again from prev), so a join costs the joiners.
		q.Nodes = prev.Nodes
		for i := n; i < len(entries); i++ {
			nd, ok := fresh(&entries[i])
			if !ok {
				return Queue{}, false
			}
			q.Nodes = append(q.Nodes, nd)
		}
		q.Warnings = selfWaitJoined(prev, &q, n)
	} else {
		q.Nodes = make([]Node, len(entries))
		before := func(n *Node, e *lockops.Entry) bool {
			return n.Seq < e.Seq || n.Seq == e.Seq && n.Name < e.Name
		}
		j, c := 0, 0 // in prev.Nodes, in changed
		for i := range entries {
			e := &entries[i]
			for j < len(prev.Nodes) && before(&prev.Nodes[j], e) {
				j++
			}
			for c < len(changed) && (changed[c].Seq < e.Seq || changed[c].Seq == e.Seq && changed[c].Name < e.Name) {
				c++
			}
			if c < len(changed) && changed[c].Name == e.Name || j == len(prev.Nodes) || prev.Nodes[j].Name != e.Name {
				nd, ok := fresh(e)
				if !ok {
					return Queue{}, false
				}
				q.Nodes[i] = nd
				continue
			}
			q.Nodes[i] = prev.Nodes[j]
		}
		if sw, ok := selfWaitWarning(&q); ok {
			q.Warnings = append(q.Warnings, sw)
		}
	}
	qm.removedSince = 0
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
	var nodes []string
	first := ""
	for _, w := range prev.Warnings {
		if w.Code == WarnSelfWait {
			nodes = slices.Clone(w.Nodes)
		}
	}
	if h := &q.Nodes[0]; h.Session != 0 {
		for i := n; i < len(q.Nodes); i++ {
			if a := &q.Nodes[i]; a.Session == h.Session {
				if len(nodes) == 0 {
					first = selfWaitFirst(a, h)
				}
				nodes = append(nodes, a.Name)
			}
		}
	}
	if len(nodes) == 0 {
		return nil
	}
	if first == "" {
		i := slices.IndexFunc(q.Nodes, func(x Node) bool { return x.Name == nodes[0] })
		first = selfWaitFirst(&q.Nodes[i], &q.Nodes[0])
	}
	return []Warning{selfWait(nodes, first)}
}

// changeShaped: q, just built in full from qm without a server view, is
// of the shape buildQueueChanged can update: lockops.Ordering.Change's
// (one recipe's mutex nodes, nothing else among the children), every
// node believing what its role says, and no warning but stale or
// self-wait.
func changeShaped(qm *queueModel, q *Queue) bool {
	qm.relisted = false
	if q.State != PathPresent || len(q.Nodes) == 0 || len(q.Other) > 0 || qm.lone != nil {
		return false
	}
	for _, w := range q.Warnings {
		if w.Code != WarnStale && w.Code != WarnSelfWait {
			return false
		}
	}
	recipe := q.Nodes[0].Recipe
	for i := range q.Nodes {
		n := &q.Nodes[i]
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
