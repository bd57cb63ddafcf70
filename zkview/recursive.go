// Persistent recursive watches (ZooKeeper 3.6+ addWatch): one watch per
// watched path that never needs re-arming and names each child created or
// deleted, so a change costs the read of the new node and nothing else; a
// queue is listed only when it is first read and after a reconnection,
// when what happened meanwhile is unknown.

package zkview

import (
	"context"
	"errors"
	"path"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview/queue"
)

// auditSoon is how soon after a batch of events the path's stat is read
// to check that the watch missed no change (unreported): soon enough to
// catch a change the server did not report within a blink, and at most
// one such read per path in that time under a stream of events.
const auditSoon = 50 * time.Millisecond

// maxBatch bounds how many events one merge takes: a burst is read in
// batches, each one merge and one snapshot, so a busy queue coalesces
// instead of falling behind event by event.
const maxBatch = 4096

// recursiveWatch is one path's persistent recursive watch: the path's
// own (runRecursive, its events' channel then beside it) or its root's
// (rootPath). Whether the path may be listed and whether names holds a
// listing are the path's flags (pathWatch.noAuth, listed). It keeps no
// pointer to its path: who works on the path (its goroutine, its root's
// worker) hands the path down with the Watcher.
type recursiveWatch struct {
	names childSet // the path's children, kept current by events
	// cversion is the path's child version at the last listing, and seen
	// how many creates and deletes of children the watch reported since:
	// the server's count running ahead of ours is a change the watch did
	// not report (a child the operator may not read: the server keeps
	// its events from persistent watchers), so the path is listed again.
	cversion int32
	seen     int32
	// listedAt is when the model last held every change the server had
	// made: a listing asked for then, or a barrier after which nothing
	// was left to receive (Queue.ListedAt); Unix nanoseconds, as the
	// queue model keeps it (a time.Time would take a root's parent from
	// 112 bytes to 128).
	listedAt int64
}

// listed is rw.listedAt as a time (zero when never).
func (rw *recursiveWatch) listed() time.Time {
	if rw.listedAt == 0 {
		return time.Time{}
	}
	return time.Unix(0, rw.listedAt)
}

// setListed sets rw.listedAt.
func (rw *recursiveWatch) setListed(t time.Time) {
	rw.listedAt = 0
	if !t.IsZero() {
		rw.listedAt = t.UnixNano()
	}
}

// runRecursive watches pw with a persistent recursive watch. It
// returns false when the server refuses addWatch (older than 3.6): the
// caller then watches pw with children watches, and so does every path
// after it.
func runRecursive(w *Watcher, pw *pathWatch) bool {
	ctx := pw.ctx()
	for ctx.Err() == nil {
		resync := w.resyncCh()
		gen := w.genNow()
		if !w.waitSynced(ctx) {
			return true
		}
		issued := w.cfg.Now()
		set, err := pooled(ctx, w, func() (watchSet, error) {
			// The listing goes out right behind the addWatch, without
			// waiting for its answer: the server answers in order, so
			// once the watch is set the listing was read with it in place
			// and the two miss nothing between them. One round trip.
			pending, err := w.s.AddWatchAsync(ctx, pw.path, true)
			if err != nil {
				return watchSet{}, err
			}
			l, lerr := listChildren(ctx, w.s, pw.path)
			ch, err := pending.Wait(ctx)
			return watchSet{ch: ch, issued: issued, l: l, err: lerr}, err
		})
		switch {
		case ctx.Err() != nil:
			return true
		case errors.Is(err, zk.ErrUnimplemented):
			w.fallBack(err)
			return false
		case errors.Is(err, zk.ErrNoAuth):
			// addWatch needs read permission; children watches handle a
			// NoAuth path (watched for deletion with exists).
			return false
		case err != nil:
			if !waitPath(ctx, nil, resync, pw.failed(w, err)) {
				return true
			}
			continue
		}
		rw := newRecursive(pw)
		ok := rw.follow(ctx, w, pw, gen, resync, set)
		if pw.noAuth {
			_ = w.s.RemovePersistentWatch(ctx, pw.path)
			return false
		}
		rw.dropWatch(w, pw)
		if !ok {
			return true
		}
	}
	return true
}

// newRecursive is a new watch of pw's, which knows nothing yet.
func newRecursive(pw *pathWatch) *recursiveWatch {
	pw.noAuth, pw.listed = false, false // the path's goroutine's, as rw is
	return &recursiveWatch{}
}

