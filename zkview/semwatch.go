// Keeping a semaphore's parts watched, and composing its Queue at build
// time (the recipes and the pure composition are in semaphore.go).
//
// A semaphore is recognised from its parent's listing (semaphoreKind),
// before that listing is searched for lock parents. Its lease and lock
// dirs beside the parent (semaphoreAux) are then watched as auxiliary
// paths: each has a model (pathWatch.qm), so its listings and
// fetches are a lock parent's, but none is in sortedPaths, so it has no
// Queue of its own (unless the user named it), and the events its
// listings raise are dropped: the semaphore tells its own. A Kazoo
// semaphore's leases (children of the parent that are no lock nodes) and
// the parent's data (max_leases) are read here at each listing of the
// parent: a new lease costs one Get, and the data one more. A Kazoo
// semaphore found by discovery (not a configured path or root) must also
// have its lock path beside it in its parent's listing: 32-hex children
// alone are a common shape (ids as names). When the parent's listing no
// longer shows a semaphore (an emptied one still is one), its auxiliary
// paths are let go: a lock parent found by discovery is shown again as
// its own.
//
// Costs: a Curator semaphore is three watched paths, a Kazoo one two;
// each build of a semaphore builds its lock queue too.

package zkview

import (
	"context"
	"path"
	"slices"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview/queue"
)

// semaphores is the Watcher's registry of recognised semaphores. Guarded
// by Watcher.mu.
type semaphores struct {
	w      *Watcher             // whose lock guards it and whose paths it watches
	owners map[string]*semState // by semaphore path
	auxOf  map[string]string    // auxiliary path -> its semaphore's path
}

// semState is one recognised semaphore.
type semState struct {
	kind queue.SemKind
	aux  []string // its auxiliary paths
	// Kazoo: the leases' stat and data and the parent's data, read at
	// each listing of the parent.
	leases   map[string]*queue.Record
	data     []byte
	dataRead bool
	// gone: Kazoo leases found deleted when read, left out until a
	// listing no longer shows them (a lock's listing merge does the same).
	gone map[string]bool
	// dirty: parts read here changed since the last build.
	dirty bool
	// Curator's lease history, for hold times: a lease of the lease dir's
	// first listing, or one seen waiting, did not hold since its creation.
	leasesSeen bool
	initial    map[string]bool
	pended     map[string]bool
	// heldFrom dates the hold of a lease seen waiting, then holding;
	// builtAt is the last build's time.
	heldFrom map[string]time.Time
	builtAt  time.Time
}

// atLocked is the semaphore recognised at p, nil when none.
func (s *semaphores) atLocked(p string) *semState { return s.owners[p] }

// listingLocked recognises a semaphore parent from its listing
// kids, keeps its auxiliary paths watched, and lets them go when pw is no
// longer one. It runs before the listing is searched for lock parents: a
// Kazoo semaphore's leases are marked as searched (they have nothing
// below them).
func (s *semaphores) listingLocked(pw *pathWatch, kids []string) {
	w := s.w
	if pw.removed {
		return
	}
	if _, isAux := s.auxOf[pw.path]; isAux {
		return
	}
	kind := queue.SemaphoreKind(kids)
	if kind == queue.SemKazoo && !pw.keep() && !s.kazooLockBesideLocked(pw.path) {
		// Found by discovery, 32-hex children alone are too common a
		// shape (ids as names) to be taken for leases: Kazoo's lock path
		// beside it must be there too.
		kind = queue.SemNone
	}
	st := s.owners[pw.path]
	if st != nil && len(kids) == 0 {
		kind = st.kind // every lease returned: still a semaphore, and still watched
	}
	if st != nil && st.kind != kind {
		s.dropLocked(pw.path)
		st = nil
	}
	if kind == queue.SemNone {
		return
	}
	now := w.cfg.Now()
	if st == nil {
		if pw.qm == nil {
			if !pw.explicit && len(w.sortedPaths) >= w.cfg.MaxParents {
				if !w.capped {
					w.capped = true
					w.emitLocked(model.Change{At: now, Kind: model.ChangeParentsCapped, Path: pw.path, Count: w.cfg.MaxParents})
				}
				return
			}
			pw.ensureQueueLocked(w)
			if !pw.explicit {
				w.emitLocked(model.Change{At: now, Kind: model.ChangePathFound, Path: pw.path, Type: model.TypeSemaphore})
			}
		}
		if s.owners == nil {
			s.owners, s.auxOf = map[string]*semState{}, map[string]string{}
		}
		st = &semState{kind: kind, leases: map[string]*queue.Record{}, initial: map[string]bool{}, pended: map[string]bool{},
			heldFrom: map[string]time.Time{}}
		s.owners[pw.path] = st
	}
	want := queue.SemaphoreAux(pw.path, kind, kids)
	for _, a := range st.aux {
		if !slices.Contains(want, a) {
			s.releaseAuxLocked(a, now)
		}
	}
	for _, a := range want {
		s.holdAuxLocked(pw.path, a)
	}
	st.aux = want
	if kind == queue.SemKazoo && pw.discover {
		for _, k := range kids {
			if ordering.IsHex32(k) {
				pw.followKid(k)
			}
		}
	}
	st.dirty = true
	w.markDirtyLocked()
}

