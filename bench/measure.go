package main

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/zklock/zklock/sandbox/peers"
)

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of ds; 0
// for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// runResult is one measurement of one peer under one workload.
type runResult struct {
	Peer    string
	Clients int
	Hold    time.Duration
	GiveUp  int // percent of requests with a random timeout

	Cycles, Held, GaveUp, Failed int
	Window                       time.Duration // first request to last release return
	AcqPerSec                    float64
	// CycleP50/P99: acquire called to release returned, held cycles.
	CycleP50, CycleP99 time.Duration
	// Handoffs: one holder's release call to the next holder's acquire
	// return, counted only when the next one was already waiting (it
	// requested before the release call): the lock's own chain, not an
	// idle lock's wait for a request.
	Handoffs               int
	HandoffP50, HandoffP99 time.Duration
	// ReleaseP50: the previous holder's release call to its return, over
	// the same handoffs: the server's delete round trip under this load,
	// which the next holder's notification shares. WakeP50: that return to
	// the next holder's acquire return (negative when the notification
	// beat the reply): what the waiting client adds.
	ReleaseP50, WakeP50 time.Duration
	// ProbeDelete, ProbeWake: p50s of the floor's cycle run beside the
	// loop (loaded.go), its delete round trip and its wake; Probes, how
	// many cycles. Zero in a run without the probe.
	ProbeDelete, ProbeWake time.Duration
	Probes                 int
	Requests               float64 // zk_packets_received per acquisition
	// Commits: transaction-log batches (one fsync each) per acquisition;
	// CommitsPerSec: the same over the run's window.
	Commits, CommitsPerSec float64
	Overlaps               int
	FirstOverlap           string
	FirstErr               string
	CPU                    cpuUse
}

// analyze turns a loop's cycles into a runResult. Handoffs are left out for
// the limit loop (its holders overlap by design).
func analyze(peer string, clients int, spec peers.LoopSpec, cycles []peers.Cycle, handoffs bool) runResult {
	r := runResult{Peer: peer, Clients: clients, Hold: spec.Hold, GiveUp: spec.GiveUpPercent, Cycles: len(cycles)}
	var held []peers.Cycle
	var lat []time.Duration
	for _, c := range cycles {
		switch {
		case c.Held:
			r.Held++
			held = append(held, c)
			lat = append(lat, c.ReleaseReturned.Sub(c.Requested))
		case c.GaveUp:
			r.GaveUp++
		default:
			r.Failed++
		}
		if c.Err != "" && r.FirstErr == "" {
			r.FirstErr = c.Err
		}
	}
	r.Window = span(cycles)
	if r.Window > 0 {
		r.AcqPerSec = float64(r.Held) / r.Window.Seconds()
	}
	r.CycleP50, r.CycleP99 = percentile(lat, 50), percentile(lat, 99)
	if handoffs {
		slices.SortFunc(held, func(a, b peers.Cycle) int { return a.Acquired.Compare(b.Acquired) })
		var hs, rel, wake []time.Duration
		for k := 1; k < len(held); k++ {
			prev, cur := held[k-1], held[k]
			if cur.Requested.Before(prev.ReleaseCalled) && !cur.Acquired.Before(prev.ReleaseCalled) {
				hs = append(hs, cur.Acquired.Sub(prev.ReleaseCalled))
				rel = append(rel, prev.ReleaseReturned.Sub(prev.ReleaseCalled))
				wake = append(wake, cur.Acquired.Sub(prev.ReleaseReturned))
			}
		}
		r.Handoffs = len(hs)
		r.HandoffP50, r.HandoffP99 = percentile(hs, 50), percentile(hs, 99)
		r.ReleaseP50, r.WakeP50 = percentile(rel, 50), percentile(wake, 50)
	}
	ov := peers.Overlaps(peers.Intervals(peer, cycles))
	r.Overlaps = len(ov)
	if len(ov) > 0 {
		r.FirstOverlap = fmt.Sprintf("%s and %s", ov[0][0], ov[0][1])
	}
	return r
}

// span is the time from the first request of cycles to the last
// release return (the last acquire return of a cycle not held).
func span(cycles []peers.Cycle) time.Duration {
	var first, last time.Time
	for _, c := range cycles {
		if first.IsZero() || c.Requested.Before(first) {
			first = c.Requested
		}
		end := c.Acquired
		if c.Held {
			end = c.ReleaseReturned
		}
		if end.After(last) {
			last = end
		}
	}
	return last.Sub(first)
}

// summary is the median of repeated measurements with their spread.
type summary struct {
	Median, Min, Max float64
	N                int
}

func summarize(vs []float64) summary {
	if len(vs) == 0 {
		return summary{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return summary{Median: m, Min: s[0], Max: s[len(s)-1], N: len(s)}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
