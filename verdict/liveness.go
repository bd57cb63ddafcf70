package verdict

import (
	"time"

	"github.com/zklock/zklock/model"
)

// Liveness is what the servers know of the liveness of a node's session:
// the member it is connected to, when that member last heard it, its
// negotiated timeout, and when the leader expires it if it stays silent,
// as of At (when the servers were asked). Zero fields are unknown.
//
// This is the one place where silence and expiry come into a verdict.
// It has the shape of model.Health (#40's session health from the
// AdminServer and the four-letter words), so that once the model
// carries that, Liveness becomes model.Health and NodeLiveness reads
// Node.Health; until then a verdict says the servers do not tell.
type Liveness struct {
	Member  string        // the member's client address, "" when none tells
	Heard   time.Time     // zero when unknown
	Timeout time.Duration // 0 when unknown
	Expires time.Time     // zero when unknown
	At      time.Time     // the servers were asked
}

// LivenessOf reads the liveness of a node's session; false when no member
// tells.
type LivenessOf func(n *model.Node) (Liveness, bool)

// Silent is how long the session had not been heard at at; false when
// unknown.
func (l Liveness) Silent(at time.Time) (time.Duration, bool) {
	if l.Heard.IsZero() {
		return 0, false
	}
	return max(0, at.Sub(l.Heard)), true
}

// ExpiresIn is how long after at the leader expires the session if it
// stays silent (0 when due); false when unknown.
func (l Liveness) ExpiresIn(at time.Time) (time.Duration, bool) {
	if l.Expires.IsZero() {
		return 0, false
	}
	return max(0, l.Expires.Sub(at)), true
}

// SilentTooLong reports whether the session had been silent for more than
// half its timeout at at: a client paused or hung (a healthy one pings
// every third of its timeout); the silent-holder rule.
func (l Liveness) SilentTooLong(at time.Time) bool {
	s, ok := l.Silent(at)
	return ok && l.Timeout > 0 && s > l.Timeout/2
}

// Alive is a holder's client as a verdict says it.
type Alive string

const (
	// AliveYes: a member heard the session within half its timeout.
	AliveYes Alive = "alive"
	// AliveSilent: silent for more than half its timeout (paused, hung,
	// cut off): the server expires it unless it speaks again.
	AliveSilent Alive = "silent"
	// AliveUnknown: no member tells (neither the AdminServer nor `cons`
	// answered for it), or the read is stale.
	AliveUnknown Alive = "unknown"
)

// aliveOf judges l at at; known is false when no member tells.
func aliveOf(l Liveness, known bool, at time.Time) Alive {
	switch {
	case !known:
		return AliveUnknown
	case l.SilentTooLong(at):
		return AliveSilent
	case l.Timeout > 0:
		if _, heard := l.Silent(at); heard {
			return AliveYes
		}
	}
	return AliveUnknown
}
