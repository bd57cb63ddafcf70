package zkview

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
)

// cycleTimers is what the Watcher keeps of the graph's cycles between
// publishes.
type cycleTimers struct {
	last      []model.Deadlock // the cycles of the previous snapshot, for events
	recheck   *time.Timer      // publishes again when a young cycle comes of age
	recheckAt time.Time
	catchUp   *time.Timer // publishes again when a long queue left unread is due
}

// judge brings the Watcher's wait-for graph to b's queues (unless
// b.full, only those at b.touched) and sets b's cycles. It runs under
// buildMu, not mu: the graph is the builds' alone, the queues immutable.
func (g *cycleTimers) judge(w *Watcher, b *build) {
	if b.full {
		b.behind = w.graph.Update(b.snap.Queues, b.now)
	} else {
		changed, removed := touchedQueues(b.snap.Queues, b.touched)
		b.behind = w.graph.UpdateChanged(changed, removed, b.now)
	}
	b.snap.Deadlocks = w.graph.Cycles(b.now)
}

// tellLocked tells which of b's cycles appeared, became deadlocks and
// cleared since the last build's; it publishes again when a young cycle
// comes of age, or a long queue the graph left unread is due.
func (g *cycleTimers) tellLocked(w *Watcher, b *build) {
	now, cur := b.now, b.snap.Deadlocks // as judge left them
	if !b.behind.IsZero() && g.catchUp == nil && !w.oneShot {
		g.catchUp = g.republishAfter(w, b.behind.Sub(now)+time.Millisecond, func() { w.cycles.catchUp = nil })
	}
	g.eventsLocked(w, g.last, cur, now)
	g.last = cur
	young, due := sessions.YoungCycles(&model.Snapshot{Deadlocks: cur})
	if !young && g.recheck != nil {
		g.recheck.Stop()
		g.recheck, g.recheckAt = nil, time.Time{}
	}
	if young && !w.oneShot && !g.recheckAt.Equal(due) {
		if g.recheck != nil {
			g.recheck.Stop()
		}
		g.recheckAt = due
		// A little after the due time: the cycle is judged by the clock of
		// the rebuild that follows, which must be past it.
		g.recheck = g.republishAfter(w, due.Sub(now)+10*time.Millisecond, func() { w.cycles.recheckAt = time.Time{} })
	}
}

// touchedQueues is the queues at the paths touched (duplicates allowed)
// and the paths that have none.
func touchedQueues(queues model.Queues, touched []string) (changed []*model.Queue, removed []string) {
	slices.Sort(touched)
	for _, p := range slices.Compact(touched) {
		if i, ok := queues.Find(p); ok {
			changed = append(changed, queues.At(i))
		} else {
			removed = append(removed, p)
		}
	}
	return changed, removed
}

// republishAfter publishes a snapshot again after d, even if nothing
// changed (a time-judged state is due), calling fired under the lock
// first.
func (g *cycleTimers) republishAfter(w *Watcher, d time.Duration, fired func()) *time.Timer {
	return time.AfterFunc(d, func() {
		if w.ctx.Err() != nil {
			return
		}
		w.mu.Lock()
		fired()
		w.markDirtyLocked()
		w.mu.Unlock()
		w.kickPublish()
	})
}

// eventsLocked tells what changed between two snapshots' cycles
// over two or more sessions (a self-wait is told by its queue's warning).
func (g *cycleTimers) eventsLocked(w *Watcher, old, cur []model.Deadlock, now time.Time) {
	if slices.EqualFunc(old, cur, func(a, b model.Deadlock) bool {
		return a.State == b.State && slices.Equal(a.Sessions, b.Sessions)
	}) {
		return // the same cycles in the same states: nothing to tell (most publishes)
	}
	key := func(d model.Deadlock) string { return fmt.Sprint(d.Sessions) }
	had := make(map[string]string, len(old))
	for _, d := range old {
		had[key(d)] = d.State
	}
	has := make(map[string]bool, len(cur))
	for _, d := range cur {
		has[key(d)] = true
		if prev, ok := had[key(d)]; (ok && prev == d.State) || d.State == model.CycleSelfWait {
			continue
		}
		w.emitLocked(model.Change{At: now, Kind: model.ChangeCycle, Path: d.Paths[0], Node: model.Node{Name: d.Waits[0].Node}, Cycle: d})
	}
	for _, d := range old {
		if !has[key(d)] && d.State != model.CycleSelfWait {
			w.emitLocked(model.Change{At: now, Kind: model.ChangeCycleCleared, Path: d.Paths[0], Cycle: d})
		}
	}
}

