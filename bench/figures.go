package main

// The figures of the comparison table (table.go) and their targets: what
// each workload is judged by.

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// figureFunc makes the row of one figure of a workload: each contender's
// summary over the repetitions, and its value in each round.
type figureFunc func(workload string, digits int, higher bool, f func(runResult) float64) row

// figureMaker is the figureFunc over the columns cols.
func (r *report) figureMaker(cols []string) figureFunc {
	return func(workload string, digits int, higher bool, f func(runResult) float64) row {
		rw := row{vals: map[string]summary{}, rounds: map[string][]float64{}, digits: digits, higher: higher}
		for _, p := range cols {
			rw.vals[p] = r.stat(workload, p, f)
			for _, res := range r.runs[workload][p] {
				rw.rounds[p] = append(rw.rounds[p], f(res))
			}
		}
		return rw
	}
}

// zklock is zklock's median of the row (0 when zklock did not run).
func (rw row) zklock() float64 { return rw.vals["zklock"].Median }

// rows are the table's rows, in the table's order: uncontended, each
// contended workload, the 1 ms hold, the watches, the overlaps.
func (r *report) rows() []row {
	cols := r.columns()
	per := r.figureMaker(cols)
	floor := r.floorSummary()
	rows := uncontendedRows(per)
	for _, w := range []string{wC8, wC32} {
		rows = append(rows, r.contendedRows(per, cols, w, floor)...)
	}
	rows = append(rows, r.hold1msRows(per, floor)...)
	rows = append(rows, r.watchRows(cols)...)
	return append(rows, r.overlapRows(cols)...)
}

// uncontendedRows: one client's acquire+release and its requests.
func uncontendedRows(per figureFunc) []row {
	u := per(wUncontended, 3, false, func(x runResult) float64 { return ms(x.CycleP50) })
	u.figure = "uncontended acquire+release p50 (ms)"
	u.target = "<= 0.9x best"
	if q := u.ratio(); !math.IsNaN(q) {
		u.verdict = verdict(q <= 0.9)
	}
	p99 := per(wUncontended, 3, false, func(x runResult) float64 { return ms(x.CycleP99) })
	p99.figure = "uncontended acquire+release p99 (ms)"
	req := per(wUncontended, 2, false, func(x runResult) float64 { return x.Requests })
	req.figure = "uncontended requests/acquisition"
	req.target = "<= 3"
	if z := req.zklock(); !math.IsNaN(z) {
		req.verdict = verdict(z <= 3.05)
	}
	return []row{u, p99, req}
}

// contendedRows are the figures of one contended workload (hold 0):
// throughput, handoffs, cycles, what each acquisition costs the server
// (requests, log commits, the log bound) and the CPU.
func (r *report) contendedRows(per figureFunc, cols []string, w string, floor [2]summary) []row {
	bound := r.logBound(w, cols)
	rows := []row{throughputRow(per, w, bound)}
	rows = append(rows, r.handoffRows(per, w, floor)...)
	rows = append(rows, cycleRows(per, w)...)
	rows = append(rows, requestsRow(per, w))
	rows = append(rows, commitRows(per, w)...)
	rows = append(rows, bound)
	return append(rows, cpuRows(per, w)...)
}

// throughputRow is acquisitions/s. Hold-0 throughput is bounded by the
// log (a run is a chain of commits, see logBound): the target is a share
// of that bound and a lead over the best peer the bound leaves room for,
// not a flat multiple the log cannot allow.
func throughputRow(per figureFunc, w string, bound row) row {
	a := per(w, 0, true, func(x runResult) float64 { return x.AcqPerSec })
	a.figure = w + ": acquisitions/s"
	a.target = ">= 1.1x best in every round, >= 0.8 of log bound"
	if q := a.ratio(); !math.IsNaN(q) {
		share := bound.zklock()
		a.verdict = verdict(leadsEveryRound(a, 1.1) && !math.IsNaN(share) && share >= 0.8)
	}
	return a
}

