package main

import (
	"strings"
	"testing"
	"time"
)

// TestLoadedRows: under the same load, zklock's handoff is judged against
// the probe's wake that ran beside it (1.15x), its release part against
// the probe's delete round trip (1.0x), with the best peer's ratio shown
// beside; a run without the probe's figures gives no verdict.
func TestLoadedRows(t *testing.T) {
	us := func(n float64) time.Duration { return time.Duration(n) * time.Microsecond }
	r := &report{runs: map[string]map[string][]runResult{}, watches: map[string]watchCounts{}}
	r.add(wC8Loaded, runResult{Peer: "zklock", Handoffs: 9, HandoffP50: us(1100), ReleaseP50: us(950), ProbeWake: us(1000), ProbeDelete: us(1000), Probes: 250})
	r.add(wC8Loaded, runResult{Peer: rejoinName, Handoffs: 9, HandoffP50: us(1200), ReleaseP50: us(1100), ProbeWake: us(1000), ProbeDelete: us(1000), Probes: 250})
	r.add(wC8Loaded, runResult{Peer: "gozk", Handoffs: 9, HandoffP50: us(1500), ReleaseP50: us(800), ProbeWake: us(1000), ProbeDelete: us(1000), Probes: 250})
	r.add(wC8Loaded, runResult{Peer: "curator", Handoffs: 9, HandoffP50: us(1500), ReleaseP50: us(900), ProbeWake: us(1000), ProbeDelete: us(1000), Probes: 250})
	r.add(wC32Loaded, runResult{Peer: "zklock", Handoffs: 9, HandoffP50: us(1100), ReleaseP50: us(950)}) // the probe made no cycle
	want := []limitRow{
		{wC8Loaded + ": handoff p50 / floor under the same load, zklock", "1.10x (1.100 / 1.000 ms)", "<= 1.15x", "met"},
		{wC8Loaded + ": release part / delete round trip under the same load, zklock", "0.95x (0.950 / 1.000 ms; best peer gozk 0.80x)", "<= 1.0x", "met"},
		{wC8Loaded + ": handoff p50 / floor under the same load, zklock-rejoin", "1.20x (1.200 / 1.000 ms)", "<= 1.15x", "**not met**"},
		{wC8Loaded + ": release part / delete round trip under the same load, zklock-rejoin", "1.10x (1.100 / 1.000 ms; best peer gozk 0.80x)", "<= 1.0x", "**not met**"},
		{wC32Loaded + ": handoff p50 / floor under the same load, zklock", "- (the probe made no cycle)", "<= 1.15x", "-"},
		{wC32Loaded + ": release part / delete round trip under the same load, zklock", "- (the probe made no cycle)", "<= 1.0x", "-"},
	}
	got := loadedRows(r)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got[i], w)
		}
	}
	table := loadedTable(r)
	if !strings.Contains(table, "| "+wC8Loaded+" | gozk | 0 | 1.500 | 1.000 | 1.50x | 0.800 | 1.000 | 0.80x | 250 |") {
		t.Errorf("the table's gozk row is missing or wrong:\n%s", table)
	}
}
