package main

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox/peers"
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

// TestCombineSlices: a contender's slices of a round make one result
// whose rates are over the slices' own windows (the time other
// contenders' slices took between them does not count), whose server
// counts and CPU are the slices' sums, and where no handoff spans two
// slices.
func TestCombineSlices(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	// Slice k: two holds a millisecond apart in its first second, the
	// second one waiting for the first; slices 10 s apart.
	part := func(k int) slice {
		base := 10000 * k
		cyc := []peers.Cycle{
			{Client: 0, Session: 1, Node: "a", Held: true, Requested: at(base), Acquired: at(base + 1), ReleaseCalled: at(base + 2), ReleaseReturned: at(base + 3)},
			{Client: 1, Session: 2, Node: "b", Held: true, Requested: at(base + 1), Acquired: at(base + 4), ReleaseCalled: at(base + 999), ReleaseReturned: at(base + 1000)},
		}
		cpu0 := cpuSample{at: at(base), busy: 10, total: 100, server: time.Millisecond}
		cpu1 := cpuSample{at: at(base + 1000), busy: 60, total: 300, server: 401 * time.Millisecond}
		return slice{cycles: cyc, packets: 10, commits: 3, cpu0: cpu0, cpu1: cpu1}
	}
	r := combine("zklock", 2, peers.LoopSpec{}, []slice{part(0), part(1), part(2)}, true)
	if r.Held != 6 || r.Window != 3*time.Second {
		t.Fatalf("held %d over %v, want 6 over 3s (the gaps between slices left out)", r.Held, r.Window)
	}
	if r.AcqPerSec != 2 || r.CommitsPerSec != 3 {
		t.Errorf("%.2f acq/s, %.2f commits/s, want 2 and 3", r.AcqPerSec, r.CommitsPerSec)
	}
	if r.Requests != 5 || r.Commits != 1.5 {
		t.Errorf("%.2f requests, %.2f commits per acquisition, want 5 and 1.5", r.Requests, r.Commits)
	}
	if r.Handoffs != 3 {
		t.Errorf("%d handoffs, want 3 (one in each slice, none across)", r.Handoffs)
	}
	if r.CPU.MachineBusy != 0.25 || r.CPU.ServerShare != 0.4 {
		t.Errorf("machine busy %.3f, server share %.3f, want 0.25 and 0.4", r.CPU.MachineBusy, r.CPU.ServerShare)
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

// TestReportPairedRatios: the ratio column compares medians, and its
// "rounds" spread compares zklock with the best peer of the same round
// (not the best peer overall); a round without zklock's figure is left out.
func TestReportPairedRatios(t *testing.T) {
	r := &report{runs: map[string]map[string][]runResult{}, watches: map[string]watchCounts{}}
	us := func(n float64) time.Duration { return time.Duration(n) * time.Microsecond }
	// Floors of 0.2 and 0.4 ms (median 0.3), each taken after its round.
	r.floor = [][]time.Duration{{us(200)}, {us(400)}}
	for _, round := range []struct{ acq, handoff [3]float64 }{ // zklock, gozk, curator
		// acquisitions/s: the best peer is curator (1.11x), then gozk (0.86x).
		// zklock's handoff: 0.3 ms, then 0.5 (median 0.4: 1.33x the floors'
		// median; 1.50x and 1.25x the floor of its round).
		{[3]float64{1000, 800, 900}, [3]float64{300, 400, 600}},
		{[3]float64{600, 700, 500}, [3]float64{500, 900, 700}},
	} {
		for i, p := range []string{"zklock", "gozk", "curator"} {
			a := round.acq[i]
			r.add(wC8, runResult{Peer: p, AcqPerSec: a, Commits: a / 1000, CommitsPerSec: 2 * a, Handoffs: 9, HandoffP50: us(round.handoff[i])})
		}
	}
	var acq, commits, handoff, bound, rate []string
	for _, line := range strings.Split(r.table(), "\n") {
		switch {
		case strings.HasPrefix(line, "| "+wC8+": log commits/s |"):
			rate = strings.Split(line, " | ")
		case strings.HasPrefix(line, "| "+wC8+": share of the log bound"):
			bound = strings.Split(line, " | ")
		case strings.HasPrefix(line, "| "+wC8+": handoff p50 (ms) |"):
			handoff = strings.Split(line, " | ")
		case strings.HasPrefix(line, "| "+wC8+": acquisitions/s |"):
			acq = strings.Split(line, " | ")
		case strings.HasPrefix(line, "| "+wC8+": log commits/acquisition |"):
			commits = strings.Split(line, " | ")
		}
	}
	// figure | zklock | gozk | curator | floor | best | ratio | target | verdict
	if len(acq) != 9 {
		t.Fatalf("acquisitions/s row: %q", acq)
	}
	if got, want := acq[5]+" "+acq[6], "gozk 1.07x (rounds 0.86-1.11)"; got != want {
		t.Errorf("best and ratio %q, want %q", got, want)
	}
	if got, want := acq[1], "800 (600-1000)"; got != want {
		t.Errorf("zklock median %q, want %q", got, want)
	}
	if len(commits) != 9 || commits[1] != "0.80 (0.60-1.00)" || commits[2] != "0.75 (0.70-0.80)" {
		t.Errorf("commits row: %q", commits)
	}

	// Committing more often is neither better nor worse: no best, no ratio.
	if len(rate) != 9 || rate[1] != "1600 (1200-2000)" || rate[5] != "-" || rate[6] != "-" {
		t.Errorf("commits/s row: %q", rate)
	}
	// acq/s x commits/acq x the floor of its round: zklock 1000 x 1.0 x
	// 0.2 ms, then 600 x 0.6 x 0.4 ms; gozk 800 x 0.8 x 0.2, 700 x 0.7 x 0.4.
	if len(bound) != 9 || bound[1] != "0.17 (0.14-0.20)" || bound[2] != "0.16 (0.13-0.20)" {
		t.Errorf("log bound row: %q", bound)
	}
	if len(handoff) != 9 || !strings.HasSuffix(handoff[8], "(1.33x floor; rounds 1.25-1.50) |") {
		t.Errorf("handoff row: %q, want its verdict to end (1.33x floor; rounds 1.25-1.50)", handoff)
	}

	rw := row{higher: false, rounds: map[string][]float64{
		"zklock": {math.NaN(), 2, 3},
		"gozk":   {1, 4, 6},
		"kazoo":  {0.5, 5},
	}}
	if got := rw.pairedRatios(); !slices.Equal(got, []float64{0.5, 0.5}) {
		t.Errorf("lower is better, round 1 without zklock: paired ratios %v, want [0.5 0.5]", got)
	}
}

// TestLimitRows: #43's table judges the throughput lead in every round
// (a median lead with one round behind is not met), requests against the
// cheapest peer + 1, the release part against the best peer's.
func TestLimitRows(t *testing.T) {
	us := func(n float64) time.Duration { return time.Duration(n) * time.Microsecond }
	for _, tc := range []struct {
		name      string
		zkAcq     [2]float64
		zkReq     float64
		want      [4]string // acq/s, handoff/floor, release, requests verdicts
		wantAcqIn string
	}{
		{"lead in every round", [2]float64{1000, 800}, 5.9, [4]string{"met", "**not met**", "met", "met"}, "1.20x (rounds 1.14-1.25)"},
		{"one round behind", [2]float64{1000, 600}, 6.2, [4]string{"**not met**", "**not met**", "met", "**not met**"}, "1.07x (rounds 0.86-1.25)"},
	} {
		r := &report{runs: map[string]map[string][]runResult{}, watches: map[string]watchCounts{}}
		r.floor = [][]time.Duration{{us(200)}, {us(200)}}
		for k := range 2 {
			r.add(wC8, runResult{Peer: "zklock", AcqPerSec: tc.zkAcq[k], Requests: tc.zkReq, Handoffs: 9, HandoffP50: us(300), ReleaseP50: us(350)})
			r.add(wC8, runResult{Peer: "gozk", AcqPerSec: []float64{800, 700}[k], Requests: 5.0, Handoffs: 9, HandoffP50: us(600), ReleaseP50: us(450)})
		}
		rows := limitRows(r)[:4] // 8 clients; 32 has no runs
		for i, l := range rows {
			if l.verdict != tc.want[i] {
				t.Errorf("%s: %s: verdict %q, want %q", tc.name, l.figure, l.verdict, tc.want[i])
			}
		}
		if rows[0].measured != tc.wantAcqIn {
			t.Errorf("%s: acquisitions/s measured %q, want %q", tc.name, rows[0].measured, tc.wantAcqIn)
		}
	}
}

// TestLimitRowsRejoin: the Rejoin loop is zklock's own column, never the
// best peer; #43's table gives its throughput over the best peer and its
// handoff over the floor next to the plain lock's, with the same targets;
// its overlaps count against zklock's verdict.
func TestLimitRowsRejoin(t *testing.T) {
	us := func(n float64) time.Duration { return time.Duration(n) * time.Microsecond }
	r := &report{runs: map[string]map[string][]runResult{}, watches: map[string]watchCounts{}}
	r.floor = [][]time.Duration{{us(200)}, {us(200)}}
	for k := range 2 {
		r.add(wC8, runResult{Peer: "zklock", AcqPerSec: 900, Requests: 5.9, Handoffs: 9, HandoffP50: us(320), ReleaseP50: us(350)})
		r.add(wC8, runResult{Peer: rejoinName, AcqPerSec: []float64{1000, 1200}[k], Requests: 4.9, Handoffs: 9, HandoffP50: us(220), ReleaseP50: us(300), Overlaps: k})
		r.add(wC8, runResult{Peer: "gozk", AcqPerSec: 800, Requests: 5.0, Handoffs: 9, HandoffP50: us(600), ReleaseP50: us(450)})
	}
	rows := limitRows(r)[:6] // 8 clients; 32 has no runs
	want := []limitRow{
		{figure: wC8 + ": acquisitions/s, zklock / best peer", measured: "1.12x (rounds 1.12-1.12)", verdict: "met"},
		{figure: wC8 + ": acquisitions/s, zklock-rejoin / best peer", measured: "1.38x (rounds 1.25-1.50)", verdict: "met"},
		{figure: wC8 + ": handoff p50 / floor (delete -> wake)", measured: "1.60x floor; rounds 1.60-1.60", verdict: "**not met**"},
		{figure: wC8 + ": handoff p50 / floor, zklock-rejoin (floor: delete -> wake)", measured: "1.10x floor; rounds 1.10-1.10", verdict: "met"},
		{figure: wC8 + ": handoff release part / best peer's", measured: "0.78x (rounds 0.78-0.78)", verdict: "met"},
	}
	for i, w := range want {
		if rows[i].figure != w.figure || rows[i].measured != w.measured || rows[i].verdict != w.verdict {
			t.Errorf("row %d: %+v, want %+v", i, rows[i], w)
		}
	}
	table := r.table()
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "| "+wC8+": acquisitions/s |") && !strings.Contains(line, "| gozk | 1.12x") {
			t.Errorf("the best peer must be gozk, not the Rejoin loop: %s", line)
		}
		if strings.HasPrefix(line, "| overlaps, hold 0") && !strings.Contains(line, "**not met**") {
			t.Errorf("the Rejoin loop's overlap must fail zklock's verdict: %s", line)
		}
	}
	if !strings.Contains(table, "| zklock lockops | zklock lockops, Rejoin loop | go-zookeeper zk.Lock |") {
		t.Errorf("columns: %s", strings.SplitN(table, "\n", 2)[0])
	}
}
