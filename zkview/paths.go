package zkview

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
)

// pathFlags say why a path is watched; a path may be watched for several
// reasons at once (a configured lock parent under a root).
type pathFlags struct {
	explicit bool // in Config.Paths: a queue even while empty or absent
	root     bool // in Config.Roots: watched while absent
	discover bool // under a root: its children are searched
	depth    int  // levels below its root
}

// keep: the path stays watched (as absent) when it does not exist.
func (f pathFlags) keep() bool { return f.explicit || f.root }

// pathWatch is one watched znode and the goroutine that holds its
// children watch. Its fields are guarded by Watcher.mu.
type pathWatch struct {
	path, abs string
	pathFlags
	ctx       context.Context
	cancel    context.CancelFunc
	kids      map[string]bool // children watched for discovery
	read      bool            // read once: counted out of initPending
	removed   bool
	lastList  time.Time
	lastSize  int
	applyCost time.Duration // CPU time of the last merge (Order and diff)
}

// addPathLocked starts watching p, or adds reasons to an existing watch.
func (w *Watcher) addPathLocked(p string, f pathFlags) {
	if pw, ok := w.paths[p]; ok {
		if f.discover && (!pw.discover || f.depth < pw.depth) {
			pw.depth = f.depth
		}
		pw.explicit = pw.explicit || f.explicit
		pw.root = pw.root || f.root
		pw.discover = pw.discover || f.discover
		if pw.explicit {
			w.ensureQueueLocked(pw)
		}
		return
	}
	if w.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithCancel(w.ctx)
	pw := &pathWatch{path: p, abs: w.s.Abs(p), pathFlags: f, ctx: ctx, cancel: cancel, kids: map[string]bool{}}
	w.paths[p] = pw
	if !f.keep() {
		w.discovered++
	}
	if f.explicit {
		w.ensureQueueLocked(pw)
	}
	w.initPending++
	w.wg.Add(1)
	go w.runPath(pw)
}

// removePathLocked stops watching pw and, recursively, what was found
// below it. A discovered queue leaves the model.
func (w *Watcher) removePathLocked(pw *pathWatch, now time.Time) {
	if pw.removed {
		return
	}
	pw.removed = true
	pw.cancel()
	delete(w.paths, pw.path)
	if !pw.keep() {
		w.discovered--
	}
	for kid := range pw.kids {
		if c, ok := w.paths[model.ChildPath(pw.path, kid)]; ok && !c.keep() {
			w.removePathLocked(c, now)
		}
	}
	if qm, ok := w.queues[pw.path]; ok {
		delete(w.queues, pw.path)
		i, found := slices.BinarySearch(w.sortedPaths, pw.path)
		if found {
			w.sortedPaths = slices.Delete(w.sortedPaths, i, i+1)
		}
		if qm.state == model.PathPresent {
			w.emitLocked(model.Event{At: now, Kind: model.EventPath, Path: pw.path,
				Text: fmt.Sprintf("%s vanished (it held %d lock nodes)", model.SanitizeString(pw.path, 0), len(qm.order.Entries))})
		}
	}
	w.setReadLocked(pw)
	w.markDirtyLocked()
}

// setReadLocked counts pw out of the paths Load waits for.
func (w *Watcher) setReadLocked(pw *pathWatch) {
	if pw.read {
		return
	}
	pw.read = true
	w.initPending--
	if w.initPending == 0 && !w.initClosed {
		w.initClosed = true
		close(w.initDone)
	}
}

// ensureQueueLocked makes pw a lock parent of the model.
func (w *Watcher) ensureQueueLocked(pw *pathWatch) *queueModel {
	if qm, ok := w.queues[pw.path]; ok {
		return qm
	}
	qm := newQueueModel(pw.path, pw.abs)
	qm.election = w.cfg.isElection(pw.path)
	w.queues[pw.path] = qm
	i, _ := slices.BinarySearch(w.sortedPaths, pw.path)
	w.sortedPaths = slices.Insert(w.sortedPaths, i, pw.path)
	w.markDirtyLocked()
	return qm
}

