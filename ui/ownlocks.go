package ui

import (
	"sort"
	"time"
)

// ownLocks are the operator's locks the console knows of, by path: what
// the lock core reported last of each (released ones are dropped).
type ownLocks map[string]OwnLock

// active says whether the operator holds or waits for path.
func (o ownLocks) active(path string) bool {
	l, ok := o[path]
	return ok && (l.State == OwnQueued || l.State == OwnHolding || l.State == OwnSuspended)
}

// sorted lists the locks by path.
func (o ownLocks) sorted() []OwnLock {
	out := make([]OwnLock, 0, len(o))
	for _, l := range o {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// take records the lock core's reports and returns the event log's
// entries for those that moved (a new state or place in the queue).
func (o ownLocks) take(locks []OwnLock, now time.Time) []logEntry {
	var log []logEntry
	for _, l := range locks {
		prev, had := o[l.Path]
		if l.State == OwnReleased {
			delete(o, l.Path)
		} else {
			o[l.Path] = l
		}
		if had && prev.State == l.State && prev.Position == l.Position {
			continue
		}
		// The lock core's own time of the step: the console's clock ticks
		// once a second and would put the step before what led to it.
		at := l.Since
		if at.IsZero() {
			at = now
		}
		e := logEntry{at: at, kind: logYou, path: clean(l.Path, 0), text: ownState(&l, now, nodeRef)}
		if l.State == OwnLost || l.State == OwnSuspended {
			e.kind = logFailed
		}
		if l.Err != "" {
			e.text += " (" + clean(l.Err, 0) + ")"
		}
		log = append(log, e)
	}
	return log
}
