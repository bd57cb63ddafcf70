// Discovery below a root: the children of a path that may lead to lock
// parents are followed, each a path watched for discovery, and let go
// when they leave the path's listing.
//
// A path with a watch of its own records the children it follows
// (ownWatch.kids). A path watched through its root keeps no such set:
// its watch's names (recursiveWatch.names) hold its children already,
// and it follows those of them watched for discovery (followsLocked), so
// that a root of 100,000 parents keeps their names once, not twice. Its
// names change under Watcher.mu then (its worker alone changes them, and
// may read them without the lock), and the children gone from a listing
// are let go as its names are reset (resetNames).

package zkview

import (
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/zkview/queue"

	"github.com/zklock/zklock/model"
)

// discoverLocked follows pw's children that may lead to lock parents:
// every child that is not a lock node, while depth allows. It returns
// the children it found below a root watched whole, for the root's
// worker to queue (foundPaths).
func (pw *pathWatch) discoverLocked(w *Watcher, kids []string) (found foundPaths) {
	followed := pw.followed()
	var present map[string]bool
	if len(followed) > 0 {
		present = make(map[string]bool, len(kids))
		for _, k := range kids {
			present[k] = true
		}
	}
	now := w.cfg.Now()
	for k := range followed { // none when pw is watched through its root (resetNames)
		if !present[k] {
			delete(followed, k)
			if c, ok := w.paths[model.ChildPath(pw.path, k)]; ok && !c.keep() {
				c.removeLocked(w, now)
			}
		}
	}
	if int(pw.depth) >= w.cfg.MaxDepth {
		return nil
	}
	for _, k := range kids {
		found = found.add(pw.discoverOneLocked(w, k, now))
	}
	return found
}

// discoverOneLocked follows pw's child k when it may lead to lock
// parents (depth allowing); the child is returned when it is new and
// found below a root watched whole (nil otherwise).
func (pw *pathWatch) discoverOneLocked(w *Watcher, k string, now time.Time) *rootedPath {
	if _, isLock := ordering.ParseName(k); isLock {
		return nil // lock nodes are ephemeral: nothing below them
	}
	if pw.path == "/" && k == "zookeeper" {
		return nil // the server's own tree holds no locks
	}
	child := model.ChildPath(pw.path, k)
	c, watched := w.paths[child]
	if watched && pw.followsLocked(k, c) {
		// Followed already. (A child deleted and made again between
		// two listings of pw left the watch when its own read found
		// it gone, while pw never saw it go: taken again here.)
		pw.shareNameLocked(c.path, k)
		return nil
	}
	if !watched && w.discovered >= w.cfg.maxNodes() {
		if !w.capped {
			w.capped = true
			w.emitLocked(model.Change{At: now, Kind: model.ChangeNodesCapped, Path: pw.path, Count: w.cfg.maxNodes()})
		}
		return nil
	}
	pw.followKid(k)
	rp := w.addPathLocked(child, pathFlags{discover: true, depth: pw.depth + 1, via: pw.rootOf()})
	pw.shareNameLocked(child, k)
	return rp
}

// shareNameLocked makes the name k that pw's watch's names hold (pw
// watched through its root) the last part of the child's path p, whose
// bytes the child keeps anyway: the listing's copy of the name may go
// (a root's 100,000 names are then kept once, in their paths).
func (pw *pathWatch) shareNameLocked(p, k string) {
	if pw.rp != nil && len(p) > len(k) {
		pw.rp.rw.names.rekey(p[len(p)-len(k):])
	}
}

// followKid records k as a child pw follows for discovery. The map is
// made at the first: most of a root's parents follow none (their
// children are lock nodes), and an empty map costs 48 bytes each. A path
// watched through its root records none: its watch's names say
// (followsLocked).
func (pw *pathWatch) followKid(k string) {
	if pw.rp != nil || pw.own == nil {
		return
	}
	if pw.own.kids == nil {
		pw.own.kids = map[string]struct{}{}
	}
	pw.own.kids[k] = struct{}{}
}

// followed is the children pw follows when it has a watch of its own;
// nil when it follows none, or is watched through its root.
func (pw *pathWatch) followed() map[string]struct{} {
	if pw.own == nil || pw.rp != nil {
		return nil
	}
	return pw.own.kids
}

// followsLocked says whether pw follows its child k for discovery; c is
// the path watched at k (not nil).
func (pw *pathWatch) followsLocked(k string, c *pathWatch) bool {
	if pw.rp == nil {
		_, ok := pw.followed()[k]
		return ok
	}
	return c.discover && !c.keep() && pw.rp.rw.names.has(k)
}

// dropKidsLocked stops watching the children pw follows, and what was
// found below them (pw is gone, or no longer watched).
func (pw *pathWatch) dropKidsLocked(w *Watcher, now time.Time) {
	if pw.rp == nil {
		followed := pw.followed()
		for kid := range followed {
			if c, ok := w.paths[model.ChildPath(pw.path, kid)]; ok && !c.keep() {
				c.removeLocked(w, now)
			}
		}
		clear(followed)
		return
	}
	for k := range pw.rp.rw.names.all() {
		pw.dropKidLocked(w, k, now)
	}
}

