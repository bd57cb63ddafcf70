package model

import (
	"fmt"
	"slices"
	"sort"

	"github.com/zklock/zklock/lockops/ordering"
)

// holds says whether n acts as a holder: its own recipe believes it holds.
func Holds(n *Node) bool { return n.Believes == ordering.RoleHolder }

// queueWaits calls visit(w, a, b) for every waiting node a of q, w its
// index in q.Nodes, and node b it waits behind (see the rules at the top
// of this file). Nodes of no known session are skipped. buf is scratch
// space, returned for reuse.
func QueueWaits(q *Queue, buf []*Node, visit func(w int, a, b *Node)) []*Node {
	holders := buf[:0]
	if !q.Type.Waits() {
		return holders
	}
	semaphore := q.Type == TypeSemaphore
	if semaphore {
		for _, n := range q.Nodes.All() {
			if Holds(n) && n.Session != 0 {
				holders = append(holders, n)
			}
		}
	}
	var lastWrite *Node
	for i, n := range q.Nodes.All() {
		switch {
		case Holds(n):
			if !semaphore && n.Session != 0 {
				holders = append(holders, n)
			}
		case n.Session == 0:
		case !semaphore && n.Kind == ordering.KindRead && lastWrite != nil:
			if lastWrite.Session != 0 {
				visit(i, n, lastWrite)
			}
		default:
			for _, h := range holders {
				visit(i, n, h)
			}
		}
		if n.Kind == ordering.KindWrite || n.Kind == ordering.KindMutex {
			lastWrite = n
		}
	}
	clear(holders) // kept for reuse, without keeping q's nodes alive
	return holders
}

// selfWaitWarning is the self-wait warning of a queue: its waiting nodes
// that wait behind a node of their own session (ok false when none).
func SelfWaitWarning(q *Queue) (Warning, bool) {
	var nodes []string
	var first string
	last := -1
	QueueWaits(q, nil, func(w int, a, b *Node) {
		if a.Session != b.Session || w == last {
			return
		}
		last = w
		if first == "" {
			first = selfWaitFirst(a, b)
		}
		nodes = append(nodes, a.Name)
	})
	if nodes == nil {
		return Warning{}, false
	}
	return selfWait(nodes, first), true
}

// selfWaitFirst tells of the first node that waits behind its own
// session's node b.
func selfWaitFirst(a, b *Node) string {
	return fmt.Sprintf("%s waits behind %s, both of session %s", ShortName(a.Name), ShortName(b.Name), SessionHex(a.Session))
}

// selfWait is the self-wait warning of nodes, first telling of the first.
func selfWait(nodes []string, first string) Warning {
	msg := first + ": it waits for itself (two threads sharing one session wait for each other to let go; one thread re-entering a lock that is not re-entrant never will)"
	if len(nodes) > 1 {
		msg = fmt.Sprintf("%d nodes wait behind their own session's node; %s", len(nodes), msg)
	}
	return Warning{Code: WarnSelfWait, Nodes: nodes, Message: msg}
}

// selfWaitJoined is q's warnings (self-wait at most: see
// buildQueueChanged) when q is prev with nodes joined from index n: in
// the change shape every waiter waits behind the one holder, so prev's
// self-waiting nodes still are, and a joiner is when the holder's session
// owns it too.
func SelfWaitJoined(prev *Queue, q *Queue, n int) []Warning {
	return selfWaitAgain(prev, q, appendSelfWaiters(selfWaitNodes(prev), q, n))
}

// selfWaitNodes are the nodes q's self-wait warning names, in queue
// order (nil when it has none). The change builds append to this list in
// its array when it has room, as to the nodes themselves
// (buildQueueChanged): the list q shows ends before that room.
func selfWaitNodes(q *Queue) []string {
	for _, w := range q.Warnings() {
		if w.Code == WarnSelfWait {
			return w.Nodes
		}
	}
	return nil
}

// appendSelfWaiters appends to nodes the names of q's nodes from index
// from on that belong to its holder's session (in the change shape, the
// one node they all wait behind is the first).
func appendSelfWaiters(nodes []string, q *Queue, from int) []string {
	if h := q.Nodes.At(0); h.Session != 0 {
		for _, a := range q.Nodes.From(from) {
			if a.Session == h.Session {
				nodes = append(nodes, a.Name)
			}
		}
	}
	return nodes
}

// selfWaitOn is q's warnings when the self-waiting nodes of q, a queue
// in the change shape, are nodes.
func selfWaitOn(q *Queue, nodes []string) []Warning {
	if len(nodes) == 0 {
		return nil
	}
	// The first of them is near the head in the usual case.
	i := q.Nodes.Index(func(x *Node) bool { return x.Name == nodes[0] })
	if i < 0 { // cannot happen in the change shape: read the queue
		if w, ok := SelfWaitWarning(q); ok {
			return []Warning{w}
		}
		return nil
	}
	return []Warning{selfWait(nodes, selfWaitFirst(q.Nodes.At(i), q.Nodes.At(0)))}
}