// kazooLockBesideLocked says whether the listing of p's parent showed
// Kazoo's lock path for a semaphore at p, <p>-__lock__.
func (s *semaphores) kazooLockBesideLocked(p string) bool {
	w := s.w
	gp := w.paths[path.Dir(p)]
	if p == "/" || gp == nil {
		return false
	}
	return gp.hasChildLocked(path.Base(p) + queue.KazooLockSuffix)
}

// holdAuxLocked makes a part of owner's semaphore: watched, with a model,
// and no queue of its own unless the user named it.
func (s *semaphores) holdAuxLocked(owner, a string) {
	w := s.w
	s.auxOf[a] = owner
	pa := w.paths[a]
	if i, shown := slices.BinarySearch(w.sortedPaths, a); shown && (pa == nil || !pa.explicit) {
		// A lock parent found before its semaphore was: folded in.
		w.sortedPaths = slices.Delete(w.sortedPaths, i, i+1)
		w.reshownLocked(a)
		w.markDirtyLocked()
	}
	seen := pa != nil && pa.read
	if pa == nil {
		w.addPathLocked(a, pathFlags{})
		if pa = w.paths[a]; pa == nil {
			return // the Watcher is closing
		}
	}
	if pa.qm == nil {
		qm := w.newModelLocked(a, w.s.Abs(a))
		// Discovery may have listed the path already, before it was known
		// to be this semaphore's part: it held no lock node then (else it
		// would have a queue), so the part is known empty, not unread.
		qm.Seen = seen
		pa.setQueueLocked(w, qm)
	}
}

// releaseAuxLocked lets a part of a semaphore go: shown again when the
// user named it or discovery found it holding lock nodes, unwatched when
// nothing else asks for it.
func (s *semaphores) releaseAuxLocked(a string, now time.Time) {
	w := s.w
	pa := w.paths[a]
	switch {
	case pa == nil, pa.explicit: // no model to drop, or the user's
	case !pa.keep() && !pa.discover:
		pa.setQueueLocked(w, nil) // no "vanished" event: it was never shown
		pa.removeLocked(w, now)
	case pa.qm != nil && pa.qm.LockCount() > 0:
		qm := pa.qm
		if i, shown := slices.BinarySearch(w.sortedPaths, a); !shown {
			w.sortedPaths = slices.Insert(w.sortedPaths, i, a)
			w.reshownLocked(a)
		}
		qm.HasBuilt = false
		qm.MarkDirty()
	default:
		pa.setQueueLocked(w, nil)
	}
	delete(s.auxOf, a)
	w.markDirtyLocked()
}

// dropLocked forgets the semaphore at p and lets its parts go.
func (s *semaphores) dropLocked(p string) {
	w := s.w
	st := s.owners[p]
	if st == nil {
		return
	}
	now := w.cfg.Now()
	for _, a := range st.aux {
		s.releaseAuxLocked(a, now)
	}
	delete(s.owners, p)
	if qm := w.queueLocked(p); qm != nil {
		qm.MarkDirty()
	}
	w.markDirtyLocked()
}

// tidyLocked forgets the semaphores whose parent left the model
// and the parts no longer watched (an absent lease dir is let go; the
// parent's next listing asks for it again).
func (s *semaphores) tidyLocked() {
	w := s.w
	for p, st := range s.owners {
		if w.queueLocked(p) == nil {
			s.dropLocked(p)
			continue
		}
		st.aux = slices.DeleteFunc(st.aux, func(a string) bool {
			if w.paths[a] != nil {
				return false
			}
			delete(s.auxOf, a) // its model went with its path
			return true
		})
	}
}

// hideAuxEventsLocked drops the pending events of semaphore parts that
// have no queue of their own: their listings speak of lock nodes and
// handoffs a semaphore does not have.
func (s *semaphores) hideAuxEventsLocked() {
	w := s.w
	if len(s.auxOf) == 0 {
		return
	}
	kept := w.pending[:0]
	for _, ev := range w.pending {
		if _, aux := s.auxOf[ev.Path]; aux {
			if _, shown := slices.BinarySearch(w.sortedPaths, ev.Path); !shown {
				continue
			}
		}
		kept = append(kept, ev)
	}
	clear(w.pending[len(kept):])
	w.pending = kept
}