// dropKidLocked stops watching pw's child k when pw follows it.
func (pw *pathWatch) dropKidLocked(w *Watcher, k string, now time.Time) {
	if c, ok := w.paths[model.ChildPath(pw.path, k)]; ok && pw.followsLocked(k, c) {
		c.removeLocked(w, now)
	}
}

// letGoKids stops watching pw's children removed, gone from its
// watch's names (deleted, as the events said), when pw is watched
// through its root: it records no children of its own, so neither its
// next merge (discoverLocked) nor a listing (resetNames) could tell
// them gone any more. It takes the Watcher's lock.
func (pw *pathWatch) letGoKids(w *Watcher, removed []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if pw.rp == nil || pw.removed {
		return
	}
	now := w.cfg.Now()
	for _, k := range removed {
		if c, ok := w.paths[model.ChildPath(pw.path, k)]; ok && c.discover && !c.keep() {
			c.removeLocked(w, now)
		}
	}
}

// hasChildLocked says whether pw's last listing showed its child k: its
// watch's names when it is watched through its root, else the children
// it follows.
func (pw *pathWatch) hasChildLocked(k string) bool {
	if pw.rp != nil {
		return pw.rp.rw.names.has(k)
	}
	_, ok := pw.followed()[k]
	return ok
}

// leaveRootLocked makes pw, watched through its root until now, a path
// with a watch of its own: the children it follows are recorded in
// its ownWatch's kids from now on.
func (pw *pathWatch) leaveRootLocked(w *Watcher) {
	rp := pw.rp
	if rp == nil {
		return
	}
	var follow []string
	for k := range rp.rw.names.all() {
		if c, ok := w.paths[model.ChildPath(pw.path, k)]; ok && pw.followsLocked(k, c) {
			follow = append(follow, k)
		}
	}
	pw.rp = nil
	for _, k := range follow {
		pw.followKid(k)
	}
}

// resetNames makes rw's names hold a listing (nil: the path is absent).
// The children of a path watched through its root that are gone from
// the listing are let go now, while its names still show them.
func (rw *recursiveWatch) resetNames(w *Watcher, pw *pathWatch, names []string) {
	var fresh childSet
	fresh.reset(names)
	w.mu.Lock()
	defer w.mu.Unlock()
	if pw.rp != nil && !pw.removed {
		now := w.cfg.Now()
		for k := range rw.names.all() {
			if !fresh.has(k) {
				pw.dropKidLocked(w, k, now)
			}
		}
	}
	rw.names = fresh
}

// discoveryDelta takes children added and removed below a node watched
// through its root that is no lock parent (an entity's group, an empty
// parent) in time that grows with the change, not with the node's
// children: a root of 100,000 parents gains or loses one without going
// over the others. False when the change may make the node a lock parent
// or a semaphore: the whole-listing merge (applyDelta) takes it then.
// found is the children found, for the root's worker to queue.
func (rw *recursiveWatch) discoveryDelta(w *Watcher, pw *pathWatch, added, removed []string) (taken bool, found foundPaths) {
	w.mu.Lock()
	if pw.rp == nil || pw.removed || !pw.discover || pw.qm != nil || w.sems.owners[pw.path] != nil {
		w.mu.Unlock()
		return false, nil
	}
	if _, aux := w.sems.auxOf[pw.path]; aux {
		w.mu.Unlock()
		return false, nil
	}
	for _, k := range added {
		if !plainChild(k) {
			w.mu.Unlock()
			return false, nil
		}
	}
	if len(added) == 0 && !rw.hasPlainChild() {
		w.mu.Unlock()
		return false, nil // what is left may be a semaphore's
	}
	now := w.cfg.Now()
	for _, k := range removed {
		delete(pw.followed(), k) // none: pw is watched through its root
		if c, ok := w.paths[model.ChildPath(pw.path, k)]; ok && !c.keep() {
			c.removeLocked(w, now)
		}
	}
	if len(added) > 0 && int(pw.depth) < w.cfg.MaxDepth {
		for _, k := range added {
			found = found.add(pw.discoverOneLocked(w, k, now))
		}
	}
	pw.setReadLocked(w)
	w.markDirtyLocked()
	w.mu.Unlock()
	w.kickPublish()
	return true, found
}

// plainChild: a child name that neither makes its parent a lock parent
// nor may be part of a semaphore (queue.SemaphorePart).
func plainChild(k string) bool {
	if _, isLock := ordering.ParseName(k); isLock {
		return false
	}
	return !queue.SemaphorePart(k)
}

// hasPlainChild: one of the children is plain, so the node is no
// semaphore whatever else it holds (usually the first looked at).
func (rw *recursiveWatch) hasPlainChild() bool {
	for k := range rw.names.all() {
		if plainChild(k) {
			return true
		}
	}
	return false
}
