package ordering

import "time"

// LockState is where a Lock is in its life.
type LockState int

const (
	LockIdle      LockState = iota // not acquiring, not held
	LockQueued                     // own node created, waiting
	LockHolding                    // held
	LockSuspended                  // held, but the link is down: the session may live on
	LockLost                       // was held, lost (see Err)
	LockReleased                   // released by its holder (reported once, then idle)
)

func (s LockState) String() string {
	switch s {
	case LockIdle:
		return "idle"
	case LockQueued:
		return "queued"
	case LockHolding:
		return "holding"
	case LockSuspended:
		return "suspended"
	case LockLost:
		return "lost"
	case LockReleased:
		return "released"
	}
	return "unknown"
}

// Progress is what a Lock reports as it goes, for the console.
type Progress struct {
	State    LockState
	Node     string // own node name
	Position int    // 1-based place in the queue (1 = first); 0 when not queued
	// Watching is the node waited on, "" unless queued; a path (with its
	// leading "/") when the wait is on a children watch: a semaphore's
	// admitted contender waiting for a lease.
	Watching string
	At       time.Time
	Err      error // why, for LockLost
}