// confirmMargin is how long after a young cycle's due time ConfirmCycles
// reads again: the second read's snapshot is dated by a clock read a few
// milliseconds from the timer's, and a read dated a hair before the due
// time would judge the cycle young once more (seen once, 21 ms short, on
// a loaded 2-core machine). A quarter second is far below DeadlockAfter.
const confirmMargin = 250 * time.Millisecond

// ConfirmCycles judges the young cycles and leader mismatches of a
// one-off read: it waits until they would have stood DeadlockAfter (a
// mismatch LeaderMismatchAfter), reads cfg again (Load) and returns that
// read with its cycles dated across both (JudgeAgain): a cycle seen in
// both on the same nodes is a deadlock, one with a handoff in between is
// young again, one gone is gone; a mismatch seen in both with the same
// Key dates from the first (RedateMismatches). snap is returned as is
// when it shows neither. It takes at most the longer wait plus a read;
// ctx bounds it.
func ConfirmCycles(ctx context.Context, s *lockops.Session, cfg Options, snap *model.Snapshot) (*model.Snapshot, error) {
	young, due := sessions.YoungCycles(snap)
	if mYoung, mDue := YoungMismatches(snap); mYoung && mDue.After(due) {
		young, due = true, mDue
	}
	if !young {
		return snap, nil
	}
	t := time.NewTimer(time.Until(due) + confirmMargin)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, fmt.Errorf("zkview: confirm cycles: %w", ctx.Err())
	}
	next, err := Load(ctx, s, cfg)
	if err != nil {
		return nil, err
	}
	next.Deadlocks = sessions.JudgeAgain(snap, next)
	RedateMismatches(snap, next)
	// The second read proves what it can of its own (Load did, before
	// JudgeAgain dated its cycles from the first read).
	return proveCycles(next), nil
}

// YoungMismatches says whether snap shows a leader-mismatch that has not
// lasted LeaderMismatchAfter yet, and when the youngest would.
func YoungMismatches(snap *model.Snapshot) (bool, time.Time) {
	var due time.Time
	for _, q := range snap.Queues.All() {
		for _, w := range q.Warnings() {
			if w.Code != model.WarnLeaderMismatch || w.Lasted(snap.At) >= model.LeaderMismatchAfter {
				continue
			}
			if t := w.Since.Add(model.LeaderMismatchAfter); t.After(due) {
				due = t
			}
		}
	}
	return !due.IsZero(), due
}

// RedateMismatches dates next's leader mismatches by first, an earlier
// read: a Key seen in both lasted all the while (it names both sides, so
// any change in between changes it). next must be the caller's own.
func RedateMismatches(first, next *model.Snapshot) {
	since := map[string]time.Time{}
	for _, q := range first.Queues.All() {
		for _, w := range q.Warnings() {
			if w.Key != "" && !w.Since.IsZero() {
				since[w.Key] = w.Since
			}
		}
	}
	var set []model.Queue
	for _, q := range next.Queues.All() {
		var redated []model.Warning
		for j, w := range q.Warnings() {
			if t, ok := since[w.Key]; ok && w.Key != "" && t.Before(w.Since) {
				if redated == nil {
					redated = slices.Clone(q.Warnings())
				}
				redated[j].Since = t
			}
		}
		if redated != nil {
			nq := *q
			nq.SetWarnings(redated)
			set = append(set, nq)
		}
	}
	next.Queues = next.Queues.Patch(set, nil)
}