// leadsEveryRound: zklock's figure over the best peer's reached at least
// q in the medians and in each round (a lead that one noisy round can
// erase is not yet one).
func leadsEveryRound(rw row, q float64) bool { return leadsEveryRoundOf(rw, "zklock", q) }

// leadsEveryRoundOf is leadsEveryRound for the column col.
func leadsEveryRoundOf(rw row, col string, q float64) bool {
	rounds := rw.pairedRatiosOf(col)
	if len(rounds) == 0 || !(rw.ratioOf(col) >= q) {
		return false
	}
	return slices.Min(rounds) >= q
}

// handoffRows: the handoff's p50 (with its target against the best peer
// and the floor), its p99, and its two parts.
func (r *report) handoffRows(per figureFunc, w string, floor [2]summary) []row {
	h := per(w, 3, false, handoffMs(func(x runResult) time.Duration { return x.HandoffP50 }))
	h.figure = w + ": handoff p50 (ms)"
	h.floor = fmtSummary(floor[0], 3)
	h.target = "<= 0.8x best, <= 1.15x floor"
	if q := h.ratio(); !math.IsNaN(q) {
		h.verdict = verdict(q <= 0.8 && h.zklock() <= 1.15*floor[0].Median)
		h.verdict += " (" + r.overFloor(h) + ")"
	}
	p99 := per(w, 3, false, handoffMs(func(x runResult) time.Duration { return x.HandoffP99 }))
	p99.figure = w + ": handoff p99 (ms)"
	p99.floor = fmtSummary(floor[1], 3)
	return append([]row{h, p99}, handoffParts(per, w)...)
}

// cycleRows: acquire+release, p50 and p99.
func cycleRows(per figureFunc, w string) []row {
	p50 := per(w, 2, false, func(x runResult) float64 { return ms(x.CycleP50) })
	p50.figure = w + ": acquire+release p50 (ms)"
	p99 := per(w, 2, false, func(x runResult) float64 { return ms(x.CycleP99) })
	p99.figure = w + ": acquire+release p99 (ms)"
	return []row{p50, p99}
}

// requestsRow is requests per acquisition. zklock watches its own node
// (lock loss is signalled), which no peer does, and its waiters learn
// ahead of time that their predecessor holds: one request more than the
// cheapest peer buys both (the 0.05 beyond it is the idle sessions'
// pings, counted in every contender's figure).
func requestsRow(per figureFunc, w string) row {
	q := per(w, 2, false, func(x runResult) float64 { return x.Requests })
	q.figure = w + ": requests/acquisition"
	q.target = "<= cheapest peer + 1"
	if z := q.zklock(); !math.IsNaN(z) {
		_, b := q.best()
		q.verdict = verdict(!math.IsNaN(b) && z <= b+1.05)
	}
	return q
}

// commitRows: log commits per acquisition and per second. Every
// acquisition writes twice (create, delete); the server commits a write
// with whatever arrived while the one before was being written, one fsync
// per commit. Fewer commits than writes is that sharing.
func commitRows(per figureFunc, w string) []row {
	perAcq := per(w, 2, false, func(x runResult) float64 { return x.Commits })
	perAcq.figure = w + ": log commits/acquisition"
	perSec := per(w, 0, true, func(x runResult) float64 { return x.CommitsPerSec })
	perSec.figure = w + ": log commits/s"
	perSec.unranked = true
	return []row{perAcq, perSec}
}

