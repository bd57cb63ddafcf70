package zkview

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview/queue"
)

// pathFlags say why a path is watched; a path may be watched for several
// reasons at once (a configured lock parent under a root).
type pathFlags struct {
	explicit bool  // in Options.Paths: a queue even while empty or absent
	root     bool  // in Options.Roots: watched while absent
	discover bool  // under a root: its children are searched
	depth    int32 // levels below its root (beside the flags: 8 bytes, not 16)
	// via is the root watch that covers the path when it was found
	// below a root watched whole (rootwatch.go), and then while pw.rp
	// is set (rootOf); nil: a watch of its own.
	via *rootWatch
}

// keep: the path stays watched (as absent) when it does not exist.
func (f pathFlags) keep() bool { return f.explicit || f.root }

// pathWatch is one watched znode and the goroutine that holds its
// children watch (run): it lists the path, merges what it read into the
// Watcher's model and waits for the next change. Its fields are guarded by
// Watcher.mu, which its methods named ...Locked require held. It keeps no
// pointer to its Watcher: the goroutine or worker that works on it hands
// the Watcher down (its lock, model and session) to each method that
// needs it.
//
// A root keeps one for each of up to a million parents, made in one
// allocation with the path's rootPath (rootedPath): what only a huge
// queue uses is kept beside the Watcher (Watcher.huge), what only a
// path with a goroutine of its own uses behind own (a path below a root
// shares the root's context, and its watch's names say which children
// it follows), the path's lock parent model is the path's (no second map
// by path), the path on the server is asked of the session (absPath),
// and the small fields sit together, so that a pathWatch fits in 64
// bytes and a rootedPath in 112 (TestPathWatchSize).
type pathWatch struct {
	path string
	pathFlags
	// own is what a path with a goroutine of its own keeps; nil for a
	// path watched through its root.
	own *ownWatch
	// qm is the path's model when the path is a lock parent (or a
	// semaphore's part) of the model, nil otherwise (queueLocked).
	qm      *queue.Tracker
	read    bool // read once: counted out of initPending
	removed bool
	// busy and relist are the root's work for the path (rp): queued or
	// being worked on, and to be listed (first read, re-sync).
	busy, relist bool
	// noAuth and listed are its recursive watch's (recursiveWatch), kept
	// here among the flags: noAuth, the path may not be listed (children
	// watches handle it); listed, the watch's names hold a listing (nil
	// names: no child), or the path was found absent. Each watch set
	// starts with both false (newRecursive).
	noAuth, listed bool
	// rp: the path is watched through its root's recursive watch, with
	// no goroutine of its own (rootwatch.go); nil otherwise.
	rp *rootPath
}

// rootedPath is a path found below a root watched whole: its pathWatch
// and its rootPath in one allocation (a root keeps up to a million).
type rootedPath struct {
	pw pathWatch
	rp rootPath
}

// ownWatch is what a path with a goroutine and a watch of its own keeps:
// its context, the cancel that ends them (removeLocked), and the
// children it follows for discovery (discover.go).
type ownWatch struct {
	context.Context
	cancel context.CancelFunc
	kids   map[string]struct{} // made at the first (followKid)
}

// newOwnWatch is a context below parent that removeLocked can end, and
// no child followed yet.
func newOwnWatch(parent context.Context) *ownWatch {
	ctx, cancel := context.WithCancel(parent)
	return &ownWatch{Context: ctx, cancel: cancel}
}

// ctx ends when pw is no longer watched: its own, or its root's when
// it is watched through its root (pw.via).
func (pw *pathWatch) ctx() context.Context {
	if pw.own != nil {
		return pw.own
	}
	return pw.via.ctx
}

// cancelOwn ends pw's context when it is pw's own (not its root's).
func (pw *pathWatch) cancelOwn() {
	if pw.own != nil {
		pw.own.cancel()
	}
}

// absPath is pw's path on the server.
func (pw *pathWatch) absPath(w *Watcher) string { return w.s.Abs(pw.path) }

// removeLocked stops watching pw and, recursively, what was found
// below it. A discovered queue leaves the model.
func (pw *pathWatch) removeLocked(w *Watcher, now time.Time) {
	if pw.removed {
		return
	}
	pw.removed = true
	pw.cancelOwn()
	delete(w.paths, pw.path)
	w.huge.forgetLocked(pw)
	if !pw.keep() {
		w.discovered--
	}
	pw.dropKidsLocked(w, now)
	if qm := pw.qm; qm != nil {
		pw.setQueueLocked(w, nil)
		i, found := slices.BinarySearch(w.sortedPaths, pw.path)
		if found {
			w.sortedPaths = slices.Delete(w.sortedPaths, i, i+1)
			w.reshownLocked(pw.path)
		}
		if qm.State() == model.PathPresent {
			w.emitLocked(model.Change{At: now, Kind: model.ChangePathVanished, Path: pw.path, State: model.PathAbsent, Unwatched: true, Count: qm.LockCount()})
		}
	}
	pw.setReadLocked(w)
	if rt := pw.rootOf(); rt != nil {
		rt.forgetLocked(pw)
	}
	w.markDirtyLocked()
}

