package zkview

import (
	"slices"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview/queue"
)

// build is one snapshot in the making: its queues built under the
// Watcher's lock, its cycles judged without it (a long queue's waits are
// read whole at times: merges would wait), then published under it.
type build struct {
	snap        *model.Snapshot // its Deadlocks set by judge
	touched     []string        // the queues changed, added or removed since the last build
	full        bool            // every queue was built
	now, behind time.Time       // behind: when a long queue the graph left unread is due
	changes     []model.Change  // told up to the build (not those merged while judging)
	dropped     int             // dropped before changes
}

// rebuild builds a new Snapshot, when anything changed, and makes it
// w.snap; later are the changes merged since the build began, to put
// after the build's (pendLocked). The caller holds buildMu, not mu.
func (w *Watcher) rebuild() (rebuilt bool, later []model.Change, laterDropped int, cost time.Duration) {
	start := time.Now()
	w.mu.Lock()
	b := w.buildLocked()
	w.mu.Unlock()
	if b == nil {
		return false, nil, 0, 0
	}
	w.cycles.judge(w, b)
	w.mu.Lock()
	later, laterDropped = w.publishLocked(b)
	w.mu.Unlock()
	return true, later, laterDropped, time.Since(start)
}

// buildLocked builds a new Snapshot's queues when anything changed (nil
// when nothing did): those that changed (all after a change of connection
// or server view), sharing the chunks no change touched with the last.
func (w *Watcher) buildLocked() *build {
	if !w.dirty {
		return nil
	}
	now := w.cfg.Now()
	sv := w.usableServerView(now)
	stale := w.conn.State == model.StateDisconnected || w.conn.State == model.StateExpired
	w.sems.hideAuxEventsLocked()
	w.sems.tidyLocked()
	full := w.allDirty || !w.builtOnce
	var touched []string
	if !full {
		var ok bool
		touched, ok = w.buildChangedLocked(sv, stale, now)
		full = !ok // the list and the model disagree: built whole
	}
	if full {
		w.buildAllLocked(sv, stale, now)
	}
	w.builtOnce = true
	queues, sysPaths, sysNote := w.base, []string(nil), ""
	if w.overlay != nil {
		queues, sysPaths, sysNote = w.overlay.Apply(w.base, sv)
	}
	if !full {
		touched = append(append(touched, w.sysPaths...), sysPaths...)
	}
	w.sysPaths = sysPaths
	snap := &model.Snapshot{
		At:              now,
		Conn:            w.conn,
		Queues:          queues,
		Stale:           stale,
		ServerViewNote:  w.svNote,
		DiscoveryCapped: w.capped,
		Discovery:       discoveryLocked(w, now),
		WatchMode:       w.mode,
		Unread:          max(w.initPending, 0),
		FrameEvery:      max(w.frameEvery, minPublish),
		SystemsNote:     sysNote,
	}
	snap.Conn.Ensemble = slices.Clone(w.conn.Ensemble)
	if sv != nil {
		snap.ServerView, snap.ServerViewAt = true, sv.At
	}
	w.held.atBuildLocked()
	b := &build{snap: snap, touched: touched, full: full, now: now, changes: w.pending, dropped: w.dropped}
	w.pending, w.dropped = nil, 0
	w.dirty, w.allDirty = false, false
	return b
}

// publishLocked makes b's snapshot w.snap, its changes (cycles' after)
// w.pending; it returns the changes told since the build began.
func (w *Watcher) publishLocked(b *build) (later []model.Change, laterDropped int) {
	later, laterDropped = w.pending, w.dropped
	w.pending, w.dropped = b.changes, b.dropped
	dirty := w.dirty // the cycles' changes are b's, not a change since
	w.cycles.tellLocked(w, b)
	w.dirty, w.snap = dirty, b.snap
	return later, laterDropped
}

