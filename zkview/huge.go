// Huge queues (more than hugeQueue children): the next listing of one
// waits for what the last cost, so that a burst of changes is read in
// one listing. What that takes is kept beside the Watcher (Watcher.huge),
// not in every path's pathWatch: a root's 100,000 parents are none of
// them huge.

package zkview

import (
	"context"
	"time"
)

// hugeList is when a huge queue (more than hugeQueue children) was last
// listed, how many children it had and what merging that listing cost:
// its next listing waits for them (spaceHugeRelist). Kept in
// Watcher.huge, for the few paths that are huge.
type hugeList struct {
	at   time.Time
	cost time.Duration // CPU time of the last merge (Order and diff)
	size int
}

// listedLocked notes a listing of size children asked for at issued.
func (pw *pathWatch) listedLocked(issued time.Time, size int) {
	w := pw.w
	if size <= hugeQueue {
		if w.huge != nil {
			delete(w.huge, pw)
		}
		return
	}
	if w.huge == nil {
		w.huge = map[*pathWatch]*hugeList{}
	}
	h := w.huge[pw]
	if h == nil {
		h = &hugeList{}
		w.huge[pw] = h
	}
	h.at, h.size = issued, size
}

// mergedLocked notes what merging the last listing cost.
func (pw *pathWatch) mergedLocked(cost time.Duration) {
	if h := pw.w.huge[pw]; h != nil {
		h.cost = cost
	}
}

// spaceHugeRelist delays the re-list of a huge parent so that a burst of
// changes is read in one listing.
func (pw *pathWatch) spaceHugeRelist(ctx context.Context) {
	w := pw.w
	w.mu.Lock()
	huge := w.huge[pw]
	var last time.Time
	var cost time.Duration
	var size int
	if huge != nil {
		last, cost, size = huge.at, huge.cost, huge.size
	}
	w.mu.Unlock()
	if size <= hugeQueue || huge == nil {
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
