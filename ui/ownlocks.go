package ui

import (
	"maps"
	"sort"
	"strconv"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/draw"
	"github.com/zklock/zklock/ui/eventlog"
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
func (o ownLocks) take(locks []OwnLock, now time.Time) []eventlog.Entry {
	var log []eventlog.Entry
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
		e := eventlog.Entry{At: at, Kind: eventlog.You, Path: draw.Clean(l.Path, 0), Text: ownState(&l, now, draw.NodeRef)}
		if l.State == OwnLost || l.State == OwnSuspended {
			e.Kind = eventlog.Failed
		}
		if l.Err != "" {
			e.Text += " (" + draw.Clean(l.Err, 0) + ")"
		}
		log = append(log, e)
	}
	return log
}

// seenIn is o with each waiter's place and the node it watches read from
// snap, where snap shows its node: the lock core re-checks only when the
// node it watches goes, so its last report keeps "at 7" while the nodes
// further ahead leave. o itself when nothing differs.
func (o ownLocks) seenIn(snap *model.Snapshot) ownLocks {
	var seen ownLocks
	for p, l := range o {
		if l.State != OwnQueued || l.Node == "" {
			continue
		}
		q := snap.Queue(p)
		if q == nil || q.State != model.PathPresent {
			continue
		}
		for i, n := range q.Nodes.All() {
			if n.Name != l.Node {
				continue
			}
			if l.Position != i+1 || l.Watching != n.Watches() {
				if seen == nil {
					seen = maps.Clone(o)
				}
				l.Position, l.Watching = i+1, n.Watches()
				seen[p] = l
			}
			break
		}
	}
	if seen == nil {
		return o
	}
	return seen
}

// pendingTake is a take sent to the Backend: its answer ("take queued")
// and the lock core's first report ("waiting at 7") come on two feeds in
// either order, while the node was queued before the lock core could
// report a place. The answer is logged before the first report whichever
// arrives first.
type pendingTake struct {
	answered bool      // the Backend's answer came
	loggedAt time.Time // when the answer was logged (it came first)
	reported time.Time // the first report's time (it came first)
}

// lost maps the path of each own lock to whether it is lost or suspended
// (it may no longer be held), for the list's flags.
func (o ownLocks) lost() map[string]bool {
	out := make(map[string]bool, len(o))
	for p, l := range o {
		out[p] = l.State == OwnLost || l.State == OwnSuspended
	}
	return out
}

// ownState is the operator's lock in words: "waiting at 3 watching #42",
// "holding since 03:12:04 (2m13s)", "SUSPENDED", "LOST".
func ownState(o *OwnLock, now time.Time, ref func(string) string) string {
	switch o.State {
	case OwnQueued:
		s := "waiting"
		if o.Position > 0 {
			s += " at " + strconv.Itoa(o.Position)
		}
		if o.Watching != "" {
			s += " watching " + ref(o.Watching)
		}
		return s
	case OwnHolding:
		return "HOLDING since " + draw.Clock(o.Since) + " (" + draw.Since(now, o.Since) + ")"
	case OwnSuspended:
		return "SUSPENDED: connection lost, may no longer hold"
	case OwnLost:
		return "LOST: no longer held"
	}
	return "released"
}
