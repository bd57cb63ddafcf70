// Changes applied as changes: a persistent watch names each child created
// and deleted, so a busy queue is updated from those names alone, in time
// that does not grow with the queue where it can be (ordering.Ordering.Change),
// and through the whole-listing merge (queueModel.apply) where it cannot.

package queue

import (
	"slices"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// Prior is what a change needs to know of the order before it, read
// before ChangeOwned reuses that order's array: the entries that leave,
// the nodes that waited on each, and the predecessor of each entry that
// followed one that leaves (the only ones whose predecessor can change,
// besides the nodes that join).
type Prior struct {
	departed []ordering.Entry
	wakers   map[string][]string // by departed name
	pred     map[string]string   // by name of the entry after a departed one
}

func PriorOf(prev ordering.Ordering, removed []string) Prior {
	var p Prior // nil maps read as empty: a change with no leaver makes none
	if len(removed) > 0 {
		p.wakers, p.pred = make(map[string][]string, len(removed)), make(map[string]string, len(removed))
	}
	for _, name := range removed {
		i := prev.Index(name)
		if i < 0 || slices.ContainsFunc(p.departed, func(d ordering.Entry) bool { return d.Name == name }) {
			continue
		}
		p.departed = append(p.departed, prev.Entries[i])
		p.wakers[name] = wakersIn(prev, i)
		if i+1 < len(prev.Entries) {
			p.pred[prev.Entries[i+1].Name] = prev.Entries[i+1].Predecessor
		}
	}
	return p
}

// ApplyChange installs order, made from the model's order by added nodes
// (their reads in got) and removed ones; touched are the entries of
// order that are new or changed role or predecessor (ordering.Ordering.Change).
// It tells what changed as apply does for a listing, in time that grows
// with the change, not with the queue.
func (q *Model) ApplyChange(order ordering.Ordering, touched []int, before Prior, got []Fetched, issued, done, evAt time.Time) {
	departed := before.departed
	gotBy := make(map[string]*Record, len(got))
	for _, f := range got {
		if f.Rec != nil {
			gotBy[f.Name] = f.Rec
		}
	}
	var created []ordering.Entry
	var handoffs []model.Handoff
	for _, i := range touched {
		e := order.Entries[i]
		more := q.more()
		more.changed = append(more.changed, e.ParsedName)
		r, existed := q.Nodes.Get(e.Name)
		if !existed {
			r = gotBy[e.Name]
			if r == nil {
				r = &Record{} // the read failed: shown without owner, read again at the next listing
			}
			q.Nodes.Set(e.Name, r)
			created = append(created, e)
			r.setSince(done, r.Fetched)
			if r.Fetched && r.Ctime().Before(done) {
				r.setSince(r.Ctime(), r.exact)
			}
			if e.Role == ordering.RoleHolder {
				if from := releasedBefore(e, before.pred[e.Name], departed); from != "" {
					r.setSince(evAt, true)
					handoffs = append(handoffs, model.Handoff{Path: q.Path, From: from, To: e.Name, At: done, Gap: done.Sub(evAt)})
				}
			}
		} else if r.role != e.Role {
			if e.Role == ordering.RoleHolder {
				r.setSince(evAt, true)
				handoffs = append(handoffs, model.Handoff{Path: q.Path, From: releasedBefore(e, before.pred[e.Name], departed), To: e.Name, At: done, Gap: done.Sub(evAt)})
			} else {
				r.setSince(done, false)
			}
		}
		r.role = e.Role
		believes, watches := r.believe(e, false)
		r.believes = believes
		if !existed || r.watches != watches {
			r.watches, r.watchesSince = watches, unixNano(done)
		}
	}
	for i := range created {
		r := q.Nodes.Of(created[i].Name)
		created[i].Believes, created[i].Watches = r.believes, r.watches
	}
	q.emitChanges(done, created, departed, func(d ordering.Entry) []string { return before.wakers[d.Name] }, handoffs)
	for _, d := range departed {
		q.Nodes.Delete(d.Name)
		q.more().removed = append(q.more().removed, d.Name)
	}
	q.keepHandoffs(handoffs)
	// kids is the last listing's: read only while the queue holds no lock
	// node (a plain ephemeral lock), which a change here never leaves.
	q.setOrder(order)
	q.clearKids()
	q.listedAt = unixNano(issued)
	q.sampleDepth(done, len(order.Entries))
	q.MarkDirty()
}
