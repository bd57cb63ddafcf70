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
// The change shape (changeShaped) is lockops.Queue.Change's, without a
// server view: one recipe's mutex nodes, each believing what its role
// says. In it no warning but stale can arise (no split holders, no mixed
// recipes, no watch cycle by the recipes' rules; missing watches and
// herds need the servers' watches), so only the nodes change.
func buildQueueChanged(qm *queueModel, stale bool, staleSince time.Time) (Queue, bool) {
	prev := &qm.built
	if !qm.hasBuilt || !qm.builtChanges || qm.relisted || qm.lone != nil || len(qm.order.Other) > 0 ||
		prev.State != PathPresent || qm.state != PathPresent {
		return Queue{}, false
	}
	changed := qm.changed
	slices.SortFunc(changed, func(a, b lockops.Node) int {
		if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	changed = slices.CompactFunc(changed, func(a, b lockops.Node) bool { return a.Name == b.Name })

	q := Queue{
		Path:     qm.path,
		State:    qm.state,
		Err:      qm.err,
		Type:     prev.Type,
		Handoffs: slices.Clone(qm.handoffs),
		Depth:    slices.Clone(qm.depth),
		ListedAt: qm.listedAt,
		Nodes:    make([]Node, len(qm.order.Entries)),
	}
	before := func(n *Node, e *lockops.Entry) bool {
		return n.Seq < e.Seq || n.Seq == e.Seq && n.Name < e.Name
	}
	j, c := 0, 0 // in prev.Nodes, in changed
	for i := range qm.order.Entries {
		e := &qm.order.Entries[i]
		for j < len(prev.Nodes) && before(&prev.Nodes[j], e) {
			j++
		}
		for c < len(changed) && (changed[c].Seq < e.Seq || changed[c].Seq == e.Seq && changed[c].Name < e.Name) {
			c++
		}
		if c < len(changed) && changed[c].Name == e.Name || j == len(prev.Nodes) || prev.Nodes[j].Name != e.Name {
			be := believedEntry(qm, *e, qm.nodes[e.Name], nil)
			if be.Believes != be.Role || be.Watches != be.Predecessor {
				return Queue{}, false // it leaves the shape
			}
			q.Nodes[i] = nodeOf(qm, be, qm.nodes[e.Name], nil)
			continue
		}
		q.Nodes[i] = prev.Nodes[j]
	}
	if stale && qm.seen {
		q.Warnings = append(q.Warnings, staleWarning(staleSince))
	}
	q.Type = electionType(&q, qm)
	if sw, ok := selfWaitWarning(&q); ok {
		q.Warnings = append(q.Warnings, sw)
	}
	return q, true
}

// changeShaped: q, just built in full from qm without a server view, is
// of the shape buildQueueChanged can update: lockops.Queue.Change's
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