// dirtyLocked: a part of st changed since its last build.
func (s *semaphores) dirtyLocked(st *semState) bool {
	w := s.w
	if st == nil {
		return false
	}
	if st.dirty {
		return true
	}
	for _, a := range st.aux {
		if qm := w.queueLocked(a); qm != nil && qm.IsDirty() {
			return true
		}
	}
	return false
}

// fetchParts reads, at a listing of a Kazoo semaphore's parent,
// the leases not read yet and the parent's data (max_leases), for the
// next build.
func (s *semaphores) fetchParts(ctx context.Context, pw *pathWatch, kids []string) {
	w := s.w
	w.mu.Lock()
	st := s.owners[pw.path]
	var need []string
	if st != nil && st.kind == queue.SemKazoo {
		for _, k := range kids {
			if r := st.leases[k]; ordering.IsHex32(k) && (r == nil || !r.Fetched) && !st.gone[k] {
				need = append(need, k)
			}
		}
	}
	w.mu.Unlock()
	if st == nil || st.kind != queue.SemKazoo || pw.absPath(w) == "/" {
		return
	}
	got := pw.fetch(ctx, w, need)
	data := pw.fetchOne(ctx, w, pw.path, path.Base(pw.absPath(w)))
	if ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if s.owners[pw.path] != st {
		return
	}
	present := make(map[string]bool, len(kids))
	for _, k := range kids {
		present[k] = true
	}
	for k := range st.leases {
		if !present[k] {
			delete(st.leases, k)
		}
	}
	for k := range st.gone {
		if !present[k] {
			delete(st.gone, k)
		}
	}
	for _, f := range got {
		switch {
		case f.Rec != nil:
			st.leases[f.Name] = f.Rec
		case f.Gone:
			if st.gone == nil {
				st.gone = map[string]bool{}
			}
			st.gone[f.Name] = true
		}
	}
	switch {
	case data.Rec != nil:
		st.data, st.dataRead = data.Rec.DataBytes(), true
	case data.Gone:
		st.data, st.dataRead = nil, false
	}
	st.dirty = true
	w.markDirtyLocked()
}

// buildLocked composes the semaphore at qm's path from its parts
// over q, the Queue buildQueue made of the parent's own listing (its
// state, and a stale warning), and tells what changed since the last
// build (prev, the Queue built before, nil when none).
func (s *semaphores) buildLocked(qm *queue.Tracker, prev *model.Queue, st *semState, q model.Queue, sv *queue.ServerView, now time.Time) model.Queue {
	w := s.w
	st.dirty = false
	leaseDir, lockDir := queue.SemaphoreDirs(qm.Path, st.kind)
	var lq *queue.Tracker
	if st.kind == queue.SemCurator {
		lq = s.settleLocked(qm, leaseDir)
	}
	kq := s.settleLocked(qm, lockDir)
	if q.State != model.PathPresent {
		return q
	}
	if s.partUnreadLocked(lq, kq) {
		q.State = model.PathPending
		return q
	}
	parts := queue.SemParts{Path: qm.Path, Kind: st.kind, Limit: w.cfg.SemaphoreLimits[qm.Path]}
	current := map[string]bool{}
	switch st.kind {
	case queue.SemCurator:
		if lq != nil {
			st.curatorLeases(&parts, lq, sv, current)
		}
	case queue.SemKazoo:
		st.kazooLeases(&parts, qm, sv)
	}
	if kq != nil {
		parts.Lock = queue.Build(kq, sv, false, time.Time{})
	}
	res := queue.ComposeSemaphore(parts)
	if res.Pending != "" {
		st.pended[res.Pending] = true
	}
	st.datePendedHolds(res.Nodes, lq, now)
	st.forgetGone(current)
	q.Type = model.TypeSemaphore
	q.Nodes = model.NodesOf(res.Nodes...)
	r := q.Rare()
	r.Other, r.Limit, r.LimitSource = res.Other, res.Limit, res.LimitSource
	r.Warnings = append(res.Warnings, r.Warnings...)
	q.SetRare(r)
	for _, ev := range queue.SemaphoreChanges(prev, q, now) {
		w.emitLocked(ev)
	}
	return q
}