// watchSet is a persistent watch just set and the listing read right
// behind it (runRecursive).
type watchSet struct {
	ch     <-chan zk.Event
	issued time.Time // when the two were asked for
	l      listing
	err    error // the listing's
}

// follow takes pw's first listing, read with the watch's
// addWatch (set), then applies the watch's events until the watch ends
// (true: set it again and read again) or pw is dropped (false).
func (rw *recursiveWatch) follow(ctx context.Context, w *Watcher, pw *pathWatch, gen uint64, resync <-chan struct{}, set watchSet) bool {
	// A path with a watch of its own finds nothing below a root (foundPaths).
	if ok, _ := rw.takeListing(ctx, w, pw, gen, set.issued, set.l, set.err); !ok && (ctx.Err() != nil || pw.noAuth) {
		return false
	}
	auditAt := time.Now().Add(rw.auditEvery(w))
	audit := time.NewTimer(time.Until(auditAt))
	defer audit.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-resync:
			// A (re)connection. In the same session the watch's
			// EventSession asks for the read; a new session that began
			// while this path was being set up makes the reading above
			// one of the old generation, dropped: read again in the new
			// one. (A watch of the old session ends with
			// EventNotWatching, and is set again then.)
			resync = w.resyncCh()
			if !rw.resynced(ctx, w, pw, &gen) {
				return false
			}
		case <-audit.C:
			// Changes the server does not report to this watch (children
			// the operator may not read) show only in the parent's stat.
			if rw.unreported(ctx, w, pw, set.ch) {
				rw.read(ctx, w, pw, gen)
			}
			every := rw.auditEvery(w)
			audit.Reset(every)
			auditAt = time.Now().Add(every)
		case ev, ok := <-set.ch:
			if end, again := rw.take(ctx, w, pw, set.ch, ev, ok, gen, audit, &auditAt); end {
				return again
			}
		}
	}
}

// resynced reads pw again when a (re)connection began a new session,
// gen then set to it; false when pw is dropped or may not be read.
func (rw *recursiveWatch) resynced(ctx context.Context, w *Watcher, pw *pathWatch, gen *uint64) bool {
	g := w.genNow()
	if g == *gen {
		return true
	}
	*gen = g
	if !w.waitSynced(ctx) {
		return false
	}
	ok, _ := rw.read(ctx, w, pw, g)
	return ok || (ctx.Err() == nil && !pw.noAuth)
}

// take applies ev, received from the watch's channel ch (ok false: it was
// closed), with the events that follow it at once. end says the watch
// ended, follow then returning again; the next audit is brought forward
// to within auditSoon (audit, auditAt).
func (rw *recursiveWatch) take(ctx context.Context, w *Watcher, pw *pathWatch, ch <-chan zk.Event, ev zk.Event, ok bool, gen uint64, audit *time.Timer, auditAt *time.Time) (end, again bool) {
	switch {
	case !ok:
		return true, true
	case ev.Type == zk.EventNotWatching:
		if errors.Is(ev.Err, zk.ErrWatchOverflow) {
			// The session is fine; events were dropped: set the watch
			// again and read now.
			rw.emitOverflow(w, pw)
			return true, true
		}
		// The session ended (or the server refused to set the watch
		// again): set the watch again and read. The new session may
		// be up already (the end of the old one is told once the
		// client learns of it, often at the reconnection); if not,
		// the attempt fails as a lost link and waits for it.
		return true, true
	case ev.Type == zk.EventSession:
		// Back in the same session, the watch set again; what changed
		// while the link was down was not reported. Read again.
		if ok, _ := rw.read(ctx, w, pw, gen); !ok && ctx.Err() != nil {
			return true, false
		}
		return false, false
	}
	evAt := w.cfg.Now()
	batch, last := drainEvents(ctx, w.s, ch, []zk.Event{ev})
	w.held.received.Add(int64(len(batch)))
	if w.overlay != nil {
		w.overlay.Changed(watchEvents(w.s, batch, false)) // a system's coordination re-read at once (layouts)
	}
	// Applied at once, without a round trip first; the check that
	// the watch missed nothing (unreported) follows within
	// auditSoon, off the change's path, at most once per auditSoon
	// however fast events come.
	applied, _ := rw.applyEvents(ctx, w, pw, batch, gen, rw.listed(), evAt)
	w.held.applied.Add(int64(len(batch)))
	if !applied && ctx.Err() != nil {
		return true, false
	}
	if soon := time.Now().Add(auditSoon); last == nil && auditAt.After(soon) {
		audit.Reset(auditSoon)
		*auditAt = soon
	}
	switch {
	case last == nil:
	case last.Type == zk.EventNotWatching:
		return true, true
	case last.Type == zk.EventSession:
		if ok, _ := rw.read(ctx, w, pw, gen); !ok && ctx.Err() != nil {
			return true, false
		}
	}
	return false, false
}