// setReadLocked counts pw out of the paths Load waits for.
func (pw *pathWatch) setReadLocked(w *Watcher) {
	if pw.read {
		return
	}
	pw.read = true
	if rt := pw.rootOf(); rt != nil {
		rt.read++
	}
	w.initPending--
	if w.initPending == 0 && !w.initClosed {
		w.initClosed = true
		close(w.initDone)
	}
}

// setQueueLocked makes qm pw's model (nil: none), counted in
// Watcher.models.
func (pw *pathWatch) setQueueLocked(w *Watcher, qm *queue.Tracker) {
	switch {
	case pw.qm == nil && qm != nil:
		w.models++
	case pw.qm != nil && qm == nil:
		w.models--
	}
	pw.qm = qm
}

// ensureQueueLocked makes pw a lock parent of the model.
func (pw *pathWatch) ensureQueueLocked(w *Watcher) *queue.Tracker {
	if pw.qm != nil {
		return pw.qm
	}
	qm := w.newModelLocked(pw.path, pw.absPath(w))
	qm.Election = w.cfg.isElection(pw.path)
	pw.setQueueLocked(w, qm)
	i, _ := slices.BinarySearch(w.sortedPaths, pw.path)
	w.sortedPaths = slices.Insert(w.sortedPaths, i, pw.path)
	w.reshownLocked(pw.path)
	w.markDirtyLocked()
	return qm
}

// readUnread reads the paths a one-shot read was given (Watcher.unread:
// its paths and roots; what is found below a root goes through the
// root's queue, rootread.go) one after another until none is left, in
// at most oneShotReaders goroutines, not one per path.
func readUnread(w *Watcher) {
	for {
		w.mu.Lock()
		if len(w.unread) == 0 {
			w.readers--
			w.mu.Unlock()
			return
		}
		pw := w.unread[0]
		w.unread[0] = nil
		w.unread = w.unread[1:]
		w.mu.Unlock()
		pw.run(w)
	}
}

// run holds pw's children watch: list (arming the watch), apply,
// wait for the watch, a reconnection or a retry timer, and again.
func (pw *pathWatch) run(w *Watcher) {
	defer w.wg.Done()
	// root can turn true later (a path named again as a root), under mu.
	w.mu.Lock()
	root := pw.root
	w.mu.Unlock()
	switch {
	case w.oneShot && root && pw.rp == nil:
		if readRoot(w, pw) {
			return
		}
	case w.oneShot || w.watchMode() != model.ModeRecursive:
	case root && pw.rp == nil:
		if watchRoot(w, pw) {
			return
		}
	case runRecursive(w, pw):
		return
	}
	ctx := pw.ctx()
	var evAt time.Time // when the event that asked for this listing came
	for ctx.Err() == nil {
		// resync before gen: a new session after the first closes resync,
		// so a listing dropped for its generation is always made again.
		resync := w.resyncCh()
		gen := w.genNow()
		if !w.waitSynced(ctx) {
			return
		}
		w.mu.Lock()
		wait := w.huge.relistWaitLocked(pw)
		w.mu.Unlock()
		sleepCtx(ctx, wait)
		issued := w.cfg.Now()
		if evAt.IsZero() {
			evAt = issued
		}
		o := pw.list(ctx, w, gen, issued, evAt)
		switch {
		case o.stop:
			return
		case o.again:
			evAt = time.Time{}
			continue // created in between: list it now
		}
		if w.oneShot && o.read {
			return
		}
		evAt = time.Time{}
		if !waitPath(ctx, o.watch, resync, o.retry) {
			return
		}
		evAt = w.cfg.Now()
		w.mu.Lock()
		if qm := pw.qm; qm != nil {
			qm.SetEventAt(evAt)
		}
		w.mu.Unlock()
	}
}

// listOutcome is what one attempt to list a path (list) leaves run to
// wait for.
type listOutcome struct {
	watch <-chan zk.Event // the watch set, nil when none
	retry time.Duration   // try again after it (0: at the next reconnection)
	read  bool            // the path's state is known: a one-shot watcher is done
	stop  bool            // the path is no longer watched
	again bool            // the path was created in between: list it now
}

