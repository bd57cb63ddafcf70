// The one-shot read of a root (Load: `zklock ls --root`) goes the way a
// root watched whole is first read (rootwatch.go): the paths found below
// the root queue up for the root's pool of maxInFlight workers, many
// listings in flight over the one connection and no goroutine per path;
// only no watch is set. And how far a root's first read has come, which
// the snapshots carry (Snapshot.Discovery) and Load tells its caller
// (Options.LoadProgress).

package zkview

import (
	"context"
	"fmt"
	"time"

	"github.com/zklock/zklock/model"
)

// readRoot reads the root pw and what is found below it once, without
// a watch, through a rootWatch's queue and workers, and stays until the
// Watcher is closed, listing again what a lost link left unread. It
// returns false, having read nothing through the queue, when the root
// may not be listed (NoAuth): the caller reads it as any other path.
func readRoot(w *Watcher, pw *pathWatch) bool {
	ctx := pw.ctx()
	rt := newRootWatch(w, pw)
	w.mu.Lock()
	rt.gen = w.gen
	rt.adoptRootLocked(w)
	w.mu.Unlock()
	// The root is listed here, first: a root that may not be listed is
	// then no root read whole, and its handing off (rootWatch.work)
	// cannot come back here.
	if !w.waitSynced(ctx) {
		return true
	}
	rw := &pw.rp.rw
	ok, found := rw.read(ctx, w, pw, rt.gen)
	rt.attach(w, found)
	if !ok {
		if pw.noAuth {
			w.mu.Lock()
			rt.forgetLocked(pw)
			pw.leaveRootLocked(w)
			w.mu.Unlock()
			return false
		}
		rt.retryLater(w, pw)
	}
	rt.startWorkers(w)
	for {
		resync := w.resyncCh()
		select {
		case <-ctx.Done():
			return true
		case <-resync:
			// The listings a lost link failed are asked again now (the
			// workers' retry would come retryEvery later).
			w.mu.Lock()
			rt.gen = w.gen
			rt.relistUnreadLocked(w)
			w.mu.Unlock()
		}
	}
}

// relistUnreadLocked lists again the paths below the root not read yet.
func (rt *rootWatch) relistUnreadLocked(w *Watcher) {
	if rt.read >= rt.found {
		return
	}
	for _, pw := range w.paths {
		if pw.rootOf() == rt && !pw.removed && !pw.read {
			pw.relist = true
			rt.enqueueLocked(pw)
		}
	}
}

// discoveryLocked is how far rt's first read has come at now.
func (rt *rootWatch) discoveryLocked(w *Watcher, now time.Time) model.Discovery {
	return model.Discovery{Root: rt.pw.path, Read: rt.read, Found: rt.found, Parents: w.models, Took: now.Sub(rt.started)}
}

// discoveryLocked is how far the first read of each root read whole has
// come, for the roots still reading while the first picture fills in;
// nil once it is complete.
func discoveryLocked(w *Watcher, now time.Time) []model.Discovery {
	if w.pictured {
		return nil
	}
	var ds []model.Discovery
	for _, rt := range w.roots {
		if rt.read < rt.found && rt.ctx.Err() == nil {
			ds = append(ds, rt.discoveryLocked(w, now))
		}
	}
	return ds
}

// waitRead waits until every path was read once, telling
// cfg.LoadProgress, when set, how far the roots' reads have come every
// progressEvery meanwhile.
func waitRead(ctx context.Context, w *Watcher) error {
	var tick <-chan time.Time
	if w.cfg.LoadProgress != nil {
		t := time.NewTicker(w.cfg.progressEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-w.initDone:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("zkview: load: %w", ctx.Err())
		case <-tick:
			w.mu.Lock()
			ds := discoveryLocked(w, w.cfg.Now())
			w.mu.Unlock()
			if len(ds) > 0 {
				w.cfg.LoadProgress(ds)
			}
		}
	}
}