// runPath holds pw's children watch: list (arming the watch), apply,
// wait for the watch, a reconnection or a retry timer, and again.
func (w *Watcher) runPath(pw *pathWatch) {
	defer w.wg.Done()
	if !w.oneShot && w.watchMode() == model.ModeRecursive && w.runPathRecursive(pw) {
		return
	}
	ctx := pw.ctx
	var evAt time.Time // when the event that asked for this listing came
	for ctx.Err() == nil {
		// resync before gen: a new session after the first closes resync,
		// so a listing dropped for its generation is always made again.
		resync := w.resyncCh()
		gen := w.genNow()
		if !w.waitSynced(ctx) {
			return
		}
		w.spaceHugeRelist(ctx, pw)
		issued := w.cfg.Now()
		if evAt.IsZero() {
			evAt = issued
		}
		var (
			watch <-chan zk.Event
			retry time.Duration
		)
		kids, err := pooled(ctx, w, func() (listing, error) {
			if w.oneShot {
				kids, st, err := w.s.ChildrenStat(ctx, pw.path)
				return listing{names: kids, czxid: czxidOf(st)}, err
			}
			kids, st, ch, err := w.s.ChildrenW(ctx, pw.path)
			return listing{names: kids, ch: ch, czxid: czxidOf(st)}, err
		})
		read := false // the path's state is known: a one-shot watcher is done
		switch {
		case err == nil:
			watch, read = kids.ch, true
			w.applyListing(ctx, pw, kids, gen, issued, evAt)
		case ctx.Err() != nil:
			return
		case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrNoAuth):
			if !w.pathKept(pw) {
				w.mu.Lock()
				w.removePathLocked(pw, w.cfg.Now())
				w.mu.Unlock()
				w.kickPublish()
				return
			}
			// Exists needs no read permission, so it watches a NoAuth path
			// for deletion too.
			ex, eerr := pooled(ctx, w, func() (existence, error) {
				if w.oneShot {
					ok, _, err := w.s.Exists(ctx, pw.path)
					return existence{ok: ok}, err
				}
				ok, _, ch, err := w.s.ExistsW(ctx, pw.path)
				return existence{ok, ch}, err
			})
			switch {
			case eerr != nil && ctx.Err() != nil:
				return
			case eerr != nil:
				retry = w.pathFailed(pw, eerr)
			case !ex.ok:
				w.setPathState(pw, model.PathAbsent, "")
				watch, read = ex.ch, true
			case errors.Is(err, zk.ErrNoNode):
				evAt = time.Time{}
				continue // created in between: list it now
			default:
				w.setPathState(pw, model.PathNoAuth, fmt.Sprintf("not allowed to list %s: %v", model.SanitizeString(pw.path, 0), err))
				watch, retry, read = ex.ch, noAuthRetry, true
			}
		default:
			retry = w.pathFailed(pw, err)
			read = retry > 0
		}
		if w.oneShot && read {
			return
		}
		evAt = time.Time{}
		if !w.waitPath(ctx, watch, resync, retry) {
			return
		}
		evAt = w.cfg.Now()
		w.mu.Lock()
		if qm, ok := w.queues[pw.path]; ok {
			qm.eventAt = evAt
		}
		w.mu.Unlock()
	}
}

// listing is one ChildrenW result.
type listing struct {
	names []string
	ch    <-chan zk.Event
	// czxid is the parent's identity: a parent deleted and created again
	// between two listings (one multi-op can do it unseen) has a new one,
	// and its counter restarts, so its nodes may reuse the old names.
	czxid int64
	// cversion is the parent's child version when listed.
	cversion int32
}

func czxidOf(st *zk.Stat) int64 {
	if st == nil {
		return 0
	}
	return st.Czxid
}

// existence is one ExistsW result.
type existence struct {
	ok bool
	ch <-chan zk.Event
}

// pathKept reads pw's flags under the lock.
func (w *Watcher) pathKept(pw *pathWatch) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return pw.keep()
}

