package memberview

import (
	"time"
)

// View is what the members know, merged, with their clocks tied to ours.
// It is immutable once Poll returns it.
type View struct {
	Start, At time.Time // the poll began, ended (our clock)
	// Members is each member's report, in Config.Members order.
	Members []MemberReport
	// Sessions is every session a member has a connection for.
	Sessions map[int64]Health
	// Watches maps a session to the paths it watches (data watches: the
	// servers list no child watches), on any member.
	Watches map[int64]map[string]bool
	// Watchers maps a path to the sessions watching it.
	Watchers map[string][]int64
	// Leader is the index of the member holding the expiry buckets (the
	// leader, or a standalone server), -1 when none told them.
	Leader int
	// Tick is an upper bound of the servers' tick, 0 when unknown.
	Tick time.Duration
	// Own is zklock's own session, 0 when it made no request this poll.
	Own int64
}

// MemberReport is what one member answered, for the merge and for doctor.
type MemberReport struct {
	Addr string // its client address, as in Config.Members
	// Admin is the AdminServer base URL asked ("http://host:8080"), "" when
	// it was not asked.
	Admin string
	// Source is the source whose answer was used, "" when none told both
	// connections and watches.
	Source Source
	// Refused lists what each source asked did not answer.
	Refused []Refusal
	// Clock is how the member's clock is tied to ours: "own session",
	// "leader's bucket", "" when it is not.
	Clock string
	// ClockError is half the span of that tie: the most a time mapped
	// through it can be off.
	ClockError time.Duration
	Sessions   int           // connections with a session
	Bytes      int64         // replies read, all sources
	Took       time.Duration // from asking to the last reply
}

// Answered reports whether the member told its connections and watches.
func (m MemberReport) Answered() bool { return m.Source != "" }

// Health is what the servers know of one session's liveness.
type Health struct {
	Session int64
	Member  string // the member it is connected to (Config.Members form)
	Client  string // its ip:port
	// Timeout is its negotiated session timeout.
	Timeout time.Duration
	// Received counts the packets its member received from it (-1 when
	// not told).
	Received int64
	// LastResponse is when its member last answered it, on that member's
	// monotonic clock (ms), as the member printed it; -1 when not told.
	LastResponse int64
	// Heard is when its member last heard it, on our clock; zero when no
	// tie to that member's clock is known.
	Heard Span
	// Expires is when the leader will expire it if it hears nothing more
	// (the session's expiry bucket), on our clock; zero when not told.
	Expires time.Time
	// Bucket is that bucket on the leader's monotonic clock (ms), 0 when
	// the AdminServer's dump did not tell it.
	Bucket int64
}

// Silent is how long the session has not been heard at now, 0 when
// unknown: measured from the middle of Heard.
func (h Health) Silent(now time.Time) (time.Duration, bool) {
	if h.Heard.Lo.IsZero() {
		return 0, false
	}
	return max(0, now.Sub(h.Heard.Mid())), true
}

// ExpiresIn is how long until the leader expires the session if it stays
// silent, 0 or less when due; false when unknown.
func (h Health) ExpiresIn(now time.Time) (time.Duration, bool) {
	if h.Expires.IsZero() {
		return 0, false
	}
	return h.Expires.Sub(now), true
}

// Watched reports whether the session watches any path on any member.
func (v *View) Watched(session int64) bool { return len(v.Watches[session]) > 0 }

// Answered reports whether every member told its connections and watches,
// so that a session without a watch truly has none.
func (v *View) Answered() bool {
	for _, m := range v.Members {
		if !m.Answered() {
			return false
		}
	}
	return len(v.Members) > 0
}
