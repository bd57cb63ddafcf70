// Changes applied as changes: a persistent watch names each child created
// and deleted, so a busy queue is updated from those names alone, in time
// that does not grow with the queue where it can be (lockops.Ordering.Change),
// and through the whole-listing merge (queueModel.apply) where it cannot.

package zkview

import (
	"context"
	"slices"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
)

// applyDelta merges children added and removed by a watch's events into
// pw's model; kids is the whole list after them (rw.names), for the
// listing merge when the change is not one a queue can take as a change.
func (rw *recursiveWatch) applyDelta(ctx context.Context, added, removed []string, kids func() []string, gen uint64, issued, evAt time.Time) {
	pw, w := rw.pw, rw.pw.w
	w.mu.Lock()
	qm := w.queues[pw.path]
	if qm != nil {
		qm.eventAt = evAt // the queue was not quiet (judgeLink)
	}
	ok := !pw.removed && qm != nil && rw.deltaFitsLocked(qm)
	w.mu.Unlock()
	if !ok {
		pw.applyListing(ctx, listing{names: kids()}, gen, issued, evAt)
		return
	}

	// Only the path's goroutine (this one) changes qm.order, and only
	// under the lock (ChangeOwned changes it in place, and builds read it
	// under the lock): reading it here without the lock is safe. Whether
	// the change fits is asked before the reads, so that a change left to
	// the listing merge reads each new node once, there.
	start := time.Now()
	if !qm.order.Fits(added) {
		pw.applyListing(ctx, listing{names: kids()}, gen, issued, evAt)
		return
	}
	cost := time.Since(start)
	got := pw.fetch(ctx, added)
	if ctx.Err() != nil {
		return
	}
	for _, f := range got {
		if f.gone {
			removed = append(removed, f.name) // deleted since: its event follows
		}
	}

	w.mu.Lock()
	if gen != 0 && w.gen != gen || pw.removed {
		w.mu.Unlock()
		return
	}
	start = time.Now()
	before := priorOf(qm.order, removed)
	order, touched, fits := qm.order.ChangeOwned(added, removed)
	if !fits {
		w.mu.Unlock()
		pw.applyListing(ctx, listing{names: kids()}, gen, issued, evAt)
		return
	}
	defer w.mu.Unlock()
	pw.lastList, pw.lastSize = issued, len(order.Entries)
	qm.applyChange(w, order, touched, before, got, issued, w.cfg.Now(), evAt)
	w.stats.changeMerges++
	pw.applyCost = cost + time.Since(start)
	pw.setReadLocked()
	w.markDirtyLocked()
	w.kickPublish()
}

// prior is what a change needs to know of the order before it, read
// before ChangeOwned reuses that order's array: the entries that leave,
// the nodes that waited on each, and the predecessor of each entry that
// followed one that leaves (the only ones whose predecessor can change,
// besides the nodes that join).
type prior struct {
	departed []lockops.Entry
	wakers   map[string][]string // by departed name
	pred     map[string]string   // by name of the entry after a departed one
}

func priorOf(prev lockops.Ordering, removed []string) prior {
	var p prior // nil maps read as empty: a change with no leaver makes none
	if len(removed) > 0 {
		p.wakers, p.pred = make(map[string][]string, len(removed)), make(map[string]string, len(removed))
	}
	for _, name := range removed {
		i := prev.Index(name)
		if i < 0 || slices.ContainsFunc(p.departed, func(d lockops.Entry) bool { return d.Name == name }) {
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

// deltaFitsLocked: pw's model can take a change without its listing. Not
// when it is more than a queue of lock nodes: a path not read yet, absent
// or refused; one with other children (semaphores, discovery, a plain
// ephemeral lock's node), or one a semaphore reads beside its own.
func (rw *recursiveWatch) deltaFitsLocked(qm *queueModel) bool {
	pw, w := rw.pw, rw.pw.w
	if !qm.seen || qm.state != model.PathPresent || qm.lone != nil || len(qm.order.Entries) == 0 || len(qm.order.Other) > 0 {
		return false
	}
	if _, isAux := w.sems.auxOf[pw.path]; isAux {
		return false
	}
	_, isSem := w.sems.owners[pw.path]
	return !isSem
}

// applyChange installs order, made from the model's order by added nodes
// (their reads in got) and removed ones; touched are the entries of
// order that are new or changed role or predecessor (lockops.Ordering.Change).
// It tells what changed as apply does for a listing, in time that grows
// with the change, not with the queue.
func (q *queueModel) applyChange(w *Watcher, order lockops.Ordering, touched []int, before prior, got []fetched, issued, done, evAt time.Time) {
	departed := before.departed
	gotBy := make(map[string]*nodeRec, len(got))
	for _, f := range got {
		if f.rec != nil {
			gotBy[f.name] = f.rec
		}
	}
	var created []lockops.Entry
	var handoffs []model.Handoff
	for _, i := range touched {
		e := order.Entries[i]
		q.changed = append(q.changed, e.ParsedName)
		r, existed := q.nodes[e.Name]
		if !existed {
			r = gotBy[e.Name]
			if r == nil {
				r = &nodeRec{} // the read failed: shown without owner, read again at the next listing
			}
			q.nodes[e.Name] = r
			created = append(created, e)
			r.since, r.exact = done, r.fetched
			if r.fetched && r.ctime.Before(done) {
				r.since = r.ctime
			}
			if e.Role == lockops.RoleHolder {
				if from := releasedBefore(e, before.pred[e.Name], departed); from != "" {
					r.since, r.exact = evAt, true
					handoffs = append(handoffs, model.Handoff{Path: q.path, From: from, To: e.Name, At: done, Gap: done.Sub(evAt)})
				}
			}
		} else if r.role != e.Role {
			if e.Role == lockops.RoleHolder {
				r.since, r.exact = evAt, true
				handoffs = append(handoffs, model.Handoff{Path: q.path, From: releasedBefore(e, before.pred[e.Name], departed), To: e.Name, At: done, Gap: done.Sub(evAt)})
			} else {
				r.since, r.exact = done, false
			}
		}
		r.role = e.Role
		believes, watches := r.believe(e, false)
		r.believes = believes
		if !existed || r.watches != watches {
			r.watches, r.watchesSince = watches, done
		}
	}
	for i := range created {
		r := q.nodes[created[i].Name]
		created[i].Believes, created[i].Watches = r.believes, r.watches
	}
	q.emitChanges(w, done, created, departed, func(d lockops.Entry) []string { return before.wakers[d.Name] }, handoffs)
	for _, d := range departed {
		delete(q.nodes, d.Name)
		q.removed = append(q.removed, d.Name)
	}
	q.handoffs = append(q.handoffs, handoffs...)
	if over := len(q.handoffs) - maxHandoffs; over > 0 {
		q.handoffs = append([]model.Handoff(nil), q.handoffs[over:]...)
	}
	// kids is the last listing's: read only while the queue holds no lock
	// node (a plain ephemeral lock), which a change here never leaves.
	q.kids, q.order = nil, order
	q.listedAt = issued
	q.sampleDepth(done, len(order.Entries))
	q.dirty = true
}
