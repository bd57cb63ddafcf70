package zkview

import (
	"slices"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview/queue"
)

// rebuildLocked builds a new Snapshot when anything changed, rebuilding
// only the queues that changed (all of them after a change of connection
// or server view). It reports whether it built one.
func (w *Watcher) rebuildLocked() bool {
	if !w.dirty {
		return false
	}
	now := w.cfg.Now()
	sv := w.usableServerView(now)
	stale := w.conn.State == model.StateDisconnected || w.conn.State == model.StateExpired
	w.sems.hideAuxEventsLocked()
	w.sems.tidyLocked()
	queues := make([]model.Queue, 0, len(w.sortedPaths))
	for _, p := range w.sortedPaths {
		qm := w.queues[p]
		sem := w.sems.atLocked(p)
		if qm.Dirty || w.allDirty || !qm.HasBuilt || w.sems.dirtyLocked(sem) {
			nq, ok := model.Queue{}, false
			if !w.allDirty && sem == nil && sv == nil {
				nq, ok = queue.BuildChanged(qm, stale, w.conn.Since)
				if ok {
					w.stats.changeBuilds++
				}
			}
			if !ok {
				nq = queue.Build(qm, sv, stale, w.conn.Since)
				qm.BuiltChanges = sv == nil && sem == nil && queue.ChangeShaped(qm, &nq)
			}
			qm.Changed, qm.Removed = qm.Changed[:0], qm.Removed[:0]
			if sem != nil {
				nq = w.sems.buildLocked(qm, sem, nq, sv, now)
			}
			w.warningChangesLocked(qm, nq, now)
			qm.Built, qm.HasBuilt, qm.Dirty = nq, true, false
		}
		queues = append(queues, qm.Built)
	}
	queues, sysNote := applySystems(queues, &w.systems)
	snap := &model.Snapshot{
		At:              now,
		Conn:            w.conn,
		Queues:          queues,
		Stale:           stale,
		ServerViewNote:  w.svNote,
		DiscoveryCapped: w.capped,
		WatchMode:       w.mode,
		Unread:          max(w.initPending, 0),
		FrameEvery:      max(w.frameEvery, minPublish),
		SystemsNote:     sysNote,
	}
	snap.Conn.Ensemble = slices.Clone(w.conn.Ensemble)
	if sv != nil {
		snap.ServerView, snap.ServerViewAt = true, sv.At
	}
	snap.Deadlocks = w.cycles.judgeLocked(w, queues, now)
	w.snap = snap
	w.dirty, w.allDirty = false, false
	return true
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

// warningChangesLocked tells which warnings a rebuild raised and cleared.
func (w *Watcher) warningChangesLocked(qm *queue.Model, nq model.Queue, now time.Time) {
	var old []model.Warning
	if qm.HasBuilt {
		old = qm.Built.Warnings
	}
	// A warning is the same incident while it keeps its code and nodes.
	// Mixed recipes is a state of the whole queue: nodes joining and
	// leaving a mixed queue do not end it (judged by nodes, every handoff
	// on it would log a "cleared" and a new raise). The others name their
	// nodes: another pair of split holders is another incident.
	same := func(x, y *model.Warning) bool {
		return x.Code == y.Code && (x.Code == model.WarnMixedRecipes || slices.Equal(x.Nodes, y.Nodes))
	}
	in := func(x *model.Warning, ws []model.Warning) bool {
		for i := range ws {
			if same(x, &ws[i]) {
				return true
			}
		}
		return false
	}
	for i := range nq.Warnings {
		x := &nq.Warnings[i]
		if x.Code != model.WarnStale && !in(x, old) {
			w.emitLocked(model.Change{At: now, Kind: model.ChangeWarningRaised, Path: nq.Path, Type: nq.Type, Node: model.Node{Name: first(x.Nodes)}, Warning: *x})
		}
	}
	for i := range old {
		x := &old[i]
		if x.Code != model.WarnStale && !in(x, nq.Warnings) {
			w.emitLocked(model.Change{At: now, Kind: model.ChangeWarningCleared, Path: nq.Path, Type: nq.Type, Node: model.Node{Name: first(x.Nodes)}, Warning: *x})
		}
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