// drainEvents appends to batch, up to maxBatch, what the channel holds
// now and the backlog the client holds for it (s.PersistentBacklog);
// last is the event that ends the batch early (EventNotWatching,
// EventSession: not in batch), nil when none did. The client hands a
// backlog over one event at a time through a channel of a few: a batch
// of what the channel held alone would be a few events, and a stream of
// changes would cost a round trip (the new nodes' reads) every few
// events, falling further behind the faster they come.
func drainEvents(ctx context.Context, s *lockops.Session, ch <-chan zk.Event, batch []zk.Event) ([]zk.Event, *zk.Event) {
	for len(batch) < maxBatch {
		var ev zk.Event
		var ok bool
		select {
		case ev, ok = <-ch:
		default:
			// The count may hold one event already handed over (the
			// client takes it off its queue a moment after the hand-over):
			// two or more say that one is still to come for sure; one is
			// left to the next batch, lest this one wait for a change
			// that may not come.
			if s.PersistentBacklog(ch) < 2 {
				return batch, nil
			}
			select { // handed over next, or the channel closed
			case ev, ok = <-ch:
			case <-ctx.Done():
				return batch, nil
			}
		}
		if !ok {
			return batch, &zk.Event{Type: zk.EventNotWatching}
		}
		if ev.Type == zk.EventNotWatching || ev.Type == zk.EventSession {
			return batch, &ev
		}
		batch = append(batch, ev)
	}
	return batch, nil
}

// barrier reads the path's stat; nil when it could not (a lost link or a
// gone path: the watch says so next).
func (rw *recursiveWatch) barrier(ctx context.Context, w *Watcher, pw *pathWatch) *zk.Stat {
	st, err := pooled(ctx, w, func() (*zk.Stat, error) {
		_, st, err := w.s.Exists(ctx, pw.path)
		return st, err
	})
	if err != nil {
		return nil
	}
	return st
}

// emitOverflow says that a watch fell behind and is read afresh.
func (rw *recursiveWatch) emitOverflow(w *Watcher, pw *pathWatch) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.emitLocked(model.Change{At: w.cfg.Now(), Kind: model.ChangeOverflow, Path: pw.path})
}

// read lists pw and merges the listing; false when it could not
// (absent, an error: the path's state says which). found is what the
// listing found below a root watched whole (foundPaths; none for a path
// with a watch of its own).
func (rw *recursiveWatch) read(ctx context.Context, w *Watcher, pw *pathWatch, gen uint64) (ok bool, found foundPaths) {
	issued := w.cfg.Now()
	l, err := pooled(ctx, w, func() (listing, error) { return listChildren(ctx, w.s, pw.path) })
	return rw.takeListing(ctx, w, pw, gen, issued, l, err)
}

// listChildren lists the user's path p without a watch (the persistent
// watch covers it).
func listChildren(ctx context.Context, s *lockops.Session, p string) (listing, error) {
	kids, st, err := s.ChildrenStat(ctx, p)
	l := listing{names: kids, czxid: czxidOf(st)}
	if st != nil {
		l.cversion = st.Cversion
	}
	return l, err
}

// takeListing merges a listing of pw asked for at issued, or records why
// there is none (read); found as read's.
func (rw *recursiveWatch) takeListing(ctx context.Context, w *Watcher, pw *pathWatch, gen uint64, issued time.Time, l listing, err error) (ok bool, found foundPaths) {
	switch {
	case err == nil:
		rw.cversion, rw.seen = l.cversion, 0
		rw.setListed(issued)
		rw.resetNames(w, pw, l.names)
		pw.listed = true
		return true, pw.applyListing(ctx, w, l, gen, issued, issued)
	case ctx.Err() != nil:
		return false, nil
	case errors.Is(err, zk.ErrNoAuth):
		pw.noAuth = true
		return false, nil
	case errors.Is(err, zk.ErrNoNode):
		rw.resetNames(w, pw, nil)
		rw.cversion, rw.seen, pw.listed = 0, 0, true
		if !pw.kept(w) {
			w.mu.Lock()
			pw.removeLocked(w, w.cfg.Now())
			w.mu.Unlock()
			w.kickPublish()
			return false, nil
		}
		// The watch stays set on the absent path and says when it is
		// created.
		pw.setState(w, model.PathAbsent, "")
		return true, nil
	default:
		pw.failed(w, err)
		return false, nil
	}
}