// selfWaitAgain is selfWaitOn(q, nodes) for q built from prev: when
// nodes is prev's own list (the same array and length, as the change
// builds hand it on when no self-waiting node came or went) and the
// holder stayed, the warning says what prev's says, and its text is not
// made again.
func selfWaitAgain(prev, q *Queue, nodes []string) []Warning {
	old := selfWaitNodes(prev)
	if len(nodes) == 0 || len(old) != len(nodes) || &old[0] != &nodes[0] || prev.Nodes.Len() == 0 || q.Nodes.Len() == 0 {
		return selfWaitOn(q, nodes)
	}
	if ph, h := prev.Nodes.At(0), q.Nodes.At(0); ph.Name != h.Name || ph.Session != h.Session {
		return selfWaitOn(q, nodes)
	}
	for _, w := range prev.Warnings() {
		if w.Code == WarnSelfWait {
			return []Warning{{Code: WarnSelfWait, Nodes: nodes, Message: w.Message}}
		}
	}
	return selfWaitOn(q, nodes)
}

// selfWaitLeft is q's warnings (self-wait at most) when q is prev with
// only its first m nodes: leaving cannot make a node wait behind its own
// session, so prev's self-waiting nodes are, but for those that left.
// The warning names its nodes in queue order: those that left are last.
func SelfWaitLeft(prev *Queue, q *Queue, m int) []Warning {
	nodes := selfWaitNodes(prev)
	if len(nodes) == 0 {
		return nil
	}
	left := make(map[string]bool, prev.Nodes.Len()-m)
	for _, n := range prev.Nodes.From(m) {
		left[n.Name] = true
	}
	k := len(nodes)
	for k > 0 && left[nodes[k-1]] {
		k--
	}
	return selfWaitOn(q, nodes[:k:k]) // capped: a later join must not write over what prev names
}

// selfWaitMerged is q's warnings (self-wait at most) when q is prev
// changed by mergeChanged, worked out from prev's when the holder stayed
// and the nodes that joined all come after prev's last (as the servers'
// sequence numbers make them): prev's self-waiting nodes but those that
// left, then the joiners of the holder's session. ok is false when q
// must be read instead (selfWaitWarning).
func SelfWaitMerged(prev, q *Queue, removed []string) (ws []Warning, ok bool) {
	pn, qn := prev.Nodes.Len(), q.Nodes.Len()
	if pn == 0 || qn == 0 {
		return nil, false
	}
	h, last := q.Nodes.At(0), prev.Nodes.At(pn-1)
	if ph := prev.Nodes.At(0); ph.Name != h.Name || ph.Session != h.Session {
		return nil, false
	}
	nodes := selfWaitNodes(prev)
	// Those that left: found by sequence in prev's nodes and in the
	// warning's list (both in queue order), without reading either.
	left, drop := 0, []int(nil)
	for _, name := range removed {
		r, ok := ordering.ParseName(name)
		if !ok {
			return nil, false
		}
		if i := prev.Nodes.Search(r.Seq); i < pn && prev.Nodes.At(i).Name == name {
			left++
		}
		if i := findName(nodes, name, r.Seq); i >= 0 {
			drop = append(drop, i)
		}
	}
	// Those that joined: after prev's last node, and all of them there.
	from := q.Nodes.Search(last.Seq + 1)
	if from < qn && !ordering.SeqLess(last.Seq, q.Nodes.At(from).Seq) || pn-left+(qn-from) != qn {
		return nil, false
	}
	slices.Sort(drop)
	drop = slices.Compact(drop)
	if len(drop) > 0 {
		if drop[len(drop)-1] == len(drop)-1 {
			nodes = nodes[len(drop):] // the oldest waiters left: the usual case
		} else {
			kept := make([]string, 0, len(nodes)-len(drop))
			for i, name := range nodes {
				if _, gone := slices.BinarySearch(drop, i); !gone {
					kept = append(kept, name)
				}
			}
			nodes = kept
		}
	}
	return selfWaitAgain(prev, q, appendSelfWaiters(nodes, q, from)), true
}

// findName is the index of name, of sequence seq, in names (lock node
// names in sequence order), -1 when it is not there. The oldest waiters
// leave first, so the list's head is looked at before it is searched
// (a search parses a name at each step).
func findName(names []string, name string, seq int32) int {
	if i := slices.Index(names[:min(len(names), headLook)], name); i >= 0 {
		return i
	}
	if i := searchName(names, seq); i < len(names) && names[i] == name {
		return i
	}
	return -1
}

// headLook is how many names findName compares at the head of the list
// before it searches: about what leaves between two snapshots.
const headLook = 8

// searchName is the first of names, lock node names in sequence order,
// whose sequence is not before seq.
func searchName(names []string, seq int32) int {
	return sort.Search(len(names), func(i int) bool {
		n, _ := ordering.ParseName(names[i])
		return !ordering.SeqLess(n.Seq, seq)
	})
}
