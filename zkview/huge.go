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
// its next listing waits for them (relistWaitLocked). Kept in
// Watcher.huge, for the few paths that are huge.
type hugeList struct {
	at   time.Time
	cost time.Duration // CPU time of the last merge (Order and diff)
	size int
}

// hugeLists are the last listings of the paths whose last listing was
// huge, by path; nil while none was. Guarded by Watcher.mu.
type hugeLists map[*pathWatch]*hugeList

// listedLocked notes a listing of pw of size children asked for at
// issued.
func (hl *hugeLists) listedLocked(pw *pathWatch, issued time.Time, size int) {
	if size <= hugeQueue {
		if *hl != nil {
			delete(*hl, pw)
		}
		return
	}
	if *hl == nil {
		*hl = hugeLists{}
	}
	h := (*hl)[pw]
	if h == nil {
		h = &hugeList{}
		(*hl)[pw] = h
	}
	h.at, h.size = issued, size
}

// mergedLocked notes what merging pw's last listing cost.
func (hl *hugeLists) mergedLocked(pw *pathWatch, cost time.Duration) {
	if h := (*hl)[pw]; h != nil {
		h.cost = cost
	}
}

// forgetLocked forgets pw, no longer watched.
func (hl *hugeLists) forgetLocked(pw *pathWatch) { delete(*hl, pw) }

// relistWaitLocked is how long pw's next listing waits so that a burst
// of changes to a huge parent is read in one listing: at least twice
// what merging the last listing cost, so that a busy huge queue takes at
// most a third of a core; 0 for a parent that is not huge.
func (hl *hugeLists) relistWaitLocked(pw *pathWatch) time.Duration {
	h := (*hl)[pw]
	if h == nil || h.size <= hugeQueue {
		return 0
	}
	return time.Until(h.at.Add(max(time.Duration(h.size)*relistPerChild, 2*h.cost)))
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
