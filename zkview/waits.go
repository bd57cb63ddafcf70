package zkview

import (
	"fmt"

	"github.com/zklock/zklock/lockops"
)

// holds says whether n acts as a holder: its own recipe believes it holds.
func holds(n *Node) bool { return n.Believes == lockops.RoleHolder }

// queueWaits calls visit(w, a, b) for every waiting node a of q, w its
// index in q.Nodes, and node b it waits behind (see the rules at the top
// of this file). Nodes of no known session are skipped. buf is scratch
// space, returned for reuse.
func queueWaits(q *Queue, buf []*Node, visit func(w int, a, b *Node)) []*Node {
	holders := buf[:0]
	semaphore := q.Type == TypeSemaphore
	if semaphore {
		for _, n := range q.Nodes.All() {
			if holds(n) && n.Session != 0 {
				holders = append(holders, n)
			}
		}
	}
	var lastWrite *Node
	for i, n := range q.Nodes.All() {
		switch {
		case holds(n):
			if !semaphore && n.Session != 0 {
				holders = append(holders, n)
			}
		case n.Session == 0:
		case !semaphore && n.Kind == lockops.KindRead && lastWrite != nil:
			if lastWrite.Session != 0 {
				visit(i, n, lastWrite)
			}
		default:
			for _, h := range holders {
				visit(i, n, h)
			}
		}
		if n.Kind == lockops.KindWrite || n.Kind == lockops.KindMutex {
			lastWrite = n
		}
	}
	clear(holders) // kept for reuse, without keeping q's nodes alive
	return holders
}

// selfWaitWarning is the self-wait warning of a queue: its waiting nodes
// that wait behind a node of their own session (ok false when none).
func selfWaitWarning(q *Queue) (Warning, bool) {
	var nodes []string
	var first string
	last := -1
	queueWaits(q, nil, func(w int, a, b *Node) {
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
	return fmt.Sprintf("%s waits behind %s, both of session %s", short(a.Name), short(b.Name), SessionHex(a.Session))
}

// selfWait is the self-wait warning of nodes, first telling of the first.
func selfWait(nodes []string, first string) Warning {
	msg := first + ": it waits for itself (two threads sharing one session wait for each other to let go; one thread re-entering a lock that is not re-entrant never will)"
	if len(nodes) > 1 {
		msg = fmt.Sprintf("%d nodes wait behind their own session's node; %s", len(nodes), msg)
	}
	return Warning{Code: WarnSelfWait, Nodes: nodes, Message: msg}
}