// cpuRows: server and client CPU per acquisition, and how busy the server
// and the machine were (unranked: how busy is neither good nor bad).
func cpuRows(per figureFunc, w string) []row {
	server := per(w, 0, false, func(x runResult) float64 { return float64(x.CPU.ServerPer.Microseconds()) })
	server.figure = w + ": server CPU/acquisition (us)"
	client := per(w, 0, false, func(x runResult) float64 { return float64(x.CPU.ClientPer.Microseconds()) })
	client.figure = w + ": client CPU/acquisition (us)"
	serverBusy := per(w, 0, false, func(x runResult) float64 { return 100 * x.CPU.ServerShare })
	serverBusy.figure = w + ": server busy (% of one core)"
	serverBusy.unranked = true
	machineBusy := per(w, 0, false, func(x runResult) float64 { return 100 * x.CPU.MachineBusy })
	machineBusy.figure = w + ": machine busy (% of all cores)"
	machineBusy.unranked = true
	return []row{server, client, serverBusy, machineBusy}
}

// hold1msRows: with a 1 ms critical section the next holder is waiting,
// its listing done, when the release comes: the handoff itself, without
// the rush of hold-0 cycles on the server. No target of its own; the
// ratios are shown for comparison with the hold-0 rows.
func (r *report) hold1msRows(per figureFunc, floor [2]summary) []row {
	h := per(wHold1ms, 3, false, handoffMs(func(x runResult) time.Duration { return x.HandoffP50 }))
	h.figure = wHold1ms + ": handoff p50 (ms)"
	h.floor = fmtSummary(floor[0], 3)
	if z := h.zklock(); !math.IsNaN(z) && floor[0].Median > 0 {
		h.verdict = "(" + r.overFloor(h) + ")"
	}
	return append([]row{h}, handoffParts(per, wHold1ms)...)
}

// watchRows: the data watches on lock nodes with one holder and
// watchWaiters waiting, one count per contender.
func (r *report) watchRows(cols []string) []row {
	wrow := func(figure string, f func(watchCounts) int) row {
		rw := row{figure: figure, vals: map[string]summary{}}
		for _, p := range cols {
			if w, ok := r.watches[p]; ok {
				rw.vals[p] = summarize([]float64{float64(f(w))})
			}
		}
		return rw
	}
	total := wrow(fmt.Sprintf("data watches on lock nodes, 1 holder + %d waiting", watchWaiters), func(w watchCounts) int { return w.Total })
	ws := wrow("most data watches held by one session", func(w watchCounts) int { return w.MaxSession })
	ws.target = "<= 2 per waiter"
	if z, ok := ws.vals["zklock"]; ok && z.N > 0 {
		ws.verdict = verdict(z.Median <= 2)
	}
	onNode := wrow("most sessions watching one lock node", func(w watchCounts) int { return w.MaxOnNode })
	return []row{total, ws, onNode}
}

// overlapRows: the exclusion check's overlaps, summed over the runs of
// each group of workloads. zklock must have none, with Release or with
// Rejoin; the limit loop must
// have some, or the check did not bite.
func (r *report) overlapRows(cols []string) []row {
	sum := func(workloads ...string) func(string) (summary, bool) {
		return func(p string) (summary, bool) {
			n, any := 0, false
			for _, w := range workloads {
				for _, res := range r.runs[w][p] {
					n += res.Overlaps
					any = true
				}
			}
			return summarize([]float64{float64(n)}), any
		}
	}
	var rows []row
	for _, o := range []struct {
		figure    string
		workloads []string
	}{
		{"overlaps, hold 0 (every contended run)", []string{wC8, wC32}},
		{"overlaps, 1 ms hold", []string{wHold1ms}},
		{"overlaps, 30% of requests give up", []string{wGiveUp}},
	} {
		rw := row{figure: o.figure, vals: map[string]summary{}, target: "0"}
		f := sum(o.workloads...)
		for _, p := range cols {
			if s, ok := f(p); ok {
				rw.vals[p] = s
			}
		}
		// zklock's columns, the plain lock's and the Rejoin loop's.
		ours, none := false, true
		for _, c := range []string{"zklock", rejoinName} {
			if z, ok := rw.vals[c]; ok {
				ours, none = true, none && z.Median == 0
			}
		}
		if ours {
			rw.verdict = verdict(none)
			if l, ok := rw.vals["limit"]; ok {
				if l.Median > 0 {
					rw.verdict += "; the check bites (limit)"
				} else {
					rw.verdict += "; **limit found none: the check did not bite**"
				}
			}
		}
		rows = append(rows, rw)
	}
	return rows
}

