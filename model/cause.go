package model

import "time"

// Cause is why a session ended with its nodes (session-lost): what the
// servers' view of the session proves, never a guess. ZooKeeper tells no
// watcher why an ephemeral node went: a delete by its owner, an expiry
// and a closeSession all read as one NodeDeleted, the server's log (which
// says "Expiring session") is not reachable, and only the member the
// session was connected to sees its closeSession.
type Cause uint8

const (
	// CauseUnknown: nothing the servers told proves how it ended.
	CauseUnknown Cause = iota
	// CauseExpired: the session was silent until its timeout: the
	// servers' last view had it silent past half its timeout (a live
	// client speaks every third of it), and its nodes went no earlier
	// than the expiry that silence made due.
	CauseExpired
	// CauseClosed: the client closed it: every node of the session went
	// in one step (one delete removes one node; a session's end removes
	// them all) before its expiry could be due (the servers had heard
	// from it too recently).
	CauseClosed
)

// String is the cause as `watch --json` writes it ("cause").
func (c Cause) String() string {
	switch c {
	case CauseExpired:
		return "expired"
	case CauseClosed:
		return "closed"
	}
	return "unknown"
}

// MarshalText writes the cause by name (a recording stores it so).
func (c Cause) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a cause by name; an unknown name reads as
// CauseUnknown.
func (c *Cause) UnmarshalText(b []byte) error {
	switch string(b) {
	case "expired":
		*c = CauseExpired
	case "closed":
		*c = CauseClosed
	default:
		*c = CauseUnknown
	}
	return nil
}

// SessionSeen is what the servers last told of one session, as `ls
// --json` gives it per node (silent_s, timeout_s, expires_in_s): At is
// when zklock read it (its own clock; the servers' monotonic times are
// mapped to it through zklock's own session), Silent how long the member
// had not heard from the session then, Timeout its negotiated timeout,
// ExpiresIn how long until the server would expire it if it heard
// nothing more (0 when no member told: then it is Timeout less Silent,
// rounded up to the next tick by the server).
type SessionSeen struct {
	At        time.Time
	Silent    time.Duration
	Timeout   time.Duration
	ExpiresIn time.Duration
}

// ExpiryTolerance is how far from the expiry seen due a node may be seen
// gone and still be called expired: the servers' clock is mapped to
// zklock's through one request (a round trip of error), and the listing
// that shows the node gone is made, and published, a little after the
// delete.
const ExpiryTolerance = 500 * time.Millisecond

// ExpiryTick is how much later than last heard + timeout the server may
// expire a session when only Silent and Timeout are told: it expires
// sessions in buckets of its tickTime, rounded up (ZooKeeper's default
// tickTime, 2 s). dump's bucket (ExpiresIn) needs no such allowance.
const ExpiryTick = 2 * time.Second

// CauseOf is why a session's node was seen gone at gone, from what the
// servers last told of its session before (seen; ok false when nothing)
// and whether every node of the session went in that one step, two or
// more (together).
//
// A session heard at time L cannot expire before L + its timeout, and a
// client that sends a delete is heard: so nodes gone before the expiry
// was due went by their client's request (a closeSession when all of
// them went at once; a single node may be its delete, unknown). A node
// gone within a tick of the due expiry of a session silent for more than
// half its timeout (a live client speaks every third of it) went with
// the expiry: its client would have had to wake, and delete, in that
// very moment. Anything else is CauseUnknown.
func CauseOf(seen SessionSeen, ok bool, gone time.Time, together bool) Cause {
	if !ok || seen.Timeout <= 0 || seen.At.IsZero() || gone.IsZero() {
		return CauseUnknown
	}
	due, late := seen.At.Add(seen.ExpiresIn), ExpiryTolerance
	if seen.ExpiresIn <= 0 {
		due, late = seen.At.Add(seen.Timeout-seen.Silent), ExpiryTick+ExpiryTolerance
	}
	early := gone.Before(due.Add(-ExpiryTolerance))
	switch {
	case seen.Silent > seen.Timeout/2 && !early && !gone.After(due.Add(late)):
		return CauseExpired
	case together && early:
		return CauseClosed
	}
	return CauseUnknown
}
