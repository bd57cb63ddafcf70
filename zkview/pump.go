// The update pump: snapshots built when the model changed, spaced by
// what building them costs, and handed to the consumer one Update at a
// time, merged while the consumer is busy.

package zkview

import (
	"time"

	"github.com/zklock/zklock/model"
)

// run builds snapshots when the model changed and hands them to the
// consumer, merging into the one pending Update while the consumer is
// busy. A change after a quiet spell is built at once; under a stream of
// changes the builds are spaced so that they take at most a
// 1/buildShare of a core (publishBudget).
func (p *pump) run() {
	w := p.w
	defer w.wg.Done()
	defer func() {
		if p.timer != nil {
			p.timer.Stop()
		}
	}()
	for {
		var out chan<- model.Update
		if p.cur != nil {
			out = w.updates
		}
		var next model.Update
		if p.cur != nil {
			next = *p.cur
		}
		select {
		case <-w.ctx.Done():
			return
		case <-w.kick:
			p.kicked()
		case <-p.timerC:
			p.timerC = nil
			w.buildDue.Store(false)
			p.build()
		case out <- next:
			p.cur = nil
		}
	}
}

// pump is the update pump (run) and its state: the pending Update and the timer that spaces
// the builds.
type pump struct {
	w      *Watcher
	cur    *model.Update // the Update the consumer has not taken, nil when none
	timer  *time.Timer
	timerC <-chan time.Time // the pending build's, nil when none is scheduled
	budget publishBudget
}

// build builds a snapshot and merges it into the pending Update.
func (p *pump) build() {
	start := time.Now()
	u, ok, cost, pictured := p.w.takeUpdate()
	p.budget.spent(start, cost)
	if pictured {
		// The first picture is a one-off: spaced while it loads, then
		// forgiven, so that the first changes after it show at once.
		p.budget.debt = 0
	}
	if !ok {
		return
	}
	if p.cur == nil {
		p.cur = &u
		return
	}
	p.cur.Merge(u)
}

// kicked answers a change of the model: a build now, or one scheduled
// when the budget says to wait, unless one is scheduled already.
func (p *pump) kicked() {
	w := p.w
	w.mu.Lock()
	loading := !w.pictured
	// The picture is complete: shown now, not at the next
	// loading frame (up to loadingFrame later).
	complete := loading && w.initPending <= 0
	w.mu.Unlock()
	if complete {
		if p.timer != nil {
			p.timer.Stop()
		}
		p.timerC = nil
		p.build()
		return
	}
	if p.timerC != nil {
		return // already scheduled
	}
	wait, every := p.budget.wait(time.Now(), loading)
	if loading {
		every = minPublish // filling in, not coalescing: the header says "reading"
	}
	w.mu.Lock()
	w.frameEvery = every
	w.mu.Unlock()
	if wait > 0 {
		// One timer, reset for each spaced build (since Go 1.23 a reset
		// timer delivers no stale tick): not one made per build.
		if p.timer == nil {
			p.timer = time.NewTimer(wait)
		} else {
			p.timer.Reset(wait)
		}
		p.timerC = p.timer.C
		w.buildDue.Store(!loading) // loading: a kick may complete the picture, built at once
		return
	}
	p.build()
}

// publishBudget spaces snapshot builds: at least minPublish apart, and,
// once the builds of the last moments cost more than buildBurst, as far
// apart as keeps them under a 1/buildShare of a core: buildShare times
// what a build costs of late (an average, so that one slow build, a
// garbage collection, does not hold the next one back for long). debt is
// the build time not yet paid back, at at; it pays back at 1/buildShare
// of the time that passes.
type publishBudget struct {
	last time.Time     // when the last build began
	debt time.Duration // build time not yet paid back, at at
	at   time.Time
	avg  time.Duration // a build's cost of late (moving average)
}

func (b *publishBudget) owed(now time.Time) time.Duration {
	return max(0, b.debt-now.Sub(b.at)/buildShare)
}

// spent records a build that began at start and cost cost.
func (b *publishBudget) spent(start time.Time, cost time.Duration) {
	b.debt, b.at = b.owed(start)+cost, start
	b.last = start
	// A build slowed by a garbage collection counts at most twice the
	// average (plus a millisecond) in it, so that one such build does not
	// hold the next ones back; the debt counts it in full.
	b.avg += (min(cost, 2*b.avg+time.Millisecond) - b.avg) / 4
}

// wait is how long the next build waits, from now, and the spacing of
// snapshots in force (Snapshot.FrameEvery): minPublish while the budget
// allows, buildShare times a build's cost once it does not; loadingFrame
// while the first picture loads.
func (b *publishBudget) wait(now time.Time, loading bool) (wait, every time.Duration) {
	every = minPublish
	if loading {
		// The first picture fills in at loadingFrame: enough to see the
		// parents arrive, little enough to leave the reads the CPU.
		every = loadingFrame
	}
	if b.owed(now) > buildBurst {
		// Never further apart than maxPublish: a model whose every build
		// costs more than maxPublish/buildShare stays live at the price
		// of more of a core.
		every = min(max(minPublish, b.avg*buildShare), maxPublish)
	}
	return b.last.Add(every).Sub(now), every
}
