// What one read proves of a cycle's age: its parents' pzxid.

package sessions

import (
	"time"

	"github.com/zklock/zklock/model"
)

// ProveCycles dates the young cycles of a one-off read (snap) by what
// the read itself proves, and judges them again at snap.At. A node's
// role follows from which children its parent has (sequence order, and
// each recipe's rule over the names), so a parent whose pzxid (the zxid
// of its last child change) is no newer than the czxid of the cycle's
// newest node has had no child change since that node was made: each of
// its waits, and the hold it waits on, has stood since then. When every
// path of a cycle proves so, the cycle has stood since its newest node's
// creation (its ctime). A cycle whose paths do not all prove it (one kept
// no pzxid, or changed since) keeps the date the read gave it, and only
// a read later can tell (JudgeAgain).
//
// It returns a new slice when it re-dated any cycle, snap.Deadlocks
// itself otherwise; snap is not changed.
func ProveCycles(snap *model.Snapshot) []model.Deadlock {
	var out []model.Deadlock
	for i, d := range snap.Deadlocks {
		if d.State != model.CycleYoung {
			continue
		}
		since, ok := provenSince(snap, d)
		if !ok || !since.Before(d.Since) {
			continue
		}
		if out == nil {
			out = append([]model.Deadlock(nil), snap.Deadlocks...)
		}
		out[i].Since = since
		out[i].State = cycleState(len(d.Sessions), since, snap.At)
	}
	if out == nil {
		return snap.Deadlocks
	}
	sortDeadlocks(out)
	return out
}

// provenSince is the creation time of d's newest node when every path of
// d has had no child change since (see ProveCycles); false when a node of
// d is not in snap, or was not read, or a path kept no pzxid or changed
// since.
func provenSince(snap *model.Snapshot, d model.Deadlock) (time.Time, bool) {
	var newest *model.Node
	for _, w := range d.Waits {
		for _, name := range []string{w.Node, w.HolderNode} {
			n := nodeNamed(snap.Queue(w.Path), name)
			if n == nil || n.Czxid == 0 || n.Ctime().IsZero() {
				return time.Time{}, false
			}
			if newest == nil || n.Czxid > newest.Czxid {
				newest = n
			}
		}
	}
	if newest == nil || len(d.Paths) == 0 {
		return time.Time{}, false
	}
	for _, p := range d.Paths {
		q := snap.Queue(p)
		if q == nil || q.Pzxid() == 0 || q.Pzxid() > newest.Czxid {
			return time.Time{}, false
		}
	}
	return newest.Ctime(), true
}

// nodeNamed is q's node called name, nil when q is nil or has none, or
// has two (a semaphore's parts may repeat a name: nothing is proven).
func nodeNamed(q *model.Queue, name string) *model.Node {
	if q == nil || name == "" {
		return nil
	}
	var found *model.Node
	for _, n := range q.Nodes.All() {
		if n.Name == name {
			if found != nil {
				return nil
			}
			found = n
		}
	}
	return found
}
