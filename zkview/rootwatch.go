// A root watched whole (Options.Roots, ZooKeeper 3.6+): one persistent
// recursive watch on the root covers every node below it, so a root of
// 100,000 lock parents costs the server one watch and this process no
// goroutine per parent. The paths found below the root are listed by a
// pool of workers (many listings in flight, the first picture filling in
// as they come), and each event the watch delivers goes to the path it
// names a child of: a node created costs the read of that node, a node
// deleted costs nothing.

package zkview

import (
	"context"
	"errors"
	"path"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
)

// rootWatch is one root's persistent recursive watch and the work queue
// of the paths found below it. Its fields, and each rootPath's, are
// guarded by Watcher.mu.
type rootWatch struct {
	pw    *pathWatch      // the root
	ctx   context.Context // the root's: every path below it shares it (pathWatch.ctx)
	queue []*pathWatch    // paths with work to do (pathWatch.busy), in order
	wake  chan struct{}   // a worker may find work in queue
	gen   uint64          // the session generation the watch was set in
	// progressAt is when discovery's progress was last told (tellProgress).
	progressAt time.Time
	started    time.Time
	// found and read count the paths watched through the root and those
	// read once, kept as paths come and go, so that telling the progress
	// of a million-node read does not walk them all every second.
	found, read int
	// events are the events not applied yet of the paths that have
	// some (a path waits for none most of the time: kept here, not in
	// each rootPath); nil while none has.
	events map[*pathWatch]*rootEvents
}

// rootPath is what a path watched through its root's watch keeps: its
// children as the listing and the events left them (rw, whose pw is the
// path); the events waiting for it are kept by its root (rootWatch.events).
// A path is worked on by one worker at a time (busy), so its listing and its
// events are applied in the order they were asked for: events that came
// while a listing was read are applied after it, and the last event of a
// name decides whether the child is there.
//
// Its root is the path's via, and whether it is queued (busy) or to be
// listed (relist) sit among the path's flags: a rootPath fits in 48
// bytes, and with its pathWatch (rootedPath) in 112 (TestPathWatchSize).
type rootPath struct {
	rw recursiveWatch
}

// rootEvents are a path's events not applied yet, in the server's order,
// and when the first of them came (kept apart: a path waits for none
// most of the time).
type rootEvents struct {
	evs []zk.Event
	at  time.Time
}

// appliedTo counts evs (nil: none) merged into w's model, or made moot.
func (evs *rootEvents) appliedTo(w *Watcher) {
	if evs != nil {
		w.held.applied.Add(int64(len(evs.evs)))
	}
}

// takeEventsLocked takes pw's events not applied yet (nil: none).
func (rt *rootWatch) takeEventsLocked(pw *pathWatch) *rootEvents {
	evs := rt.events[pw]
	if evs != nil {
		delete(rt.events, pw)
		if len(rt.events) == 0 {
			rt.events = nil // a map keeps its size: let a burst's go
		}
	}
	return evs
}

// foundPaths are the paths a merge found below a root watched whole,
// returned up to the root's worker that asked for the merge (work,
// readRoot), which queues them (attach): the merge registers them with
// the Watcher (Watcher.paths, counted in initPending: Load waits for
// them) and calls no root. Until queued, a path is registered and
// watched through no root (rootOf is nil): its events are dropped, as
// those of a path not found yet, and its first listing follows them.
// A path with a watch of its own finds none: what it finds gets a
// goroutine of its own at once (addPathLocked).
type foundPaths []*rootedPath

// add appends rp to found unless it is nil.
func (found foundPaths) add(rp *rootedPath) foundPaths {
	if rp == nil {
		return found
	}
	return append(found, rp)
}

// attach makes the paths found below rt paths watched through it (they
// take the Watcher's lock).
func (rt *rootWatch) attach(w *Watcher, found foundPaths) {
	if len(found) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, rp := range found {
		rt.attachLocked(rp)
	}
}

// attachLocked makes rp's path a path watched through rt: no goroutine,
// no watch of its own; it is listed by rt's workers. A path let go since
// it was found (removeLocked) stays let go.
func (rt *rootWatch) attachLocked(rp *rootedPath) {
	pw := &rp.pw
	if pw.removed {
		return
	}
	rt.found++
	pw.rp, pw.via = &rp.rp, rt
	pw.noAuth, pw.listed = false, false
	pw.relist = true
	rt.enqueueLocked(pw)
}

// enqueueLocked hands pw to a worker unless one has it already.
func (rt *rootWatch) enqueueLocked(pw *pathWatch) {
	if pw.busy {
		return
	}
	pw.busy = true
	rt.queue = append(rt.queue, pw)
	select {
	case rt.wake <- struct{}{}:
	default:
	}
}