// settleLocked is the part of the semaphore at qm kept at a, nil when
// none; a part with no Queue of its own is marked built with it.
func (s *semaphores) settleLocked(qm *queue.Tracker, a string) *queue.Tracker {
	w := s.w
	m := w.queueLocked(a)
	if m == nil || m == qm {
		return nil
	}
	if _, shown := slices.BinarySearch(w.sortedPaths, a); !shown {
		m.ClearDirty()
	}
	return m
}

// partUnreadLocked: a part of the semaphore (lq, kq; nil when none) is
// not listed yet, so its nodes are unknown, not absent (told as joined
// once listed, they would be news that is not).
func (s *semaphores) partUnreadLocked(lq, kq *queue.Tracker) bool {
	for _, m := range []*queue.Tracker{lq, kq} {
		if m != nil && !m.Seen {
			return true
		}
	}
	return false
}

// leaseNode is the lease name (sequence seq, 0 for Kazoo) as its record
// r shows it, nil when unread.
func leaseNode(name string, seq int32, r *queue.Record, sv *queue.ServerView) model.Node {
	n := model.Node{Name: name, Seq: seq}
	if r != nil && r.Fetched {
		n.Session, n.DataLen = r.Session, r.DataLen
		n.SetData(r.DataBytes())
		n.Version, n.Czxid = r.Version, r.Czxid
		n.SetCtime(r.Ctime())
		n.SetMtime(r.Mtime())
		n.SinceExact = true
		n.SetSince(r.Ctime())
		if sv != nil {
			n.SetClient(sv.Clients[r.Session])
		}
	}
	return n
}

// curatorLeases adds to parts the leases of a Curator semaphore's lease
// dir lq, and the children that are none; current collects the leases.
func (st *semState) curatorLeases(parts *queue.SemParts, lq *queue.Tracker, sv *queue.ServerView, current map[string]bool) {
	if lq.Seen && !st.leasesSeen {
		st.leasesSeen = true
		for _, k := range lq.Kids() {
			st.initial[k] = true
		}
	}
	for _, k := range lq.Kids() {
		seq, ok := queue.CuratorLease(k)
		if !ok {
			parts.NotLeases = append(parts.NotLeases, k)
			continue
		}
		r := lq.Nodes.Of(k)
		if r != nil && r.Fetched && r.Session == 0 {
			parts.NotLeases = append(parts.NotLeases, k) // persistent: no lease
			continue
		}
		current[k] = true
		n := leaseNode(k, seq, r, sv)
		// Held since its creation, unless it waited first, or was
		// already there when the Watcher first looked.
		n.SinceExact = n.SinceExact && !st.initial[k] && !st.pended[k]
		parts.Leases = append(parts.Leases, n)
	}
}

// kazooLeases adds to parts the leases of a Kazoo semaphore, the
// children of its parent qm, the children that are none, and the
// parent's data.
func (st *semState) kazooLeases(parts *queue.SemParts, qm *queue.Tracker, sv *queue.ServerView) {
	for _, k := range qm.Other() {
		r := st.leases[k]
		if st.gone[k] {
			continue // deleted before it could be read: told by no one
		}
		if !ordering.IsHex32(k) || r != nil && r.Fetched && r.Session == 0 {
			parts.NotLeases = append(parts.NotLeases, k) // no lease name, or persistent
			continue
		}
		parts.Leases = append(parts.Leases, leaseNode(k, 0, r, sv))
	}
	if st.dataRead {
		parts.ParentData = st.data
	}
}

// forgetGone drops the lease history of the leases not in current.
func (st *semState) forgetGone(current map[string]bool) {
	for _, m := range []map[string]bool{st.initial, st.pended} {
		for k := range m {
			if !current[k] {
				delete(m, k)
			}
		}
	}
	for k := range st.heldFrom {
		if !current[k] {
			delete(st.heldFrom, k)
		}
	}
}

// datePendedHolds dates the hold of each Curator lease seen waiting
// beyond the limit and holding now: from the change of the lease dir that
// made room (a lease returned), when it came after the previous build,
// else from this build. That is when the monitor saw the hold begin, as
// a lock's handoff (Node.SinceExact): its release can then say how long
// it held.
func (st *semState) datePendedHolds(nodes []model.Node, lq *queue.Tracker, now time.Time) {
	defer func() { st.builtAt = now }()
	for i := range nodes {
		n := &nodes[i]
		if !n.Lease || n.Role != ordering.RoleHolder || !st.pended[n.Name] {
			continue
		}
		start, ok := st.heldFrom[n.Name]
		if !ok {
			start = now
			if lq != nil && lq.EventAt().After(st.builtAt) && lq.EventAt().Before(now) {
				start = lq.EventAt()
			}
			st.heldFrom[n.Name] = start
		}
		n.SinceExact = true
		n.SetSince(start)
	}
}