// applyEvents merges a batch of the watch's events: children created and
// deleted change the listing without reading it; the path itself created
// or deleted is read again. found as read's.
func (rw *recursiveWatch) applyEvents(ctx context.Context, w *Watcher, pw *pathWatch, batch []zk.Event, gen uint64, issued, evAt time.Time) (ok bool, found foundPaths) {
	reread := false
	was := map[string]bool{}               // each child the batch names: was it there before
	var deleted, recreated map[string]bool // children deleted, then created again, in the batch
	// names change under the lock: a path watched through its root
	// follows what they hold (discover.go), read by other paths' workers.
	w.mu.Lock()
	for _, ev := range batch {
		switch p := w.s.EventPath(ev); {
		case p == pw.path:
			if ev.Type == zk.EventNodeCreated || ev.Type == zk.EventNodeDeleted {
				reread = true
			}
		case path.Dir(p) == pw.path:
			name := path.Base(p)
			if ev.Type != zk.EventNodeCreated && ev.Type != zk.EventNodeDeleted {
				continue
			}
			if (ev.Type == zk.EventNodeCreated) == rw.names.has(name) {
				// The listing holds it already: a change made between the
				// watch and the listing, counted in the listing's child
				// version, not to be counted again in seen.
				continue
			}
			if _, ok := was[name]; !ok {
				was[name] = rw.names.has(name)
			}
			if ev.Type == zk.EventNodeCreated {
				rw.names.add(name)
				if deleted[name] {
					recreated = setOf(recreated, name)
				}
			} else {
				rw.names.del(name)
				deleted = setOf(deleted, name)
			}
			rw.seen++
		}
	}
	w.mu.Unlock()
	if reread {
		return rw.read(ctx, w, pw, gen)
	}
	// A child deleted and made again is a new node: what was found
	// below the old one (its listing may have found it gone and dropped
	// it) is dropped, and the new one found afresh.
	for name := range recreated {
		if rw.names.has(name) && rw.forgetRecreated(w, pw, name) {
			was[name] = false
		}
	}
	var added, removed []string
	for name, before := range was {
		switch now := rw.names.has(name); {
		case now && !before:
			added = append(added, name)
		case !now && before:
			removed = append(removed, name)
		}
	}
	if len(removed) > 0 {
		pw.letGoKids(w, removed)
	}
	if len(added)+len(removed) == 0 {
		return true, nil
	}
	if taken, found := rw.discoveryDelta(w, pw, added, removed); taken {
		return true, found
	}
	kids := rw.names.names
	return true, rw.applyDelta(ctx, w, pw, added, removed, kids, gen, issued, evAt)
}

// unreported reads the path's stat and says whether its children changed
// more often than the watch (its events' channel ch) reported. ZooKeeper sends a watch's events
// before its reply to any later request, so once the stat is back every
// reported change made before it has been counted in seen or is still to
// be received (PersistentBacklog); judged only when nothing is left to
// receive, a child version ahead of seen is a change never reported.
func (rw *recursiveWatch) unreported(ctx context.Context, w *Watcher, pw *pathWatch, ch <-chan zk.Event) bool {
	if !pw.listed {
		return false
	}
	issued := w.cfg.Now()
	st := rw.barrier(ctx, w, pw)
	if st == nil || w.s.PersistentBacklog(ch) > 0 {
		return false // events to read first: the next audit judges
	}
	if st.Cversion-rw.cversion > rw.seen {
		return true
	}
	// Every change made before the barrier was asked for has been
	// received and applied: the next merge says so (Queue.ListedAt).
	rw.setListed(issued)
	return false
}

// auditEvery spaces the audits of one path (unreported): every 2 s for
// a few paths, less often for many, so that all audits together stay
// under about 200 small requests a second.
func (rw *recursiveWatch) auditEvery(w *Watcher) time.Duration {
	w.mu.Lock()
	n := len(w.paths)
	w.mu.Unlock()
	return min(max(time.Duration(n)*5*time.Millisecond, 2*time.Second), 30*time.Second)
}

// dropWatch removes the path's watch from the server once the path is
// no longer watched (best effort: a lost link drops it anyway).
func (rw *recursiveWatch) dropWatch(w *Watcher, pw *pathWatch) {
	if pw.ctx().Err() == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), dropWatchWait)
		defer cancel()
		_ = w.s.RemovePersistentWatch(ctx, pw.path)
	}()
}

