package verdict

import (
	"slices"

	"github.com/zklock/zklock/model"
)

// Wakes says whether a waiter will wake when what it waits on goes, as
// `zklock why -o json` writes it in "wakes".
type Wakes string

const (
	// WakesYes: the servers show its session watching what it waits on.
	WakesYes Wakes = "yes"
	// WakesExpected: its recipe sets that watch, but the servers do not
	// tell whether it did (four-letter words and AdminServer refused, or
	// a children watch, which the servers do not list).
	WakesExpected Wakes = "expected"
	// WakesNever: it will never wake on its own (no watch, or a cycle of
	// waits that has stood with no handoff).
	WakesNever Wakes = "never"
	// WakesUnknown: it is in a cycle of waits too young to judge, or waits
	// behind its own session.
	WakesUnknown Wakes = "unknown"
)

// Reasons for a waiter's Wakes, as `zklock why -o json` writes them in
// "reason"; the warning codes among them are `ls`'s.
const (
	ReasonVerified  = "watch-verified"
	ReasonInferred  = "watch-inferred"
	ReasonMissing   = model.WarnMissingWatch
	ReasonDeadlock  = model.WarnDeadlock // a cycle of watches inside the queue
	ReasonCrossLock = "cross-lock-deadlock"
	ReasonCycle     = "cycle" // a cycle over sessions not yet old enough to call a deadlock
	ReasonSelfWait  = model.WarnSelfWait
)

// wakeOf judges whether n, a waiter of the queue at path, will wake:
// cycle are the nodes of the queue's watch cycle (its deadlock warning),
// ds the cycles over sessions through path.
func wakeOf(n *model.Node, path string, cycle []string, ds []model.Deadlock) (Wakes, string) {
	if n.Name != "" && slices.Contains(cycle, n.Name) {
		return WakesNever, ReasonDeadlock
	}
	if d := sessionCycle(n, path, ds); d != nil {
		switch d.State {
		case model.CycleDeadlock:
			return WakesNever, ReasonCrossLock
		case model.CycleSelfWait:
			return WakesUnknown, ReasonSelfWait
		}
		return WakesUnknown, ReasonCycle
	}
	switch n.Link {
	case model.LinkMissing:
		return WakesNever, ReasonMissing
	case model.LinkVerified:
		return WakesYes, ReasonVerified
	}
	return WakesExpected, ReasonInferred
}

// sessionCycle is the cycle of ds that n's wait belongs to: its session
// waits in the cycle on path. nil when none.
func sessionCycle(n *model.Node, path string, ds []model.Deadlock) *model.Deadlock {
	if n.Session == 0 {
		return nil
	}
	for i := range ds {
		for _, w := range ds[i].Waits {
			if w.Session == n.Session && w.Path == path {
				return &ds[i]
			}
		}
	}
	return nil
}

// queueCycle are the nodes of the queue's own watch cycle (its deadlock
// warning), nil when it has none.
func queueCycle(ws []model.Warning) []string {
	for _, w := range ws {
		if w.Code == model.WarnDeadlock {
			return w.Nodes
		}
	}
	return nil
}