// pendLocked puts changes (dropped more before them) after the pending
// ones, dropping the oldest beyond model.MaxPendingChanges.
func (w *Watcher) pendLocked(changes []model.Change, dropped int) {
	w.pending = append(w.pending, changes...)
	w.dropped += dropped
	if over := len(w.pending) - model.MaxPendingChanges; over > 0 {
		w.pending = slices.Delete(w.pending, 0, over)
		w.dropped += over
	}
}

// queueDirtyLocked lists a model that changed for the next build
// (queue.Hooks.Dirty).
func (w *Watcher) queueDirtyLocked(qm *queue.Tracker) { w.dirtyQ = append(w.dirtyQ, qm) }

// newModelLocked makes the model of the lock parent p, listed for the
// next build whenever it changes.
func (w *Watcher) newModelLocked(p, abs string) *queue.Tracker {
	if w.modelHooks == nil {
		// Made once: a method value is a closure, made at each use.
		w.modelHooks = &queue.Hooks{Emit: w.emitLocked, Dirty: w.queueDirtyLocked, Abs: w.s.Abs}
	}
	return queue.New(p, abs, w.modelHooks)
}

// queueLocked is the model of the path p, nil when p is no lock parent
// (nor a semaphore's part) of the model.
func (w *Watcher) queueLocked(p string) *queue.Tracker {
	if pw := w.paths[p]; pw != nil {
		return pw.qm
	}
	return nil
}

// reshownLocked says that p joined or left the queues shown
// (sortedPaths): the next build adds or removes its Queue.
func (w *Watcher) reshownLocked(p string) { w.reshown = append(w.reshown, p) }

// buildChangedLocked brings w.base to the model by the queues that
// changed since the last build (the models listed dirty, the semaphores
// whose parts changed, the paths shown or hidden since), each built once;
// it returns their paths, and ok false when the list that results does
// not have the model's number of queues (then everything is built).
func (w *Watcher) buildChangedLocked(sv *queue.ServerView, stale bool, now time.Time) (paths []string, ok bool) {
	paths = make([]string, 0, len(w.dirtyQ)+len(w.reshown))
	for _, qm := range w.dirtyQ {
		qm.Taken()
		paths = append(paths, qm.Path)
	}
	clear(w.dirtyQ)
	w.dirtyQ = w.dirtyQ[:0]
	for p, st := range w.sems.owners {
		if w.sems.dirtyLocked(st) {
			paths = append(paths, p)
		}
	}
	paths = append(paths, w.reshown...)
	w.reshown = w.reshown[:0]
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var set []model.Queue
	var del []string
	for _, p := range paths {
		qm := w.queueLocked(p)
		if _, shown := slices.BinarySearch(w.sortedPaths, p); !shown || qm == nil {
			if _, had := w.base.Find(p); had {
				del = append(del, p)
			}
			continue
		}
		if nq, built := w.buildOneLocked(qm, w.builtLocked(p), sv, stale, now); built {
			set = append(set, nq)
		}
	}
	w.base = w.base.Patch(set, del)
	return paths, w.base.Len() == len(w.sortedPaths)
}

// buildAllLocked builds w.base afresh from every queue shown, rebuilding
// those that changed (all after a change of connection or server view).
func (w *Watcher) buildAllLocked(sv *queue.ServerView, stale bool, now time.Time) {
	for _, qm := range w.dirtyQ {
		qm.Taken()
	}
	clear(w.dirtyQ)
	w.dirtyQ, w.reshown = w.dirtyQ[:0], w.reshown[:0]
	queues := make([]model.Queue, 0, len(w.sortedPaths))
	for _, p := range w.sortedPaths {
		prev := w.builtLocked(p)
		nq, built := w.buildOneLocked(w.queueLocked(p), prev, sv, stale, now)
		if !built {
			nq = *prev
		}
		queues = append(queues, nq)
	}
	w.base = model.QueuesOf(queues...)
}

