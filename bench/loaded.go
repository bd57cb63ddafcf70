package main

// The floor under the same load (#43): the floor (floor.go) is taken on
// an idle server, between the rounds, while a handoff is taken under its
// contenders' own load, the server then busy with every other client's
// creates, listings and deletes, its log commits shared. How much of the
// distance between the two is the client's, and how much the server's?
// Each contended loop runs once more with a probe beside it, at a low
// rate: one session deletes a node, another wakes on its data watch, as
// in the floor, timed from the delete call to its return (the server's
// delete round trip under that load: a release part's floor) and to the
// wake (a handoff's floor under that load). Each contender is judged
// against the probe that ran beside it.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/sandbox/peers"
)

// loadedEvery spaces the probe's cycles: a create and a delete every
// 21-25 ms (80-95 writes a second) against the contenders' 1,000-1,500
// log commits a second, so that the probe measures their load more than
// it adds its own; 20 ms still gives some 200 probes in a 5 s run.
const loadedEvery = 20 * time.Millisecond

// The workloads run with the probe beside them, as keys of report.runs.
const (
	wC8Loaded  = "8 clients, probe beside"
	wC32Loaded = "32 clients, probe beside"
)

// loadedDuration is each run with the probe beside it: half a contended
// run, enough for some 200 probes.
func (o options) loadedDuration() time.Duration { return max(o.duration/2, time.Second) }

// underLoad runs each contender's contended loops (8 and 32 clients,
// hold 0) once more, for half a contended run's time, with the probe
// beside each.
func (b *lockRuns) underLoad(ctx context.Context) error {
	if !b.o.workloads["loaded"] {
		return nil
	}
	for _, n := range []int{8, 32} {
		if !b.o.workloads[fmt.Sprint(n)] {
			continue
		}
		w := map[int]string{8: wC8Loaded, 32: wC32Loaded}[n]
		for _, c := range b.order(0) {
			if c.Name() == "limit" {
				continue // its holders overlap: no handoffs to judge
			}
			spec := peers.LoopSpec{Path: fmt.Sprintf("/bench/%s/loaded-%d", c.Name(), n), Clients: clientRange(n), Duration: b.o.loadedDuration()}
			res, err := b.loadedRun(ctx, c, spec)
			if err != nil {
				return fmt.Errorf("%s %s: %w", c.Name(), w, err)
			}
			b.rep.add(w, res)
			logf("%-8s %-24s %5.0f acq/s  handoff p50 %6.3f ms, probe's wake %6.3f ms (%4.2fx)  release part %6.3f ms, probe's delete %6.3f ms (%4.2fx)  %d probes  overlaps %d%s",
				c.Name(), w, res.AcqPerSec, ms(res.HandoffP50), ms(res.ProbeWake), ratio(res.HandoffP50, res.ProbeWake),
				ms(res.ReleaseP50), ms(res.ProbeDelete), ratio(res.ReleaseP50, res.ProbeDelete), res.Probes, res.Overlaps, errSuffix(res))
		}
	}
	return nil
}

// loadedRun runs c's loop under spec with the probe beside it, from the
// loop's start to its end.
func (b *lockRuns) loadedRun(ctx context.Context, c contender, spec peers.LoopSpec) (runResult, error) {
	if err := makeParents(b.admin, spec.Path); err != nil {
		return runResult{}, err
	}
	pctx, stop := context.WithCancel(ctx)
	var (
		wg          sync.WaitGroup
		dels, wakes []time.Duration
		perr        error
	)
	probeParent := "/bench/probe/" + strings.TrimPrefix(spec.Path, "/bench/")
	wg.Go(func() { dels, wakes, perr = floorProbe(pctx, b.servers, probeParent, b.o.sessionTO) })
	cpu0 := sampleCPU(b.serverPID)
	cycles, lerr := c.Loop(ctx, spec)
	cpu1 := sampleCPU(b.serverPID)
	stop()
	wg.Wait()
	if lerr != nil {
		return runResult{}, lerr
	}
	if perr != nil {
		return runResult{}, fmt.Errorf("probe: %w", perr)
	}
	res := analyze(c.Name(), len(spec.Clients), spec, cycles, true)
	res.ProbeDelete, res.ProbeWake, res.Probes = percentile(dels, 50), percentile(wakes, 50), len(wakes)
	res.CPU = cpuBetween(cpu0, cpu1, res.Held) // the probe's share in it: a few percent of the writes
	return res, nil
}