// pathFailed records a failed read and says when to try again (0: at the
// next reconnection).
func (w *Watcher) pathFailed(pw *pathWatch, err error) time.Duration {
	if connLoss(err) {
		return 0
	}
	w.setPathState(pw, model.PathError, fmt.Sprintf("reading %s: %v", model.SanitizeString(pw.path, 0), err))
	return retryEvery
}

// waitPath waits for the path's watch to fire, the session to reconnect,
// or retry to pass; false when the path is no longer watched. A watch
// that go-zookeeper gave up (session expired) waits for the reconnection.
func (w *Watcher) waitPath(ctx context.Context, watch <-chan zk.Event, resync <-chan struct{}, retry time.Duration) bool {
	var timer <-chan time.Time
	if retry > 0 {
		t := time.NewTimer(retry)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-ctx.Done():
		return false
	case ev, ok := <-watch:
		if ok && ev.Type != zk.EventNotWatching {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-resync:
		}
	case <-resync:
	case <-timer:
	}
	return true
}

// spaceHugeRelist delays the re-list of a huge parent so that a burst of
// changes is read in one listing.
func (w *Watcher) spaceHugeRelist(ctx context.Context, pw *pathWatch) {
	w.mu.Lock()
	last, size, cost := pw.lastList, pw.lastSize, pw.applyCost
	w.mu.Unlock()
	if size <= hugeQueue {
		return
	}
	// At least twice what merging the last listing cost: a busy huge
	// queue takes at most a third of a core.
	wait := time.Until(last.Add(max(time.Duration(size)*relistPerChild, 2*cost)))
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// setPathState records that pw could not be listed (absent, NoAuth,
// error); its queue, if it is one, is emptied.
func (w *Watcher) setPathState(pw *pathWatch, st model.PathState, msg string) {
	now := w.cfg.Now()
	w.mu.Lock()
	defer w.kickPublish()
	defer w.mu.Unlock()
	if pw.removed {
		return
	}
	if qm, ok := w.queues[pw.path]; ok {
		qm.setState(w, st, msg, now)
	}
	// What was found below a path that went away is gone too.
	if st == model.PathAbsent {
		for kid := range pw.kids {
			if c, ok := w.paths[model.ChildPath(pw.path, kid)]; ok && !c.keep() {
				w.removePathLocked(c, now)
			}
		}
		clear(pw.kids)
	}
	w.setReadLocked(pw)
	w.markDirtyLocked()
}

// applyListing merges one listing into the model: discovery below pw,
// then, for a lock parent, the queue (new nodes fetched first).
//
// gen is the session generation the listing was made in: when a new
// session began meanwhile, what was read may come from a server that had
// not caught up (see syncNewSession), and is dropped; the new session's
// re-listing reads it again.
func (w *Watcher) applyListing(ctx context.Context, pw *pathWatch, l listing, gen uint64, issued, evAt time.Time) {
	kids := l.names
	w.mu.Lock()
	if pw.removed {
		w.mu.Unlock()
		return
	}
	now := w.cfg.Now()
	pw.lastList, pw.lastSize = issued, len(kids)
	w.semaphoreListingLocked(pw, kids) // before discovery (semwatch.go)
	if pw.discover {
		w.discoverLocked(pw, kids)
	}
	qm := w.queues[pw.path]
	if qm == nil && pw.discover && hasLockChild(kids) {
		if len(w.queues) < w.cfg.MaxParents {
			qm = w.ensureQueueLocked(pw)
			w.emitLocked(model.Event{At: now, Kind: model.EventPath, Path: pw.path,
				Text: fmt.Sprintf("found lock parent %s", model.SanitizeString(pw.path, 0))})
		} else if !w.capped {
			w.capped = true
			w.emitLocked(model.Event{At: now, Kind: model.EventInfo, Path: pw.path,
				Text: fmt.Sprintf("discovery stopped at %d lock parents (MaxParents)", w.cfg.MaxParents)})
		}
	}
	var need []string
	if qm != nil {
		qm.checkIdentity(w, l.czxid, now)
		need = qm.needFetch(kids)
	}
	w.mu.Unlock()

	got := w.fetch(ctx, pw.path, need)
	lone := w.fetchLone(ctx, pw, qm != nil, kids)
	w.fetchSemaphoreParts(ctx, pw, kids)
	if ctx.Err() != nil {
		return
	}

	w.mu.Lock()
	if gen != 0 && w.gen != gen {
		w.mu.Unlock()
		return
	}
	if !pw.removed {
		if qm != nil {
			start := time.Now()
			qm.apply(w, kids, got, issued, w.cfg.Now(), evAt)
			qm.lone = lone
			pw.applyCost = time.Since(start)
		}
		w.setReadLocked(pw)
		w.markDirtyLocked()
	}
	w.mu.Unlock()
	w.kickPublish()
}

// hasLockChild: a node with a lock node among its children is a lock
// parent.
func hasLockChild(kids []string) bool {
	for _, k := range kids {
		if _, ok := lockops.ParseName(k); ok {
			return true
		}
	}
	return false
}

// discoverLocked follows pw's children that may lead to lock parents:
// every child that is not a lock node, while depth allows.
func (w *Watcher) discoverLocked(pw *pathWatch, kids []string) {
	present := make(map[string]bool, len(kids))
	for _, k := range kids {
		present[k] = true
	}
	now := w.cfg.Now()
	for k := range pw.kids {
		if !present[k] {
			delete(pw.kids, k)
			if c, ok := w.paths[model.ChildPath(pw.path, k)]; ok && !c.keep() {
				w.removePathLocked(c, now)
			}
		}
	}
	if pw.depth >= w.cfg.MaxDepth {
		return
	}
	for _, k := range kids {
		if pw.kids[k] {
			continue
		}
		if _, isLock := lockops.ParseName(k); isLock {
			continue // lock nodes are ephemeral: nothing below them
		}
		child := model.ChildPath(pw.path, k)
		if pw.path == "/" && k == "zookeeper" {
			continue // the server's own tree holds no locks
		}
		if _, watched := w.paths[child]; !watched && w.discovered >= maxDiscoveryNodes {
			if !w.capped {
				w.capped = true
				w.emitLocked(model.Event{At: now, Kind: model.EventInfo, Path: pw.path,
					Text: fmt.Sprintf("discovery stopped at %d watched nodes", maxDiscoveryNodes)})
			}
			continue
		}
		pw.kids[k] = true
		w.addPathLocked(child, pathFlags{discover: true, depth: pw.depth + 1})
	}
}

// fetched is one Get's outcome for a new node.
type fetched struct {
	name string
	rec  *nodeRec // nil when the node was gone or the read failed
	gone bool     // deleted since the listing
}

// fetch reads the stat and first bytes of each named child of dir,
// maxInFlight at a time over the one connection.
func (w *Watcher) fetch(ctx context.Context, dir string, names []string) []fetched {
	out := make([]fetched, len(names))
	if len(names) == 0 {
		return out
	}
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(len(names), maxInFlight) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(names) || ctx.Err() != nil {
					return
				}
				out[i] = w.fetchOne(ctx, model.ChildPath(dir, names[i]), names[i])
			}
		}()
	}
	wg.Wait()
	return out
}

// fetchOne reads the node at p, called name in what it returns.
func (w *Watcher) fetchOne(ctx context.Context, p, name string) fetched {
	type got struct {
		data []byte
		st   *zk.Stat
	}
	g, err := pooled(ctx, w, func() (got, error) {
		data, st, err := w.s.Get(ctx, p)
		return got{data, st}, err
	})
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return fetched{name: name, gone: true}
	case err != nil:
		// Unknown for now (link lost, NoAuth on the node): shown without
		// owner or data, read again with the next listing.
		return fetched{name: name}
	}
	keep := min(len(g.data), w.cfg.DataBytes)
	return fetched{name: name, rec: &nodeRec{
		fetched: true,
		session: g.st.EphemeralOwner,
		data:    slices.Clone(g.data[:keep]),
		dataLen: g.st.DataLength,
		ctime:   time.UnixMilli(g.st.Ctime),
		mtime:   time.UnixMilli(g.st.Mtime),
		version: g.st.Version,
		czxid:   g.st.Czxid,
	}}
}