// relistAllLocked asks every path below the root, and the root, to be
// listed again: after the watch was set again (a reconnection, a new
// session, an overflow), what changed meanwhile is known only that way.
func (rt *rootWatch) relistAllLocked(w *Watcher) {
	for _, pw := range w.paths {
		if pw.rootOf() == rt && !pw.removed {
			pw.relist = true
			rt.takeEventsLocked(pw).appliedTo(w) // a listing follows
			rt.enqueueLocked(pw)
		}
	}
}

// watchRoot watches the root pw with one persistent recursive watch. It
// returns false when the server refuses addWatch (older than 3.6) or may
// not be asked for it (NoAuth): the caller then watches the root with
// children watches, and what is found below it the same way.
func watchRoot(w *Watcher, pw *pathWatch) bool {
	ctx := pw.ctx()
	rt := newRootWatch(w, pw)
	workers := false
	for ctx.Err() == nil {
		resync := w.resyncCh()
		gen := w.genNow()
		if !w.waitSynced(ctx) {
			return true
		}
		// The watch is set before anything is listed: every listing then
		// goes out behind it, and a listing and the events after it miss
		// nothing between them.
		ch, err := pooled(ctx, w, func() (<-chan zk.Event, error) { return w.s.AddWatch(ctx, pw.path, true) })
		switch {
		case ctx.Err() != nil:
			return true
		case errors.Is(err, zk.ErrUnimplemented) && !workers:
			w.fallBack(err)
			return false
		case errors.Is(err, zk.ErrNoAuth) && !workers:
			return false
		case err != nil:
			if !waitPath(ctx, nil, resync, pw.failed(w, err)) {
				return true
			}
			continue
		}
		w.mu.Lock()
		rt.gen = gen
		rt.adoptRootLocked(w)
		rt.relistAllLocked(w)
		w.mu.Unlock()
		if !workers {
			workers = true
			rt.startWorkers(w)
		}
		if !rt.follow(w, ch) {
			break
		}
	}
	_ = w.s.RemovePersistentWatch(context.Background(), pw.path)
	return true
}

// newRootWatch is the root pw's work queue, no path in it yet.
func newRootWatch(w *Watcher, pw *pathWatch) *rootWatch {
	return &rootWatch{pw: pw, ctx: pw.ctx(), wake: make(chan struct{}, 1), started: w.cfg.Now()}
}

// adoptRootLocked makes the root one of the paths read through rt (once)
// and rt one of the Watcher's roots whose progress is told.
func (rt *rootWatch) adoptRootLocked(w *Watcher) {
	pw := rt.pw
	if pw.rp != nil {
		return
	}
	pw.rp, pw.via = &rootPath{}, rt
	pw.noAuth, pw.listed = false, false
	rt.found++ // the root is one of the paths read through it
	if pw.read {
		rt.read++
	}
	w.roots = append(w.roots, rt)
}

// startWorkers starts the workers that list and update the paths below
// the root, as many as requests may be in flight.
func (rt *rootWatch) startWorkers(w *Watcher) {
	for range maxInFlight {
		w.wg.Add(1)
		go rt.worker(w)
	}
}

// follow dispatches the watch's events to the paths they concern until
// the watch ends (true: set it again and read everything again) or the
// root is no longer watched (false).
func (rt *rootWatch) follow(w *Watcher, ch <-chan zk.Event) bool {
	resync := w.resyncCh()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-rt.ctx.Done():
			return false
		case <-resync:
			// A new session that began while the watch was being set
			// makes the reads of the old generation dropped: read again.
			resync = w.resyncCh()
			w.mu.Lock()
			if w.gen != rt.gen {
				rt.gen = w.gen
				rt.relistAllLocked(w)
			}
			w.mu.Unlock()
		case <-tick.C:
			rt.tellProgress(w)
		case ev, ok := <-ch:
			if !ok {
				return true
			}
			var batch []zk.Event
			last := &ev
			if ev.Type != zk.EventNotWatching && ev.Type != zk.EventSession {
				batch, last = drainEvents(rt.ctx, w.s, ch, []zk.Event{ev})
			}
			if w.overlay != nil {
				w.overlay.Changed(watchEvents(w.s, batch, true)) // a system's coordination re-read at once (layouts)
			}
			if end := rt.dispatch(w, batch, last); end {
				return true
			}
		}
	}
}

// dispatch hands a batch of events to the paths they concern; last is
// the event that ended the batch early (drainEvents). end says the watch
// ended (EventNotWatching: an overflow, a session gone).
func (rt *rootWatch) dispatch(w *Watcher, batch []zk.Event, last *zk.Event) (end bool) {
	now := w.cfg.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ev := range batch {
		if ev.Type == zk.EventNotWatching || ev.Type == zk.EventSession {
			continue
		}
		p := w.s.EventPath(ev)
		if p != rt.pw.path {
			rt.routeLocked(w, w.paths[path.Dir(p)], ev, now)
		}
		// A kept path (the root, a configured parent) is read again
		// when it is itself created or deleted.
		if self := w.paths[p]; self != nil && self.keep() {
			rt.routeLocked(w, self, ev, now)
		}
	}
	if last == nil {
		return false
	}
	switch {
	case last.Type == zk.EventSession:
		// Back in the same session, the watch set again; what changed
		// while the link was down was not reported.
		rt.relistAllLocked(w)
		return false
	case errors.Is(last.Err, zk.ErrWatchOverflow):
		w.emitLocked(model.Change{At: now, Kind: model.ChangeOverflow, Path: rt.pw.path})
	}
	return true
}

