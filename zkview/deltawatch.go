package zkview

import (
	"context"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview/queue"
)

// applyDelta merges children added and removed by a watch's events into
// pw's model; kids is the whole list after them (rw.names), for the
// listing merge when the change is not one a queue can take as a change.
func (rw *recursiveWatch) applyDelta(ctx context.Context, added, removed []string, kids func() []string, gen uint64, issued, evAt time.Time) {
	pw, w := rw.pw, rw.pw.w
	w.mu.Lock()
	qm := w.queues[pw.path]
	if qm != nil {
		qm.EventAt = evAt // the queue was not quiet (judgeLink)
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
	if !qm.Order.Fits(added) {
		pw.applyListing(ctx, listing{names: kids()}, gen, issued, evAt)
		return
	}
	cost := time.Since(start)
	got := pw.fetch(ctx, added)
	if ctx.Err() != nil {
		return
	}
	for _, f := range got {
		if f.Gone {
			removed = append(removed, f.Name) // deleted since: its event follows
		}
	}

	w.mu.Lock()
	if gen != 0 && w.gen != gen || pw.removed {
		w.mu.Unlock()
		return
	}
	start = time.Now()
	before := queue.PriorOf(qm.Order, removed)
	order, touched, fits := qm.Order.ChangeOwned(added, removed)
	if !fits {
		w.mu.Unlock()
		pw.applyListing(ctx, listing{names: kids()}, gen, issued, evAt)
		return
	}
	defer w.mu.Unlock()
	pw.lastList, pw.lastSize = issued, len(order.Entries)
	qm.ApplyChange(order, touched, before, got, issued, w.cfg.Now(), evAt)
	w.stats.changeMerges++
	pw.applyCost = cost + time.Since(start)
	pw.setReadLocked()
	w.markDirtyLocked()
	w.kickPublish()
}

// deltaFitsLocked: pw's model can take a change without its listing. Not
// when it is more than a queue of lock nodes: a path not read yet, absent
// or refused; one with other children (semaphores, discovery, a plain
// ephemeral lock's node), or one a semaphore reads beside its own.
func (rw *recursiveWatch) deltaFitsLocked(qm *queue.Model) bool {
	pw, w := rw.pw, rw.pw.w
	if !qm.Seen || qm.State != model.PathPresent || qm.Lone != nil || len(qm.Order.Entries) == 0 || len(qm.Order.Other) > 0 {
		return false
	}
	if _, isAux := w.sems.auxOf[pw.path]; isAux {
		return false
	}
	_, isSem := w.sems.owners[pw.path]
	return !isSem
}
