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
// cheapest peer's. The verdicts are the comparison table's own.
func (r *report) limitRows() []limitRow {
	cols := r.columns()
	per := r.figureMaker(cols)
	floor := r.floorSummary()
	var out []limitRow
	for _, w := range []string{wC8, wC32} {
		a := throughputRow(per, w, r.logBound(w, cols))
		out = append(out, limitRow{w + ": acquisitions/s, zklock / best peer", ratioText(a), ">= 1.1x in every round", leadVerdict(a)})

		h := per(w, 3, false, handoffMs(func(x runResult) time.Duration { return x.HandoffP50 }))
		hv := "-"
		if z := h.zklock(); !math.IsNaN(z) && floor[0].Median > 0 {
			hv = verdict(z <= 1.15*floor[0].Median)
		}
		out = append(out, limitRow{w + ": handoff p50 / floor (delete -> wake)", r.overFloor(h), "<= 1.15x", hv})

		rel := handoffParts(per, w)[0]
		out = append(out, limitRow{w + ": handoff release part / best peer's", ratioText(rel), rel.target, dash(rel.verdict)})

		q := requestsRow(per, w)
		name, b := q.best()
		qm := "-"
		if z := q.zklock(); !math.IsNaN(z) && !math.IsNaN(b) {
			qm = fmt.Sprintf("%.2f vs %.2f (%s)", z, b, name)
		}
		out = append(out, limitRow{w + ": requests per contended acquisition", qm, q.target, dash(q.verdict)})
	}
	return out
}

// ratioText is a row's zklock / best ratio with its rounds' spread.
func ratioText(rw row) string {
	q := rw.ratio()
	if math.IsNaN(q) {
		return "-"
	}
	s := fmt.Sprintf("%.2fx", q)
	if rs := rw.pairedRatios(); len(rs) > 1 {
		s += fmt.Sprintf(" (rounds %.2f-%.2f)", slices.Min(rs), slices.Max(rs))
	}
	return s
}

// leadVerdict judges the lead alone (the throughput row's verdict also
// asks for the log bound's share).
func leadVerdict(a row) string {
	if math.IsNaN(a.ratio()) {
		return "-"
	}
	return verdict(leadsEveryRound(a, 1.1))
}

// limitTable is limitRows as Markdown.
func (r *report) limitTable() string {
	var b strings.Builder
	b.WriteString("| figure | measured | target | verdict |\n|---|---|---|---|\n")
	for _, l := range r.limitRows() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", l.figure, l.measured, l.target, l.verdict)
	}
	return b.String()
}