// floorProbe runs the floor's cycle every loadedEvery until ctx ends,
// and returns each cycle's delete round trip and wake; ctx's end is how
// it stops, not an error.
func floorProbe(ctx context.Context, servers []string, p string, timeout time.Duration) (dels, wakes []time.Duration, err error) {
	f, err := newFloorPair(ctx, servers, p, timeout)
	if err != nil {
		return nil, nil, err
	}
	defer f.close()
	t := time.NewTimer(loadedEvery)
	defer t.Stop()
	for ctx.Err() == nil {
		del, wake, err := f.cycle(ctx)
		switch {
		case ctx.Err() != nil:
			return dels, wakes, nil
		case err != nil:
			return nil, nil, err
		}
		dels, wakes = append(dels, del), append(wakes, wake)
		t.Reset(loadedEvery)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return dels, wakes, nil
}

// ratio is a / f, NaN when f is 0.
func ratio(a, f time.Duration) float64 {
	if f <= 0 {
		return math.NaN()
	}
	return float64(a) / float64(f)
}

// ratioCell is a / f as a table's cell, "-" when f is 0.
func ratioCell(a, f time.Duration) string {
	if f <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", ratio(a, f))
}

// loadedTable is each contender's handoff and release part against the
// probe that ran beside it, one row per workload and contender.
func loadedTable(r *report) string {
	var b strings.Builder
	b.WriteString("| workload | contender | acq/s | handoff p50 (ms) | probe: delete -> wake p50 (ms) | handoff / probe's wake | release part p50 (ms) | probe: delete round trip p50 (ms) | release / probe's delete | probes |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range []string{wC8Loaded, wC32Loaded} {
		for _, p := range r.columns() {
			for _, res := range r.runs[w][p] {
				fmt.Fprintf(&b, "| %s | %s | %.0f | %.3f | %.3f | %s | %.3f | %.3f | %s | %d |\n", w, p, res.AcqPerSec,
					ms(res.HandoffP50), ms(res.ProbeWake), ratioCell(res.HandoffP50, res.ProbeWake),
					ms(res.ReleaseP50), ms(res.ProbeDelete), ratioCell(res.ReleaseP50, res.ProbeDelete), res.Probes)
			}
		}
	}
	return b.String()
}

// loadedRows are #43's rows judged against the probe beside each run,
// zklock's and the Rejoin loop's: the handoff within 1.15x of the
// probe's wake (the floor under the same load), and the release part no
// longer than the probe's delete round trip (a release is one delete:
// what the client adds to it), the best peer's same ratio beside it.
func loadedRows(r *report) []limitRow {
	var out []limitRow
	for _, w := range []string{wC8Loaded, wC32Loaded} {
		for _, col := range []string{"zklock", rejoinName} {
			res, ok := r.only(w, col)
			if !ok || res.Handoffs == 0 {
				continue
			}
			hFig, relFig := w+": handoff p50 / floor under the same load, "+col, w+": release part / delete round trip under the same load, "+col
			if res.Probes == 0 {
				out = append(out, limitRow{hFig, "- (the probe made no cycle)", "<= 1.15x", "-"}, limitRow{relFig, "- (the probe made no cycle)", "<= 1.0x", "-"})
				continue
			}
			h := ratio(res.HandoffP50, res.ProbeWake)
			out = append(out, limitRow{hFig, fmt.Sprintf("%.2fx (%.3f / %.3f ms)", h, ms(res.HandoffP50), ms(res.ProbeWake)), "<= 1.15x", verdict(h <= 1.15)})
			rel := ratio(res.ReleaseP50, res.ProbeDelete)
			best, name := r.bestPeerRelease(w)
			peer := "no peer ran"
			if name != "" {
				peer = fmt.Sprintf("best peer %s %.2fx", name, best)
			}
			out = append(out, limitRow{relFig, fmt.Sprintf("%.2fx (%.3f / %.3f ms; %s)", rel, ms(res.ReleaseP50), ms(res.ProbeDelete), peer), "<= 1.0x", verdict(rel <= 1.0)})
		}
	}
	return out
}

// only is the one run of peer under workload w.
func (r *report) only(w, peer string) (runResult, bool) {
	runs := r.runs[w][peer]
	if len(runs) == 0 {
		return runResult{}, false
	}
	return runs[len(runs)-1], true
}

// bestPeerRelease is the lowest release part over the probe's delete
// among the peers under workload w, and whose it is (NaN, "" when none
// ran).
func (r *report) bestPeerRelease(w string) (float64, string) {
	best, name := math.NaN(), ""
	for _, p := range []string{"gozk", "curator", "kazoo"} {
		if res, ok := r.only(w, p); ok && res.Handoffs > 0 && res.Probes > 0 {
			if q := ratio(res.ReleaseP50, res.ProbeDelete); !math.IsNaN(q) && (math.IsNaN(best) || q < best) {
				best, name = q, p
			}
		}
	}
	return best, name
}