// dropWatchWait bounds the wait for the server's answer to a watch's
// removal; the client drops its side at once if the link fails, and the
// server's copy goes with the connection.
const dropWatchWait = 10 * time.Second

// applyDelta merges children added and removed by a watch's events into
// pw's model; kids is the whole list after them (rw.names), for the
// listing merge when the change is not one a queue can take as a change.
// found as read's: only the listing merge finds children.
func (rw *recursiveWatch) applyDelta(ctx context.Context, w *Watcher, pw *pathWatch, added, removed []string, kids func() []string, gen uint64, issued, evAt time.Time) foundPaths {
	w.mu.Lock()
	qm := pw.qm
	if qm != nil {
		qm.SetEventAt(evAt) // the queue was not quiet (judgeLink)
	}
	ok := !pw.removed && qm != nil && rw.deltaFitsLocked(w, pw, qm)
	w.mu.Unlock()
	if !ok {
		return pw.applyListing(ctx, w, listing{names: kids()}, gen, issued, evAt)
	}

	// Only the path's goroutine (this one) changes qm.order, and only
	// under the lock (ChangeOwned changes it in place, and builds read it
	// under the lock): reading it here without the lock is safe. Whether
	// the change fits is asked before the reads, so that a change left to
	// the listing merge reads each new node once, there.
	start := time.Now()
	if !qm.Order().Fits(added) { // a lone parent's order derived: once per change
		return pw.applyListing(ctx, w, listing{names: kids()}, gen, issued, evAt)
	}
	cost := time.Since(start)
	got := pw.fetch(ctx, w, added)
	if ctx.Err() != nil {
		return nil
	}
	for _, f := range got {
		if f.Gone {
			removed = append(removed, f.Name) // deleted since: its event follows
		}
	}

	w.mu.Lock()
	if gen != 0 && w.gen != gen || pw.removed {
		w.mu.Unlock()
		return nil
	}
	start = time.Now()
	prev := qm.Order()
	before := queue.PriorOf(prev, removed)
	order, touched, fits := prev.ChangeOwned(added, removed)
	if !fits {
		w.mu.Unlock()
		return pw.applyListing(ctx, w, listing{names: kids()}, gen, issued, evAt)
	}
	defer w.mu.Unlock()
	w.huge.listedLocked(pw, issued, len(order.Entries))
	qm.ApplyChange(order, touched, before, got, issued, w.cfg.Now(), evAt)
	w.stats.changeMerges++
	w.huge.mergedLocked(pw, cost+time.Since(start))
	pw.setReadLocked(w)
	w.markDirtyLocked()
	w.kickPublish()
	return nil
}

// deltaFitsLocked: pw's model can take a change without its listing. Not
// when it is more than a queue of lock nodes: a path not read yet, absent
// or refused; one with other children (semaphores, discovery, a plain
// ephemeral lock's node), or one a semaphore reads beside its own.
func (rw *recursiveWatch) deltaFitsLocked(w *Watcher, pw *pathWatch, qm *queue.Tracker) bool {
	if !qm.Seen || qm.State() != model.PathPresent || qm.Lone() != nil || qm.LockCount() == 0 || len(qm.Other()) > 0 {
		return false
	}
	if _, isAux := w.sems.auxOf[pw.path]; isAux {
		return false
	}
	_, isSem := w.sems.owners[pw.path]
	return !isSem
}

// setOf adds k to the set m, made at the first.
func setOf(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}

// forgetRecreated stops following pw's child k, deleted and made again
// (a parent deleted and made again under its name is a new parent), so
// that it is found again as a new child; false when k is no child pw
// follows (a lock node: nothing is found below it).
func (rw *recursiveWatch) forgetRecreated(w *Watcher, pw *pathWatch, k string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if pw.removed {
		return false
	}
	c, watched := w.paths[model.ChildPath(pw.path, k)]
	if pw.rp != nil {
		// No record of the children followed (discover.go): any child
		// but a lock node may be one, and may have left the watch when
		// its own read found it gone, unseen by pw.
		if _, isLock := ordering.ParseName(k); isLock {
			return false
		}
		if watched && c.discover && !c.keep() {
			c.removeLocked(w, w.cfg.Now())
		}
		return true
	}
	if _, followed := pw.followed()[k]; !followed {
		return false
	}
	delete(pw.followed(), k)
	if watched && !c.keep() {
		c.removeLocked(w, w.cfg.Now())
	}
	return true
}