// list lists pw once, arming its children watch, and merges the listing
// (gen, issued, evAt: see applyListing); a path that cannot be listed is
// watched for existence (unlisted).
func (pw *pathWatch) list(ctx context.Context, w *Watcher, gen uint64, issued, evAt time.Time) listOutcome {
	kids, err := pooled(ctx, w, func() (listing, error) {
		if w.oneShot {
			kids, st, err := w.s.ChildrenStat(ctx, pw.path)
			l := listing{names: kids, czxid: czxidOf(st)}
			if st != nil {
				l.pzxid = st.Pzxid // the read's proof of its cycles' age
			}
			return l, err
		}
		kids, st, ch, err := w.s.ChildrenW(ctx, pw.path)
		return listing{names: kids, ch: ch, czxid: czxidOf(st)}, err
	})
	switch {
	case err == nil:
		pw.applyListing(ctx, w, kids, gen, issued, evAt) // finds nothing below a root (foundPaths)
		return listOutcome{watch: kids.ch, read: true}
	case ctx.Err() != nil:
		return listOutcome{stop: true}
	case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrNoAuth):
		return pw.unlisted(ctx, w, err)
	default:
		retry := pw.failed(w, err)
		return listOutcome{retry: retry, read: retry > 0}
	}
}

// unlisted answers a listing refused with err (NoNode, NoAuth): a path
// not kept leaves the watch; a kept one is watched with exists until it
// appears or may be listed.
func (pw *pathWatch) unlisted(ctx context.Context, w *Watcher, err error) listOutcome {
	if !pw.kept(w) {
		w.mu.Lock()
		pw.removeLocked(w, w.cfg.Now())
		w.mu.Unlock()
		w.kickPublish()
		return listOutcome{stop: true}
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
		return listOutcome{stop: true}
	case eerr != nil:
		return listOutcome{retry: pw.failed(w, eerr)}
	case !ex.ok:
		pw.setState(w, model.PathAbsent, "")
		return listOutcome{watch: ex.ch, read: true}
	case errors.Is(err, zk.ErrNoNode):
		return listOutcome{again: true}
	default:
		pw.setState(w, model.PathNoAuth, fmt.Sprintf("not allowed to list %s: %v", model.SanitizeString(pw.path, 0), err))
		return listOutcome{watch: ex.ch, retry: noAuthRetry, read: true}
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
	// pzxid is the zxid of the parent's last child change, kept by a
	// one-off read only (queue.Tracker.SetPzxid).
	pzxid int64
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

// kept reads pw's flags under the lock.
func (pw *pathWatch) kept(w *Watcher) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return pw.keep()
}

// failed records a failed read and says when to try again (0: at the
// next reconnection).
func (pw *pathWatch) failed(w *Watcher, err error) time.Duration {
	if connLoss(err) {
		return 0
	}
	pw.setState(w, model.PathError, fmt.Sprintf("reading %s: %v", model.SanitizeString(pw.path, 0), err))
	return retryEvery
}

// waitPath waits for the path's watch to fire, the session to reconnect,
// or retry to pass; false when the path is no longer watched. A watch
// that go-zookeeper gave up (session expired) waits for the reconnection.
func waitPath(ctx context.Context, watch <-chan zk.Event, resync <-chan struct{}, retry time.Duration) bool {
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

// setState records that pw could not be listed (absent, NoAuth,
// error); its queue, if it is one, is emptied.
func (pw *pathWatch) setState(w *Watcher, st model.PathState, msg string) {
	now := w.cfg.Now()
	w.mu.Lock()
	defer w.kickPublish()
	defer w.mu.Unlock()
	if pw.removed {
		return
	}
	if qm := pw.qm; qm != nil {
		qm.SetState(st, msg, now)
	}
	// What was found below a path that went away is gone too.
	if st == model.PathAbsent {
		pw.dropKidsLocked(w, now)
	}
	pw.setReadLocked(w)
	w.markDirtyLocked()
}

// applyListing merges one listing into the model: discovery below pw,
// then, for a lock parent, the queue (new nodes fetched first). It
// returns the children found below a root watched whole, for the root's
// worker to queue (foundPaths): whatever else happens, they are
// registered with the Watcher already.
//
// gen is the session generation the listing was made in: when a new
// session began meanwhile, what was read may come from a server that had
// not caught up (see syncNewSession), and is dropped; the new session's
// re-listing reads it again.
func (pw *pathWatch) applyListing(ctx context.Context, w *Watcher, l listing, gen uint64, issued, evAt time.Time) (found foundPaths) {
	kids := l.names
	w.mu.Lock()
	if pw.removed {
		w.mu.Unlock()
		return nil
	}
	now := w.cfg.Now()
	w.huge.listedLocked(pw, issued, len(kids))
	w.sems.listingLocked(pw, kids) // before discovery (semwatch.go)
	if pw.discover {
		found = pw.discoverLocked(w, kids)
	}
	qm := pw.qm
	if qm == nil && pw.discover && hasLockChild(kids) {
		if w.models < w.cfg.MaxParents {
			qm = pw.ensureQueueLocked(w)
			w.emitLocked(model.Change{At: now, Kind: model.ChangePathFound, Path: pw.path})
		} else if !w.capped {
			w.capped = true
			w.emitLocked(model.Change{At: now, Kind: model.ChangeParentsCapped, Path: pw.path, Count: w.cfg.MaxParents})
		}
	}
	var need []string
	if qm != nil {
		qm.CheckIdentity(l.czxid, now)
		qm.SetPzxid(l.pzxid)
		need = qm.NeedFetch(kids)
	}
	w.mu.Unlock()

	got := pw.fetch(ctx, w, need)
	lone := fetchLone(ctx, w, pw, qm != nil, kids)
	w.sems.fetchParts(ctx, pw, kids)
	if ctx.Err() != nil {
		return found
	}

	w.mu.Lock()
	if gen != 0 && w.gen != gen {
		w.mu.Unlock()
		return found
	}
	if !pw.removed {
		if qm != nil {
			start := time.Now()
			qm.Apply(kids, got, issued, w.cfg.Now(), evAt)
			qm.SetLone(lone)
			w.huge.mergedLocked(pw, time.Since(start))
		}
		pw.setReadLocked(w)
		w.markDirtyLocked()
	}
	w.mu.Unlock()
	w.kickPublish()
	return found
}

// hasLockChild: a node with a lock node among its children is a lock
// parent.
func hasLockChild(kids []string) bool {
	for _, k := range kids {
		if _, ok := ordering.ParseName(k); ok {
			return true
		}
	}
	return false
}

// fetch reads the stat and first bytes of each named child of dir,
// maxInFlight at a time over the one connection.
func (pw *pathWatch) fetch(ctx context.Context, w *Watcher, names []string) []queue.Fetched {
	dir := pw.path
	out := make([]queue.Fetched, len(names))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	read := func() {
		for i := int(next.Add(1) - 1); i < len(names) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
			out[i] = pw.fetchOne(ctx, w, model.ChildPath(dir, names[i]), names[i])
		}
	}
	// This goroutine reads too: one new node, the usual change, makes none.
	for range min(len(names), maxInFlight) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			read()
		}()
	}
	read()
	wg.Wait()
	return out
}

