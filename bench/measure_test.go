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

// TestReportHandoffRows: the table's handoff rows (hold 0 and 1 ms, with
// their parts) carry each peer's median, a run without handoffs counts for
// nothing, and the 1 ms-hold row says how far zklock is from the floor.
func TestReportHandoffRows(t *testing.T) {
	r := &report{runs: map[string]map[string][]runResult{}, watches: map[string]watchCounts{}}
	r.floor = [][]time.Duration{{200 * time.Microsecond}}
	us := func(n int) time.Duration { return time.Duration(n) * time.Microsecond }
	for _, w := range []string{wC8, wHold1ms} {
		r.add(w, runResult{Peer: "zklock", Handoffs: 9, HandoffP50: us(400), HandoffP99: us(900), ReleaseP50: us(350), WakeP50: us(50)})
		r.add(w, runResult{Peer: "zklock", Handoffs: 0, HandoffP50: us(9999)}) // no handoffs: left out
		r.add(w, runResult{Peer: "gozk", Handoffs: 9, HandoffP50: us(800), HandoffP99: us(1200), ReleaseP50: us(450), WakeP50: us(350)})
	}
	want := map[string][2]float64{ // figure: zklock, gozk
		wC8 + ": handoff p50 (ms)":                    {0.4, 0.8},
		wC8 + ": handoff p99 (ms)":                    {0.9, 1.2},
		wC8 + ": handoff p50, release part (ms)":      {0.35, 0.45},
		wC8 + ": handoff p50, wake part (ms)":         {0.05, 0.35},
		wHold1ms + ": handoff p50 (ms)":               {0.4, 0.8},
		wHold1ms + ": handoff p50, release part (ms)": {0.35, 0.45},
		wHold1ms + ": handoff p50, wake part (ms)":    {0.05, 0.35},
	}
	seen := 0
	for _, rw := range r.rows() {
		w, ok := want[rw.figure]
		if !ok {
			continue
		}
		seen++
		z, g := rw.vals["zklock"], rw.vals["gozk"]
		if z.N != 1 || g.N != 1 || z.Median != w[0] || g.Median != w[1] {
			t.Errorf("%s: zklock %+v, gozk %+v, want medians %v", rw.figure, z, g, w)
		}
		if rw.figure == wHold1ms+": handoff p50 (ms)" && rw.verdict != "(2.00x floor)" {
			t.Errorf("1 ms hold verdict %q, want (2.00x floor)", rw.verdict)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d handoff rows in the table", seen, len(want))
	}
}
