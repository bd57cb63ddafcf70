package queue

import (
	"slices"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// BuildChanged builds qm's Queue from the one built last (prev, nil when
// none is known), when only
// the changes applied since (applyChange, which names the entries it
// touched in qm.changed) separate them: every other node is copied as it
// was. ok is false when the queue must be built in full (buildQueue):
// the last build was not of the change shape, a listing was merged since,
// or a touched node would make it leave the shape.
//
// The change shape (changeShaped) is ordering.Ordering.Change's, without a
// server view: one recipe's mutex nodes, each believing what its role
// says. In it no warning but stale and self-wait can arise (no split
// holders, no mixed recipes, no watch cycle by the recipes' rules;
// missing watches and herds need the servers' watches), so only the nodes
// and those two change.
func BuildChanged(qm *Tracker, prev *model.Queue, stale bool, staleSince time.Time) (model.Queue, bool) {
	if prev == nil || !qm.HasBuilt || !qm.BuiltChanges || qm.is(flagRelisted) || qm.Lone() != nil || len(qm.Other()) > 0 ||
		prev.State != model.PathPresent || qm.State() != model.PathPresent {
		return model.Queue{}, false
	}
	changed := qm.Changed()
	slices.SortFunc(changed, ordering.ChangeOrder)
	changed = slices.CompactFunc(changed, func(a, b ordering.ParsedName) bool { return a.Name == b.Name })

	q := model.Queue{
		Path:  qm.Path,
		State: qm.State(),
		Type:  prev.Type,
		Depth: qm.publishedDepth(),
	}.WithRare(model.QueueRare{
		Err:      qm.errText(),
		Handoffs: slices.Clone(qm.handoffList()),
		Pzxid:    qm.Pzxid(),
	})
	q.SetListedAt(fromUnixNano(qm.listedAt))
	fresh := func(e *ordering.Entry) (model.Node, bool) {
		be := believedEntry(qm, *e, qm.Nodes.Of(e.Name), nil)
		if be.Believes != be.Role || be.Watches != be.Predecessor {
			return model.Node{}, false // it leaves the shape
		}
		return nodeOf(qm, be, qm.Nodes.Of(e.Name), nil), true
	}
	entries := qm.Order().Entries // once: a lone parent's is derived
	prevN := prev.Nodes.Len()
	if m := len(entries); len(changed) == 0 && len(qm.Removed()) > 0 && m > 0 && m < prevN &&
		prev.Nodes.At(m-1).Name == entries[m-1].Name {
		// Nodes left from the tail, nothing else (the entries are prev's
		// first m, in order): prev's nodes up to there.
		q.Nodes = prev.Nodes.Prefix(m)
		q.SetWarnings(model.SelfWaitLeft(prev, &q, m))
	} else if n := prevN; len(qm.Removed()) == 0 && len(entries) > n && n > 0 &&
		(len(changed) == 0 || changed[0].Seq > prev.Nodes.At(n-1).Seq) {
		// Nodes joined at the tail, nothing else: the new nodes go after
		// the last build's, in its last chunk while it has room (prev's
		// view ends before them, and the next build derives from this
		// one, never again from prev), so a join costs the joiners.
		joined := make([]model.Node, 0, len(entries)-n)
		for i := n; i < len(entries); i++ {
			nd, ok := fresh(&entries[i])
			if !ok {
				return model.Queue{}, false
			}
			joined = append(joined, nd)
		}
		q.Nodes = prev.Nodes.Extend(joined...)
		q.SetWarnings(model.SelfWaitJoined(prev, &q, n))
	} else {
		nodes, ok := model.MergeChanged(prev.Nodes, entries, changed, fresh)
		if !ok {
			return model.Queue{}, false
		}
		q.Nodes = nodes
		if ws, ok := model.SelfWaitMerged(prev, &q, qm.Removed()); ok {
			q.SetWarnings(ws)
		} else if sw, ok := model.SelfWaitWarning(&q); ok {
			q.SetWarnings(append(q.Warnings(), sw))
		}
	}
	if qm.rare != nil {
		qm.rare.removed = qm.rare.removed[:0]
	}
	if stale && qm.Seen {
		q.SetWarnings(append(q.Warnings(), staleWarning(staleSince)))
	}
	q.Type = electionType(&q, qm, ordering.Ordering{Entries: entries})
	DuplicateParticipants(&q) // elections only: O(nodes) on a change
	return q, true
}

// ChangeShaped: q, just built in full from qm without a server view, is
// of the shape buildQueueChanged can update: ordering.Ordering.Change's
// (one recipe's mutex nodes, nothing else among the children), every
// node believing what its role says, and no warning but stale or
// self-wait.
func ChangeShaped(qm *Tracker, q *model.Queue) bool {
	qm.set(flagRelisted, false)
	if q.State != model.PathPresent || q.Nodes.Len() == 0 || len(q.Other()) > 0 || qm.Lone() != nil {
		return false
	}
	for _, w := range q.Warnings() {
		if w.Code != model.WarnStale && w.Code != model.WarnSelfWait {
			return false
		}
	}
	recipe := q.Nodes.At(0).Recipe
	for _, n := range q.Nodes.All() {
		if n.Recipe != recipe || n.Kind != ordering.KindMutex || n.Seq < 0 || n.Believes != n.Role || n.Watches() != n.Predecessor() {
			return false
		}
	}
	return !slices.ContainsFunc(qm.Order().Entries, func(e ordering.Entry) bool { return e.Latch })
}
