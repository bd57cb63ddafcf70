package verdict

import (
	"slices"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// State is a lock's verdict in one word, as `zklock why -o json` writes
// it in "state".
type State string

const (
	// StateFree: no lock node; the next client to ask holds at once.
	StateFree State = "free"
	// StateHeld: held, and every waiter will wake (or the servers do not
	// tell whether it will).
	StateHeld State = "held"
	// StateSilent: held by a client the servers have not heard for more
	// than half its session timeout.
	StateSilent State = "holder-silent"
	// StateStuck: a waiter will never wake (no watch, a cycle of waits).
	StateStuck State = "stuck"
	// StateSplit: more than one node believes it holds the lock.
	StateSplit State = "split"
	// StateNotLock: the path holds a recipe that is no lock (a barrier, a
	// queue, a counter...), or only children that are no lock nodes (a
	// directory of locks): nobody holds it or waits on it.
	StateNotLock State = "not-a-lock"
	// StateUnknown: the path could not be read.
	StateUnknown State = "unknown"
)

// Verdict is all zklock can say of one lock at one read: who holds it and
// since when, whether its client is alive, who waits and whether each will
// wake, what happens next, and the one command to act. Text and JSON are
// its two renderings. Node names and every other string read from
// ZooKeeper are raw here; the renderings sanitize them.
type Verdict struct {
	Path  string
	At    time.Time
	State State
	// Failing: a condition `ls --check` fails on (Options.Fails), or a
	// cross-lock deadlock through this lock.
	Failing bool
	Type    model.QueueType
	System  string
	Label   string
	// Unread says why the path could not be read (StateUnknown); Absent:
	// it does not exist (a free lock: Curator removes an empty lock's
	// parent).
	Unread string
	Absent bool
	// Other are the children that are no lock nodes, for a path that
	// holds nothing else (StateNotLock: a directory of locks, not one).
	Other []string
	// Holders are the nodes that believe they hold, in queue order;
	// Waiters the others, in the order they will be served.
	Holders []Holder
	Waiters []Waiter
	Next    Next
	// Warnings are the queue's, as `ls` gives them; Deadlocks the cycles
	// of waits over sessions that pass through this lock.
	Warnings  []model.Warning
	Deadlocks []model.Deadlock
	// Act is the one command to run, nil when there is nothing to do.
	Act *Action
	// ServerView: the servers told their watches and clients
	// (ServerViewNote says what is missing); Stale: the read was made
	// while disconnected.
	ServerView     bool
	ServerViewNote string
	Stale          bool
}

// Holder is a node that believes it holds the lock.
type Holder struct {
	Node     *model.Node
	Position int // in the queue, from 1
	// Since is when it took the lock and Bound how to read it (as
	// `ls --json` gives since_bound).
	Since time.Time
	Bound model.Bound
	// Alive is what the servers tell of its client; Liveness the
	// figures, when Known.
	Alive    Alive
	Liveness Liveness
	Known    bool
	// OutOfOrder: it believes it holds while a node before it holds by
	// sequence order (split-holders).
	OutOfOrder bool
}

// Waiter is a node that waits for the lock.
type Waiter struct {
	Node     *model.Node
	Position int // in the queue, from 1
	Since    time.Time
	Bound    model.Bound
	// Wakes says whether it will wake when what it waits on goes, and
	// Reason why (a Reason code).
	Wakes  Wakes
	Reason string
}

// Options are what the command hands a verdict beyond the snapshot.
type Options struct {
	// Liveness reads a node's session's liveness; nil: NodeLiveness,
	// what the snapshot carries.
	Liveness LivenessOf
	// Fails says whether a queue's warning fails `ls --check` at a moment
	// (the command's rule, so that `why` and `ls --check` agree); nil:
	// none does.
	Fails func(w model.Warning, at time.Time) bool
	// Zklock is how the Act command starts zklock on this ensemble
	// ("zklock --context prod"); "" is "zklock".
	Zklock string
}

// Judge is the verdict on the lock at path in snap. A path the snapshot
// does not hold, or could not read, is StateUnknown.
func Judge(snap *model.Snapshot, path string, o Options) Verdict {
	v := Verdict{Path: path, At: snap.At, State: StateUnknown, ServerView: snap.ServerView,
		ServerViewNote: snap.ServerViewNote, Stale: snap.Stale}
	q := snap.Queue(path)
	switch {
	case q == nil || q.State == model.PathPending:
		v.Unread = "not read"
		return v
	case q.State == model.PathNoAuth || q.State == model.PathError:
		v.Unread = q.Err()
		return v
	}
	v.Type, v.System, v.Label, v.Warnings = q.Type, q.System(), q.Label(), q.Warnings()
	v.Absent = q.State == model.PathAbsent
	v.Deadlocks = deadlocksOn(snap.Deadlocks, path)
	if !q.Type.Waits() || q.Nodes.Len() == 0 && len(q.Other()) > 0 {
		v.State, v.Other = StateNotLock, q.Other()
		return v
	}
	cycle := queueCycle(v.Warnings)
	for i, n := range q.Nodes.All() {
		if n.Part() != "" {
			continue // a recipe's part, neither held nor waited on
		}
		if holds(q, n) {
			v.Holders = append(v.Holders, holderOf(n, i+1, snap, o.Liveness))
			continue
		}
		wakes, reason := wakeOf(n, path, cycle, v.Deadlocks)
		start, b := n.Tenure()
		v.Waiters = append(v.Waiters, Waiter{Node: n, Position: i + 1, Since: start, Bound: b, Wakes: wakes, Reason: reason})
	}
	v.Next = nextOf(q)
	v.State = v.stateOf()
	v.Failing = v.failing(o.Fails)
	v.Act = v.act(q, o.Zklock)
	return v
}

// holds reports whether n of q holds: it believes it does, or, in a
// semaphore, it is a lease that holds (the admission lock's holder waits
// for a lease).
func holds(q *model.Queue, n *model.Node) bool {
	if q.Type == model.TypeSemaphore {
		return n.Lease && n.Role == ordering.RoleHolder
	}
	return model.Holds(n)
}

// holderOf is n, the position-th node of the queue, as a holder.
func holderOf(n *model.Node, position int, snap *model.Snapshot, live LivenessOf) Holder {
	start, b := n.Tenure()
	h := Holder{Node: n, Position: position, Since: start, Bound: b, OutOfOrder: n.Role != ordering.RoleHolder}
	if live == nil {
		live = NodeLiveness
	}
	if n.Session != 0 {
		h.Liveness, h.Known = live(n)
	}
	at := h.Liveness.At
	if at.IsZero() {
		at = snap.At
	}
	h.Alive = aliveOf(h.Liveness, h.Known && !snap.Stale, at)
	return h
}

// deadlocksOn are the cycles of ds with a wait on path.
func deadlocksOn(ds []model.Deadlock, path string) []model.Deadlock {
	var on []model.Deadlock
	for _, d := range ds {
		if slices.Contains(d.Paths, path) {
			on = append(on, d)
		}
	}
	return on
}

// stateOf is v's one word: the worst of what it found.
func (v *Verdict) stateOf() State {
	split := false
	for _, h := range v.Holders {
		split = split || h.OutOfOrder
	}
	stuck := false
	for _, w := range v.Waiters {
		stuck = stuck || w.Wakes == WakesNever
	}
	silent := false
	for _, h := range v.Holders {
		silent = silent || h.Alive == AliveSilent
	}
	switch {
	case split || hasWarning(v.Warnings, model.WarnSplitHolders):
		return StateSplit
	case stuck:
		return StateStuck
	case silent:
		return StateSilent
	case len(v.Holders) > 0 || len(v.Waiters) > 0:
		return StateHeld
	}
	return StateFree
}

// failing says whether v fails as `ls --check` would on its lock: a
// warning fails says fails, or a cross-lock deadlock passes through it.
func (v *Verdict) failing(fails func(model.Warning, time.Time) bool) bool {
	for _, d := range v.Deadlocks {
		if d.State == model.CycleDeadlock {
			return true
		}
	}
	if fails == nil {
		return false
	}
	for _, w := range v.Warnings {
		if fails(w, v.At) {
			return true
		}
	}
	return false
}

// hasWarning reports whether ws has one of code.
func hasWarning(ws []model.Warning, code string) bool {
	return slices.ContainsFunc(ws, func(w model.Warning) bool { return w.Code == code })
}
