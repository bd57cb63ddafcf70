package model

import (
	"math"
	"time"
)

// Health is what the servers know of the liveness of a node's session
// (memberview): the member it is connected to, when that member last
// heard it, its negotiated timeout, and when the leader will expire it if
// it stays silent. At is when the servers were asked; Silent and
// ExpiresIn are told as of then, as `ls` prints them.
type Health struct {
	Member  string        // the member's client address, "" when none tells
	Heard   time.Time     // zero when unknown
	Timeout time.Duration // 0 when unknown
	Expires time.Time     // zero when unknown
	At      time.Time     // the servers were asked
}

// Known reports whether a member tells anything of the session.
func (h Health) Known() bool { return h.Member != "" }

// Silent is how long the session had not been heard at at; false when
// unknown.
func (h Health) Silent(at time.Time) (time.Duration, bool) {
	if h.Heard.IsZero() {
		return 0, false
	}
	return max(0, at.Sub(h.Heard)), true
}

// ExpiresIn is how long after at the leader expires the session if it
// stays silent (0 when due); false when unknown.
func (h Health) ExpiresIn(at time.Time) (time.Duration, bool) {
	if h.Expires.IsZero() {
		return 0, false
	}
	return max(0, h.Expires.Sub(at)), true
}

// SilentTooLong reports whether the session had been silent for more than
// half its timeout at at: a client paused or hung (a healthy one pings
// every third of its timeout), the silent-holder warning's rule.
func (h Health) SilentTooLong(at time.Time) bool {
	s, ok := h.Silent(at)
	return ok && h.Timeout > 0 && s > h.Timeout/2
}

// Health is what the servers know of the node's session; the zero Health
// when no member tells.
func (n Node) Health() Health {
	if n.rare == nil || n.rare.health == nil {
		return Health{}
	}
	return *n.rare.health
}

// SetHealth sets Health (the zero Health clears it).
func (n *Node) SetHealth(h Health) {
	r := n.rareCopy()
	r.health = nil
	if h != (Health{}) {
		r.health = &h
	}
	n.putRare(r)
}

// tenths is d in seconds to the tenth, for JSON (0 is a value here:
// a session due to expire, one heard this instant).
func tenths(d time.Duration) *float64 {
	v := math.Round(d.Seconds()*10) / 10
	return &v
}

// HealthJSON are the health fields of a node or a session in `ls --json`
// and `sessions --json`, each absent where no member tells.
type HealthJSON struct {
	Member     string   `json:"member,omitempty"`
	SilentS    *float64 `json:"silent_s,omitempty"`
	TimeoutS   *float64 `json:"timeout_s,omitempty"`
	ExpiresInS *float64 `json:"expires_in_s,omitempty"`
}

// JSON is h's fields as `ls --json` gives them, as of h.At.
func (h Health) JSON() HealthJSON {
	j := HealthJSON{Member: SanitizeString(h.Member, 0)}
	if s, ok := h.Silent(h.At); ok {
		j.SilentS = tenths(s)
	}
	if h.Timeout > 0 {
		j.TimeoutS = tenths(h.Timeout)
	}
	if e, ok := h.ExpiresIn(h.At); ok {
		j.ExpiresInS = tenths(e)
	}
	return j
}

// Text is the health as the console and `ls` say it: "silent 14s ·
// expires ≤16s" when silent too long, "" otherwise (a healthy session
// needs no word).
func (h Health) Text(at time.Time) string {
	if !h.SilentTooLong(at) {
		return ""
	}
	s, _ := h.Silent(at)
	out := "silent " + s.Truncate(time.Second).String()
	if e, ok := h.ExpiresIn(at); ok {
		out += " · expires ≤" + (e + time.Second - 1).Truncate(time.Second).String()
	}
	return out
}
