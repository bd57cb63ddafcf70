package main

import (
	"testing"
	"time"

	"zklock/sandbox/peers"
)

// TestAnalyzeHandoffSplit: a handoff is the previous holder's release call
// to the next holder's acquire return, counted only when the next one was
// waiting; its release part ends at the release's return, its wake part is
// the rest (negative when the next holder returned first).
func TestAnalyzeHandoffSplit(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	at := func(us int) time.Time { return t0.Add(time.Duration(us) * time.Microsecond) }
	held := func(client, req, acq, relCall, relRet int) peers.Cycle {
		return peers.Cycle{Client: client, Session: int64(client + 1), Node: "n", Held: true,
			Requested: at(req), Acquired: at(acq), ReleaseCalled: at(relCall), ReleaseReturned: at(relRet)}
	}
	cycles := []peers.Cycle{
		held(0, 0, 100, 1000, 1400),     // holds first
		held(1, 50, 1500, 2000, 2300),   // waited: handoff 500 = release 400 + wake 100
		held(0, 1450, 2250, 3000, 3600), // waited: handoff 250 = release 300 + wake -50
		held(1, 5000, 5100, 5200, 5300), // came after the release: no handoff
	}
	r := analyze("zklock", 2, peers.LoopSpec{}, cycles, true)
	if r.Held != 4 || r.Overlaps != 0 {
		t.Fatalf("held %d, overlaps %d", r.Held, r.Overlaps)
	}
	if r.Handoffs != 2 {
		t.Fatalf("%d handoffs, want 2", r.Handoffs)
	}
	// Nearest rank of two values: p50 is the lower one.
	for _, c := range []struct {
		name      string
		got, want time.Duration
	}{
		{"handoff p50", r.HandoffP50, 250 * time.Microsecond},
		{"handoff p99", r.HandoffP99, 500 * time.Microsecond},
		{"release p50", r.ReleaseP50, 300 * time.Microsecond},
		{"wake p50", r.WakeP50, -50 * time.Microsecond},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
