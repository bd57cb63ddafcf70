package verdict

import (
	"path"
	"strings"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// Action is the one command to run on a lock, and why.
type Action struct {
	// Command is one shell line, its words sanitized and quoted where
	// the shell needs it.
	Command string
	// Why says what it does and what it risks.
	Why Why
	// Node is the node it acts on ("" for a command on the path).
	Node *model.Node
}

// Why is why an Action is the one to take, as `zklock why -o json`
// writes it in "act.why".
type Why string

const (
	// WhyDeadlock: a cycle of waits; `zklock sessions` names the session
	// to restart to break it.
	WhyDeadlock Why = "deadlock"
	// WhySplit: several nodes believe they hold; `zklock sessions` names
	// their clients, one of which must stop.
	WhySplit Why = "split-holders"
	// WhyNeverWakes: a waiter without a watch: deleting its node lets the
	// queue move past it (its client is not told and waits on).
	WhyNeverWakes Why = "never-wakes"
	// WhySilent: a silent holder: deleting its node hands the lock on now
	// rather than at its session's expiry (its client is not told and
	// may still act when it wakes).
	WhySilent Why = "holder-silent"
)

// act is the one command for v, nil when there is nothing to do: the
// worst problem first (a cycle, split holders, a waiter that will never
// wake, a silent holder).
func (v *Verdict) act(q *model.Queue, zklock string) *Action {
	if zklock == "" {
		zklock = "zklock"
	}
	var cycle []string
	if c := queueCycle(v.Warnings); c != nil {
		cycle = []string{v.Path}
	}
	for _, d := range v.Deadlocks {
		if d.State == model.CycleDeadlock && cycle == nil {
			cycle = d.Paths
		}
	}
	switch {
	case cycle != nil:
		return &Action{Command: zklock + " sessions " + shellWords(cycle), Why: WhyDeadlock}
	case v.State == StateSplit:
		return &Action{Command: zklock + " sessions " + shellWord(v.Path), Why: WhySplit}
	}
	for _, w := range v.Waiters {
		if w.Wakes == WakesNever && w.Reason == ReasonMissing && w.Node.Name != "" {
			return forceRelease(zklock, q, w.Node, WhyNeverWakes)
		}
	}
	for _, h := range v.Holders {
		if h.Alive == AliveSilent && h.Node.Name != "" {
			return forceRelease(zklock, q, h.Node, WhySilent)
		}
	}
	return nil
}

// forceRelease is `zklock release --force` of n in q.
func forceRelease(zklock string, q *model.Queue, n *model.Node, why Why) *Action {
	return &Action{Command: zklock + " release --force " + shellWord(NodePath(q, n)), Why: why, Node: n}
}

// NodePath is the full path of n, a node of q: under its own parent
// when it has one (a semaphore's leases/), the watched path itself for
// a plain ephemeral lock watched as its own node.
func NodePath(q *model.Queue, n *model.Node) string {
	parent := q.Path
	if n.Parent() != "" {
		parent = n.Parent()
	}
	if n.Recipe == ordering.RecipeEphemeral && path.Base(q.Path) == n.Name {
		return q.Path
	}
	return model.ChildPath(parent, n.Name)
}

// shellWords is each of ws as shellWord, joined by spaces.
func shellWords(ws []string) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = shellWord(w)
	}
	return strings.Join(out, " ")
}

// shellWord is s sanitized, single-quoted unless every byte is one the
// shell leaves alone.
func shellWord(s string) string {
	s = model.SanitizeString(s, 0)
	plain := s != ""
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._-:,@%+=", c) >= 0) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
