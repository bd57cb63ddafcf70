// Rules predict, the servers' watches decide: which lock nodes of one
// parent the servers show waiting, and on what.

package model

import (
	"slices"

	"github.com/zklock/zklock/lockops/ordering"
)

// ServerWait is a node whose wait the servers show otherwise than its
// recipe's replay predicts: entry Index of the queue waits on node On.
type ServerWait struct {
	Index int
	On    string
}

// ServerWaits finds, in one lock parent's entries (in sequence order),
// the nodes the servers show waiting otherwise than the replay of their
// own recipe says: a node whose session holds a data watch on another
// lock node X of the parent waits on X, whatever the names predict. That
// is how a queue whose clients were configured to see each other's
// recipes (Kazoo's extra_lock_patterns, a Curator lock driver sorting by
// sequence) really waits while its stock replay calls two nodes holders.
//
// owner(i) is the session owning entries[i] (0 when unknown); watchers
// returns the sessions the servers list (wchc) with a data watch on the
// child name; self is a session whose watches say nothing of a wait (the
// monitor's own).
//
// A session's watch on X is put on its node of this parent that waits on
// X by its recipe or by sequence order (Watches or Predecessor), else on
// its nearest node after X; a watch on a node after all of the session's
// nodes places no wait (a wait that timed out leaves its watch behind).
// A node is left as the replay has it when it believes it waits and its
// session watches what it waits on (a watch one further is a lock core's
// spare, not another wait). Otherwise it waits on the watched node
// nearest before it. The result is in entry order; nil when the servers
// agree with the replay everywhere.
func ServerWaits(entries []ordering.Entry, owner func(i int) int64, watchers func(name string) []int64, self int64) []ServerWait {
	type shown struct{ i, j int } // entries[i]'s session watches entries[j]
	var found []shown
	var byOwner map[int64][]int // built at the first watch the next node does not explain
	for j := range entries {
		x := entries[j].Name
		for _, s := range watchers(x) {
			if s == 0 || s == self {
				continue
			}
			if k := j + 1; k < len(entries) && owner(k) == s && waitsOn(&entries[k], x) {
				if !agrees(&entries[k], x) {
					found = append(found, shown{k, j})
				}
				continue // the usual case: the next node waits on x
			}
			if byOwner == nil {
				byOwner = ownersIndex(len(entries), owner)
			}
			for _, i := range attribute(entries, byOwner[s], j) {
				if !agrees(&entries[i], x) {
					found = append(found, shown{i, j})
				}
			}
		}
	}
	if found == nil {
		return nil
	}
	slices.SortFunc(found, func(a, b shown) int {
		if a.i != b.i {
			return a.i - b.i
		}
		return a.j - b.j
	})
	var out []ServerWait
	for k := 0; k < len(found); {
		i, on := found[k].i, -1
		for ; k < len(found) && found[k].i == i; k++ {
			if j := found[k].j; j < i || on < 0 {
				on = j // ascending j: the last one before i, else the first
			}
		}
		e := &entries[i]
		if e.Believes == ordering.RoleWaiting && e.Watches != "" && slices.Contains(watchers(e.Watches), owner(i)) {
			continue // it watches what its recipe waits on as well
		}
		out = append(out, ServerWait{Index: i, On: entries[on].Name})
	}
	return out
}

// FollowServerWaits applies ServerWaits to entries: each node the servers
// show waiting believes it waits, on the node they show. It returns how
// many entries it changed.
func FollowServerWaits(entries []ordering.Entry, owner func(i int) int64, watchers func(name string) []int64, self int64) int {
	waits := ServerWaits(entries, owner, watchers, self)
	for _, w := range waits {
		e := &entries[w.Index]
		e.Believes, e.Watches = ordering.RoleWaiting, w.On
	}
	return len(waits)
}

// waitsOn says whether e waits on x by its recipe or by sequence order.
func waitsOn(e *ordering.Entry, x string) bool { return e.Watches == x || e.Predecessor == x }

// agrees says whether the replay already has e waiting on x.
func agrees(e *ordering.Entry, x string) bool {
	return e.Believes == ordering.RoleWaiting && e.Watches == x
}

// attribute is which of a session's nodes (mine, ascending) its watch on
// entries[j] shows waiting: those that wait on it by their recipe or by
// sequence order, else the nearest after it, else none.
func attribute(entries []ordering.Entry, mine []int, j int) []int {
	var by []int
	for _, i := range mine {
		if i != j && waitsOn(&entries[i], entries[j].Name) {
			by = append(by, i)
		}
	}
	if by != nil {
		return by
	}
	if k, _ := slices.BinarySearch(mine, j+1); k < len(mine) {
		return mine[k : k+1]
	}
	return nil
}

// ownersIndex maps each known session to its entries, ascending.
func ownersIndex(n int, owner func(i int) int64) map[int64][]int {
	m := map[int64][]int{}
	for i := range n {
		if s := owner(i); s != 0 {
			m[s] = append(m[s], i)
		}
	}
	return m
}