// routeLocked queues ev for pw when pw is watched through rt; events of
// a path not watched (not found yet, or beyond MaxDepth) are dropped:
// a path found later is listed after them.
func (rt *rootWatch) routeLocked(w *Watcher, pw *pathWatch, ev zk.Event, now time.Time) {
	if pw == nil || pw.removed || pw.rootOf() != rt {
		return
	}
	if ev.Type != zk.EventNodeCreated && ev.Type != zk.EventNodeDeleted {
		return
	}
	evs := rt.events[pw]
	if evs == nil {
		if rt.events == nil {
			rt.events = map[*pathWatch]*rootEvents{}
		}
		evs = &rootEvents{at: now}
		rt.events[pw] = evs
	}
	evs.evs = append(evs.evs, ev)
	w.held.received.Add(1)
	rt.enqueueLocked(pw)
}

// worker takes paths from the queue and does their work until the root
// is no longer watched.
func (rt *rootWatch) worker(w *Watcher) {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		var pw *pathWatch
		if len(rt.queue) > 0 {
			pw = rt.queue[0]
			rt.queue[0] = nil
			rt.queue = rt.queue[1:]
			if len(rt.queue) == 0 {
				// Let the array go: a first read of a root queues every
				// path below it, 8 bytes each, held as long as the slice
				// is.
				rt.queue = nil
			}
			if len(rt.queue) > 0 {
				select { // more: wake another worker
				case rt.wake <- struct{}{}:
				default:
				}
			}
		}
		w.mu.Unlock()
		if pw != nil {
			rt.work(w, pw)
			continue
		}
		select {
		case <-rt.ctx.Done():
			return
		case <-rt.wake:
		}
	}
}

// work does what pw waits for: its listing first, then the events that
// came, until none is left.
func (rt *rootWatch) work(w *Watcher, pw *pathWatch) {
	rp := pw.rp
	for {
		w.mu.Lock()
		relist, evs := pw.relist, rt.takeEventsLocked(pw)
		pw.relist = false
		if pw.removed || rt.ctx.Err() != nil || pw.rp != rp || (!relist && evs == nil) {
			pw.busy = false
			evs.appliedTo(w)
			w.mu.Unlock()
			return
		}
		gen := w.gen
		w.mu.Unlock()
		if !w.waitSynced(rt.ctx) {
			continue
		}
		if relist {
			ok, found := rp.rw.read(rt.ctx, w, pw, gen)
			rt.attach(w, found)
			if !ok && pw.noAuth {
				rt.handOff(w, pw)
				continue
			}
			if !ok {
				rt.retryLater(w, pw)
			}
		}
		if evs != nil && pw.listed {
			_, found := rp.rw.applyEvents(rt.ctx, w, pw, evs.evs, gen, rp.rw.listed(), evs.at)
			rt.attach(w, found)
		}
		evs.appliedTo(w) // merged, or made moot by the listing
	}
}

// retryLater lists pw again after retryEvery, when its listing failed
// (an error the path's state shows; a lost link re-reads everything when
// it is back anyway).
func (rt *rootWatch) retryLater(w *Watcher, pw *pathWatch) {
	time.AfterFunc(retryEvery, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if !pw.removed && pw.rp != nil && rt.ctx.Err() == nil {
			pw.relist = true
			rt.enqueueLocked(pw)
		}
	})
}

// handOff gives pw, which may not be listed (NoAuth: the server sends a
// persistent watch no event of it either), a goroutine and children
// watches of its own, which watch it for deletion with exists: rt lets
// it go, counted out of its progress.
func (rt *rootWatch) handOff(w *Watcher, pw *pathWatch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if pw.removed || pw.rootOf() != rt {
		return
	}
	rt.forgetLocked(pw)
	pw.own = newOwnWatch(w.ctx) // before leaving: it records the children followed
	pw.leaveRootLocked(w)
	pw.via = nil
	w.wg.Add(1)
	go pw.run(w)
}

// tellProgress says, once a second while the root's first picture
// fills in, how far discovery has come.
func (rt *rootWatch) tellProgress(w *Watcher) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pictured {
		return
	}
	now := w.cfg.Now()
	w.emitLocked(model.Change{At: now, Kind: model.ChangeDiscovering, Path: rt.pw.path, Discovery: rt.discoveryLocked(w, now)})
}

// forgetLocked counts pw, no longer watched through rt, out of its
// progress.
func (rt *rootWatch) forgetLocked(pw *pathWatch) {
	rt.found--
	if pw.read {
		rt.read--
	}
}
