package sessions

import (
	"time"

	"github.com/zklock/zklock/model"
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

// DeadlockAfter is model.DeadlockAfter, here beside the graph that
// judges by it.
const DeadlockAfter = model.DeadlockAfter

// SessionsCaveat is said wherever a cycle over sessions is shown.
const SessionsCaveat = "A session is not a thread: two threads of one process sharing one session show as one session, " +
	"and a cycle through it can include a holder that would release on its own. " +
	"What to judge by is how long the cycle has stood with no handoff."

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
	SinceBound model.Bound
	// Identity is the participant as its system names it (Node.Identity:
	// a Kafka broker, a Solr node name), "" for a plain recipe's node.
	Identity string
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
	// Identity is the session as a system names it: the first of its
	// nodes' identities, "" when none has one. Raw server text.
	Identity string
	// Health is what the members know of its liveness (its nodes'),
	// the zero Health when none tells.
	Health model.Health
}

// Who names the session for a person: its client and, where a system
// names it, its identity ("10.0.0.7:4711 broker 2"); "" when neither is
// known. Raw server text: sanitize to show.
func (s SessionInfo) Who() string {
	switch {
	case s.Identity == "":
		return s.Client
	case s.Client == "":
		return s.Identity
	}
	return s.Client + " " + s.Identity
}

// Sessions is the sessions view of a snapshot.
type Sessions struct {
	At time.Time
	// List is every session owning a node in the watched queues, by
	// Blocks (most first: the session to look at first), then
	// BlocksDirect, OldestWait, and id.
	List []SessionInfo
	// Deadlocks are the snapshot's (Snapshot.Deadlocks).
	Deadlocks []model.Deadlock
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
