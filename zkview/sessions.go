package zkview

import (
	"fmt"
	"time"

	"github.com/zklock/zklock/lockops"
)

// The sessions view: a wait-for graph over the sessions that own the lock
// nodes of every watched queue. Session S waits for session H when a node
// of S waits in a queue and a node of H is what it waits behind:
//
//   - a mutex or write node: every node before it that holds (in a split
//     queue, every node that believes it holds);
//   - a read node: the nearest write (or mutex) node before it, holding or
//     not: a reader waits for that writer to be done, and the writer for
//     the holders before it, so the graph stays linear in the queue's
//     length instead of pairing every reader with every writer;
//   - a node of a semaphore: every lease that holds, wherever it stands.
//
// Holding and waiting are what each node's own recipe believes
// (Node.Believes). Nodes without a known owner (persistent, or not read
// yet) are left out. Everything is derived from the snapshot's queues:
// no request beyond what the queues already cost.
//
// A cycle over sessions is a cross-lock deadlock only once it has stood
// with no handoff on any of its waits for DeadlockAfter. A session is not
// a thread: two threads of one process sharing one session show as one
// session that both holds and waits, and such a "cycle" may unwind by
// itself. The time it has stood with no progress is what to judge by.

// DeadlockAfter is how long a cycle of waits over sessions must stand,
// with no handoff on any of its waits, before it is called a deadlock:
// well beyond a handoff in flight (a release told to the next waiter, a
// re-list, a watch set: tens of milliseconds) and beyond a client
// retrying after a connection loss, yet short enough to be seen within
// one look at the console.
const DeadlockAfter = 5 * time.Second

// SessionsCaveat is said wherever a cycle over sessions is shown.
const SessionsCaveat = "A session is not a thread: two threads of one process sharing one session show as one session, " +
	"and a cycle through it can include a holder that would release on its own. " +
	"What to judge by is how long the cycle has stood with no handoff."

// States of a Deadlock, as `zklock sessions --json` writes them.
const (
	// CycleDeadlock: a cycle that has stood DeadlockAfter or longer with
	// no handoff on any of its waits.
	CycleDeadlock = "deadlock"
	// CycleYoung: a cycle seen for less than DeadlockAfter (or seen in one
	// read only, when its age cannot be told).
	CycleYoung = "cycle"
	// CycleSelfWait: a session waits behind a node of its own.
	CycleSelfWait = WarnSelfWait
)

// SessionNode is one lock node of a session in the sessions view.
type SessionNode struct {
	Path string // the queue's path
	Node string // raw name; sanitize before display
	// Parent is the znode's parent when it is not Path (Node.Parent: a
	// semaphore's leases/ or locks/); "" otherwise.
	Parent string
	// Kind is the node's kind as `ls --json` names it (Node.KindName):
	// lease, mutex, read or write. Admission: the node is a semaphore's
	// admission-lock node (its contender waits for a lease), not a lease.
	Kind      string
	Admission bool
	// Since is when the node took its role and SinceBound how to read
	// it, as `ls --json` gives them (Node.Tenure): the hold's start for a
	// held node, the wait's start for a waiting one.
	Since      time.Time
	SinceBound Bound
}

// Wait is one edge of the wait-for graph as the nodes make it: a waiting
// node of Session behind a node of Holder on Path.
type Wait struct {
	Session    int64
	Client     string // the waiting session's ip:port, "" when unknown
	Path       string
	Node       string // the waiting node
	Holder     int64
	HolderNode string // the node it waits behind
	// Since: the wait has stood since then on these two nodes, with no
	// handoff between them (a node that waits or holds keeps that role
	// until it goes). A Watcher, or the first of two reads, dates it
	// from when it first saw it; FindDeadlocks from the later of the two
	// nodes' Since.
	Since time.Time
}

// Deadlock is a cycle of the wait-for graph over sessions: a cross-lock
// deadlock once it has stood DeadlockAfter with no handoff on any of its
// waits, a young cycle before, or a session waiting behind its own node.
type Deadlock struct {
	// Sessions in wait order: each waits for the next, the last for the
	// first; one session for a self-wait. The lowest session id is first.
	Sessions []int64
	// Waits[i] is the wait of Sessions[i] on Sessions[i+1] (the last on
	// the first): the oldest of its waits when it has several.
	Waits []Wait
	// Paths of the waits, each once, in wait order.
	Paths []string
	// State is CycleDeadlock, CycleYoung or CycleSelfWait.
	State string
	// Since: the cycle has stood, with no handoff on any of its waits, at
	// least since then (the latest of its waits' Since).
	Since time.Time
}

// SessionInfo is one session in the sessions view.
type SessionInfo struct {
	Session int64
	Client  string // ip:port from `cons`, "" when the servers do not tell
	Holds   []SessionNode
	Waits   []SessionNode
	// WaitsFor are the sessions it waits for directly, ascending.
	WaitsFor []int64
	// BlocksDirect counts the other sessions waiting for it directly;
	// Blocks those waiting for it directly or through others.
	BlocksDirect, Blocks int
	// OldestWait is how long the longest-waiting session it blocks
	// (directly or not) has waited; 0 when it blocks none.
	OldestWait time.Duration
}

// Sessions is the sessions view of a snapshot.
type Sessions struct {
	At time.Time
	// List is every session owning a node in the watched queues, by
	// Blocks (most first: the session to look at first), then
	// BlocksDirect, OldestWait, and id.
	List []SessionInfo
	// Deadlocks are the snapshot's (Snapshot.Deadlocks).
	Deadlocks []Deadlock
}

// Find returns the session with id s, nil when it owns no node.
func (ss *Sessions) Find(s int64) *SessionInfo {
	for i := range ss.List {
		if ss.List[i].Session == s {
			return &ss.List[i]
		}
	}
	return nil
}

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
