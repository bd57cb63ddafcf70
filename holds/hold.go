package holds

import (
	"context"
	"strings"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
)

// The kinds of hold beyond the lock kinds (mutex, read, write), as `run
// --kind` and the audit record spell them.
const (
	KindLease    = "lease"
	KindElection = "election"
)

// recipe is what the lock core hands out to hold: a *lockops.Lock (a
// lock, or an election's place) or a *lockops.Semaphore (a lease).
type recipe interface {
	Acquire(context.Context) error
	Release(context.Context) error
	State() ordering.LockState
	Done() <-chan struct{}
	Err() error
	FencingToken() int64
	// Node is the own node's name as the lock core says it (a lease's
	// without its directory); Hold.Node is relative to the path.
	Node() string
}

// Hold is what taking a path gives: a lock of a kind, one lease of a
// semaphore, or a participant's place in an election, not yet acquired.
// Acquire, Release, Done, Err, State and FencingToken are the lock
// core's (lockops.Lock and lockops.Semaphore behave alike); Node and Kind
// say what it is for messages, the environment and the audit.
type Hold struct {
	recipe
	kind string
	// node is the own node relative to the path ("" before it exists; a
	// Curator lease is "leases/<name>").
	node func() string
}

// Kind is the audit's kind: mutex, read, write, lease or election.
func (h *Hold) Kind() string { return h.kind }

// Node is the own node's path relative to the taken path, "" before it
// exists (a Curator lease is "leases/<name>").
func (h *Hold) Node() string { return h.node() }

// What names the hold in messages: lock, lease or leadership.
func (h *Hold) What() string {
	switch h.kind {
	case KindLease:
		return "lease"
	case KindElection:
		return "leadership"
	}
	return "lock"
}

// leaseNode is a semaphore's lease node relative to its path p
// ("leases/<name>" for Curator's), "" before the first lease.
func leaseNode(p string, m *lockops.Semaphore) string {
	lp := m.LeasePath()
	if lp == "" {
		return ""
	}
	return strings.TrimPrefix(lp, strings.TrimSuffix(p, "/")+"/")
}