// logBound is how close a workload's runs came to a chain of log
// commits each as long as the floor (a delete's commit and the wake on
// it): acquisitions/s x commits/acquisition x the floor p50 of the same
// round. At 1.00 every commit waited for the one before, so the only way
// to more acquisitions/s is fewer commits per acquisition: a create and a
// delete sharing one.
func (r *report) logBound(w string, cols []string) row {
	rw := row{figure: w + ": share of the log bound (acq/s x commits/acq x floor)", vals: map[string]summary{}, rounds: map[string][]float64{}, digits: 2, higher: true}
	for _, p := range cols {
		var vs []float64
		for k, res := range r.runs[w][p] {
			v := math.NaN()
			if k < len(r.floor) && p != "limit" {
				v = res.AcqPerSec * res.Commits * percentile(r.floor[k], 50).Seconds()
			}
			rw.rounds[p] = append(rw.rounds[p], v)
			if !math.IsNaN(v) {
				vs = append(vs, v)
			}
		}
		rw.vals[p] = summarize(vs)
	}
	return rw
}

// overFloor says how far zklock's handoff row is from the floor: the
// medians' ratio, and its spread over the rounds (round k's handoff over
// the floor taken right after round k's runs).
func (r *report) overFloor(h row) string { return r.overFloorOf(h, "zklock") }

// overFloorOf is overFloor for the column col.
func (r *report) overFloorOf(h row, col string) string {
	floor := r.floorSummary()
	out := fmt.Sprintf("%.2fx floor", h.vals[col].Median/floor[0].Median)
	var qs []float64
	for k, z := range h.rounds[col] {
		if k < len(r.floor) && !math.IsNaN(z) {
			if f := ms(percentile(r.floor[k], 50)); f > 0 {
				qs = append(qs, z/f)
			}
		}
	}
	if q := summarize(qs); q.N > 1 {
		out += fmt.Sprintf("; rounds %.2f-%.2f", q.Min, q.Max)
	}
	return out
}

// floorSummary: medians over repetitions of the floor's p50 and p99.
func (r *report) floorSummary() [2]summary {
	var p50, p99 []float64
	for _, lat := range r.floor {
		p50 = append(p50, ms(percentile(lat, 50)))
		p99 = append(p99, ms(percentile(lat, 99)))
	}
	return [2]summary{summarize(p50), summarize(p99)}
}

// handoffMs is a handoff figure of a run in milliseconds, NaN for a run
// without handoffs (the next holder never waited).
func handoffMs(f func(runResult) time.Duration) func(runResult) float64 {
	return func(x runResult) float64 {
		if x.Handoffs == 0 {
			return math.NaN()
		}
		return ms(f(x))
	}
}

// handoffParts are the two halves of a workload's handoff: the previous
// holder's release round trip (the server's delete, under the load of
// that moment) and the next holder's wake after it (what the waiting
// client adds: its notification, and a listing if it lists again).
func handoffParts(per figureFunc, w string) []row {
	release := per(w, 3, false, handoffMs(func(x runResult) time.Duration { return x.ReleaseP50 }))
	release.figure = w + ": handoff p50, release part (ms)"
	if w != wHold1ms {
		release.target = "<= 1.0x best"
		if q := release.ratio(); !math.IsNaN(q) {
			release.verdict = verdict(q <= 1.0)
		}
	}
	wake := per(w, 3, false, handoffMs(func(x runResult) time.Duration { return x.WakeP50 }))
	wake.figure = w + ": handoff p50, wake part (ms)"
	return []row{release, wake}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}