// fetchOne reads the node at p, called name in what it returns.
func (pw *pathWatch) fetchOne(ctx context.Context, w *Watcher, p, name string) queue.Fetched {
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
		return queue.Fetched{Name: name, Gone: true}
	case err != nil:
		// Unknown for now (link lost, NoAuth on the node): shown without
		// owner or data, read again with the next listing.
		return queue.Fetched{Name: name}
	}
	keep := min(len(g.data), w.cfg.DataBytes)
	rec := &queue.Record{
		Fetched: true,
		Session: g.st.EphemeralOwner,
		DataLen: g.st.DataLength,
		CtimeMs: g.st.Ctime,
		MtimeMs: g.st.Mtime,
		Version: g.st.Version,
		Czxid:   g.st.Czxid,
	}
	rec.SetData(g.data[:keep])
	return queue.Fetched{Name: name, Rec: rec}
}

// fetchLone reads the node that would make pw a plain ephemeral lock
// (see the file comment), when the listing kids can show one: nil when
// it cannot, or the node is not ephemeral. isQueue: pw is a lock parent
// of the model.
func fetchLone(ctx context.Context, w *Watcher, pw *pathWatch, isQueue bool, kids []string) *queue.LoneNode {
	if !isQueue {
		return nil
	}
	var f queue.Fetched
	switch {
	case len(kids) == 0:
		w.mu.Lock()
		explicit := pw.explicit
		w.mu.Unlock()
		if !explicit || pw.absPath(w) == "/" {
			return nil
		}
		f = pw.fetchOne(ctx, w, pw.path, path.Base(pw.absPath(w)))
		f.Name = ""
	case len(kids) == 1 && queue.LoneCandidate(kids[0]):
		f = pw.fetchOne(ctx, w, model.ChildPath(pw.path, kids[0]), kids[0])
	default:
		return nil
	}
	if f.Rec == nil || f.Rec.Session == 0 {
		return nil
	}
	return &queue.LoneNode{Name: f.Name, Rec: f.Rec}
}

// rootOf is the root watch pw is watched through, nil when pw has a
// goroutine and a watch of its own.
func (pw *pathWatch) rootOf() *rootWatch {
	if pw.rp == nil {
		return nil
	}
	return pw.via
}
