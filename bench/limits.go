package main

// The lock core at the limit (#43): the contended runs' figures that say
// how far zklock is from the best peer and from the floor, each with its
// target and verdict, in one short table after the comparison.

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// limitRow is one figure of the limit table.
type limitRow struct {
	figure, measured, target, verdict string
}

// limitRows are #43's figures for each contended workload (hold 0):
// throughput over the best peer in every round, the handoff over the
// floor, the release part over the best peer's, requests over the
// cheapest peer's. When the Rejoin loop ran, its throughput and handoff
// rows follow the plain lock's, with the same targets. The verdicts are
// the comparison table's own; the rows judged against the probe beside
// each run (loadedRows) close the table.
func limitRows(r *report) []limitRow {
	cols := r.columns()
	per := r.figureMaker(cols)
	var out []limitRow
	for _, w := range []string{wC8, wC32} {
		rejoin := r.present(rejoinName)
		a := throughputRow(per, w, r.logBound(w, cols))
		out = append(out, limitRow{w + ": acquisitions/s, zklock / best peer", ratioText(a, "zklock"), ">= 1.1x in every round", leadVerdict(a, "zklock")})
		if rejoin {
			out = append(out, limitRow{w + ": acquisitions/s, zklock-rejoin / best peer", ratioText(a, rejoinName), ">= 1.1x in every round", leadVerdict(a, rejoinName)})
		}

		h := per(w, 3, false, handoffMs(func(x runResult) time.Duration { return x.HandoffP50 }))
		out = append(out, limitRow{w + ": handoff p50 / floor (delete -> wake)", r.overFloor(h), "<= 1.15x", r.floorVerdict(h, "zklock")})
		if rejoin {
			out = append(out, limitRow{w + ": handoff p50 / floor, zklock-rejoin (floor: delete -> wake)", r.overFloorOf(h, rejoinName), "<= 1.15x", r.floorVerdict(h, rejoinName)})
		}

		rel := handoffParts(per, w)[0]
		out = append(out, limitRow{w + ": handoff release part / best peer's", ratioText(rel, "zklock"), rel.target, dash(rel.verdict)})

		q := requestsRow(per, w)
		name, b := q.best()
		qm := "-"
		if z := q.zklock(); !math.IsNaN(z) && !math.IsNaN(b) {
			qm = fmt.Sprintf("%.2f vs %.2f (%s)", z, b, name)
		}
		out = append(out, limitRow{w + ": requests per contended acquisition", qm, q.target, dash(q.verdict)})
	}
	return append(out, loadedRows(r)...)
}

// floorVerdict judges the column col's handoff p50 in h against 1.15x
// the floor.
func (r *report) floorVerdict(h row, col string) string {
	floor := r.floorSummary()
	z, ok := h.vals[col]
	if !ok || math.IsNaN(z.Median) || !(floor[0].Median > 0) {
		return "-"
	}
	return verdict(z.Median <= 1.15*floor[0].Median)
}

// ratioText is a row's col / best ratio with its rounds' spread.
func ratioText(rw row, col string) string {
	q := rw.ratioOf(col)
	if math.IsNaN(q) {
		return "-"
	}
	s := fmt.Sprintf("%.2fx", q)
	if rs := rw.pairedRatiosOf(col); len(rs) > 1 {
		s += fmt.Sprintf(" (rounds %.2f-%.2f)", slices.Min(rs), slices.Max(rs))
	}
	return s
}

// leadVerdict judges the lead alone (the throughput row's verdict also
// asks for the log bound's share).
func leadVerdict(a row, col string) string {
	if math.IsNaN(a.ratioOf(col)) {
		return "-"
	}
	return verdict(leadsEveryRoundOf(a, col, 1.1))
}

// limitTable is limitRows as Markdown.
func limitTable(r *report) string {
	var b strings.Builder
	b.WriteString("| figure | measured | target | verdict |\n|---|---|---|---|\n")
	for _, l := range limitRows(r) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", l.figure, l.measured, l.target, l.verdict)
	}
	return b.String()
}