// builtLocked is the Queue last built of the path p, from w.base (read
// only), nil when none.
func (w *Watcher) builtLocked(p string) *model.Queue {
	if i, ok := w.base.Find(p); ok {
		return w.base.At(i)
	}
	return nil
}

// buildOneLocked builds qm's Queue again when it changed (or its
// semaphore's parts did, or everything is rebuilt, or the last one built,
// prev, is not known); built false says prev stands.
func (w *Watcher) buildOneLocked(qm *queue.Tracker, prev *model.Queue, sv *queue.ServerView, stale bool, now time.Time) (nq model.Queue, built bool) {
	sem := w.sems.atLocked(qm.Path)
	if !qm.HasBuilt {
		prev = nil
	}
	if prev != nil && !qm.IsDirty() && !w.allDirty && !w.sems.dirtyLocked(sem) {
		return model.Queue{}, false
	}
	ok := false
	if !w.allDirty && sem == nil && sv == nil {
		nq, ok = queue.BuildChanged(qm, prev, stale, w.conn.Since)
		if ok {
			w.stats.changeBuilds++
		}
	}
	if !ok {
		nq = queue.Build(qm, sv, stale, w.conn.Since)
		qm.BuiltChanges = sv == nil && sem == nil && queue.ChangeShaped(qm, &nq)
	}
	qm.ResetChanges()
	if sem != nil {
		nq = w.sems.buildLocked(qm, prev, sem, nq, sv, now)
	}
	w.warningChangesLocked(prev, nq, now)
	qm.HasBuilt = true
	qm.ClearDirty()
	return nq, true
}

// usableServerView is the last poll's answer while it is recent enough to
// judge by; nil when the servers do not tell.
func (w *Watcher) usableServerView(now time.Time) *queue.ServerView {
	sv := w.sv
	if sv == nil || !sv.OK || now.Sub(sv.At) > 3*max(w.cfg.ServerViewEvery, w.svEvery)+fourLetterTimeout {
		return nil
	}
	return sv
}

// warningChangesLocked tells which warnings a rebuild raised and cleared
// (prev: the Queue built before, nil when none).
func (w *Watcher) warningChangesLocked(prev *model.Queue, nq model.Queue, now time.Time) {
	var old []model.Warning
	if prev != nil {
		old = prev.Warnings()
	}
	// A warning is the same incident while it keeps its code and nodes.
	// Mixed recipes is a state of the whole queue: nodes joining and
	// leaving a mixed queue do not end it (judged by nodes, every handoff
	// on it would log a "cleared" and a new raise). The others name their
	// nodes: another pair of split holders is another incident.
	same := func(x, y *model.Warning) bool {
		return x.Code == y.Code && (x.Code == model.WarnMixedRecipes || sameNamed(x.Nodes, y.Nodes))
	}
	in := func(x *model.Warning, ws []model.Warning) bool {
		for i := range ws {
			if same(x, &ws[i]) {
				return true
			}
		}
		return false
	}
	for i := range nq.Warnings() {
		x := &nq.Warnings()[i]
		if x.Code != model.WarnStale && !in(x, old) {
			w.emitLocked(model.Change{At: now, Kind: model.ChangeWarningRaised, Path: nq.Path, Type: nq.Type, Node: model.Node{Name: first(x.Nodes)}, Warning: *x})
		}
	}
	for i := range old {
		x := &old[i]
		if x.Code != model.WarnStale && !in(x, nq.Warnings()) {
			w.emitLocked(model.Change{At: now, Kind: model.ChangeWarningCleared, Path: nq.Path, Type: nq.Type, Node: model.Node{Name: first(x.Nodes)}, Warning: *x})
		}
	}
}

// sameNamed says whether two warnings name the same nodes: at once when
// they share their list (a change build hands on a list no change
// touched: a self-wait over thousands of nodes is not read at every
// publish), else name by name.
func sameNamed(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || &a[0] == &b[0] || slices.Equal(a, b)
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
