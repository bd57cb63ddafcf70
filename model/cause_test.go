package model

import (
	"testing"
	"time"
)

// TestCauseOf: expired only when the session was silent past half its
// timeout and its node went at the expiry that made due; closed only
// when every node went at once before any expiry could be due; unknown
// otherwise, and whenever the servers told nothing.
func TestCauseOf(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	const to = 12 * time.Second
	stopped := SessionSeen{At: at, Silent: 9 * time.Second, Timeout: to}                            // due at+3s (+ a tick)
	bucket := SessionSeen{At: at, Silent: 9 * time.Second, Timeout: to, ExpiresIn: 4 * time.Second} // dump's bucket: at+4s
	alive := SessionSeen{At: at, Silent: time.Second, Timeout: to}                                  // due no earlier than at+11s
	for _, tc := range []struct {
		name     string
		seen     SessionSeen
		ok       bool
		gone     time.Duration // after at
		together bool
		want     Cause
	}{
		{"nothing told", SessionSeen{}, false, 3 * time.Second, true, CauseUnknown},
		{"no timeout told", SessionSeen{At: at, Silent: 9 * time.Second}, true, 3 * time.Second, false, CauseUnknown},
		{"silent, gone when due", stopped, true, 3 * time.Second, false, CauseExpired},
		{"silent, gone a tick after due", stopped, true, 3*time.Second + ExpiryTick, false, CauseExpired},
		{"silent, gone just within the tolerance before due", stopped, true, 3*time.Second - ExpiryTolerance, false, CauseExpired},
		{"silent, gone well before due: its client woke and deleted it", stopped, true, time.Second, false, CauseUnknown},
		{"silent, gone long after due: it spoke again since", stopped, true, 10 * time.Second, false, CauseUnknown},
		{"dump's bucket, gone at it", bucket, true, 4 * time.Second, false, CauseExpired},
		{"dump's bucket, gone a tick late: not its expiry", bucket, true, 4*time.Second + ExpiryTick, false, CauseUnknown},
		{"dump's bucket, gone before it, all at once", bucket, true, 2 * time.Second, true, CauseClosed},
		{"heard a second before: not silent enough to expire", alive, true, 11 * time.Second, false, CauseUnknown},
		{"heard recently, every node at once: closed", alive, true, 2 * time.Second, true, CauseClosed},
		{"heard recently, one node: a delete, not proven closed", alive, true, 2 * time.Second, false, CauseUnknown},
		{"silent, every node at once at due: expired", stopped, true, 3 * time.Second, true, CauseExpired},
	} {
		if got := CauseOf(tc.seen, tc.ok, at.Add(tc.gone), tc.together); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestCauseText: the cause reads back from its name, as a recording
// stores it; an unknown name is unknown.
func TestCauseText(t *testing.T) {
	for _, c := range []Cause{CauseUnknown, CauseExpired, CauseClosed} {
		b, _ := c.MarshalText()
		var got Cause = 9
		if err := got.UnmarshalText(b); err != nil || got != c {
			t.Errorf("%s: read back %s (%v)", c, got, err)
		}
	}
	var c Cause = CauseExpired
	if _ = c.UnmarshalText([]byte("zombie")); c != CauseUnknown {
		t.Errorf("unknown name read as %s", c)
	}
	for _, b := range []Bound{BoundExact, BoundEarliest, BoundLatest} {
		txt, _ := b.MarshalText()
		var got Bound = 7
		if err := got.UnmarshalText(txt); err != nil || got != b {
			t.Errorf("bound %s: read back %s", b, got)
		}
	}
}
