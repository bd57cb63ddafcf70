package main

// The comparison table of the lock runs: one row per figure, a column
// per contender, the best peer, zklock's ratio to it, the target and the
// verdict. figures.go says which rows there are.

import (
	"fmt"
	"math"
	"strings"
)

// peerNames are the contenders zklock is compared with; "limit" and the
// floor are references, never the best peer.
var peerNames = []string{"gozk", "curator", "kazoo"}

// rejoinName is zklock's lock core looping with Lock.Rejoin: zklock's own,
// shown beside it, never the best peer.
const rejoinName = "zklock-rejoin"

var titles = map[string]string{
	"zklock":   "zklock lockops",
	rejoinName: "zklock lockops, Rejoin loop",
	"gozk":     "go-zookeeper zk.Lock",
	"curator":  "Curator InterProcessMutex",
	"kazoo":    "Kazoo Lock",
	"limit":    "limit (create+delete)",
}

// row is one figure of the table.
type row struct {
	figure string
	vals   map[string]summary
	// rounds: each peer's figure in each repetition, in run order (NaN
	// where a repetition has none). Repetition k of every contender ran in
	// the same round, minutes apart at most: pairs that share the
	// machine's mood.
	rounds map[string][]float64
	digits int
	higher bool // higher is better
	// unranked: neither higher nor lower is better (how busy the server
	// was, how often it committed): no best peer, no ratio.
	unranked bool
	floor    string // the floor column, for handoffs
	target   string
	verdict  string
}

func fmtSummary(s summary, digits int) string {
	if s.N == 0 || math.IsNaN(s.Median) {
		return "-"
	}
	v := fmt.Sprintf("%.*f", digits, s.Median)
	if s.N > 1 && s.Min != s.Max {
		v += fmt.Sprintf(" (%.*f-%.*f)", digits, s.Min, digits, s.Max)
	}
	return v
}

// best is the best peer's median (zklock, limit and the floor excluded).
func (rw row) best() (string, float64) {
	name, v := "", math.NaN()
	if rw.unranked {
		return name, v
	}
	for _, p := range peerNames {
		s, ok := rw.vals[p]
		if !ok || s.N == 0 || math.IsNaN(s.Median) {
			continue
		}
		if math.IsNaN(v) || (rw.higher && s.Median > v) || (!rw.higher && s.Median < v) {
			name, v = p, s.Median
		}
	}
	return name, v
}

// pairedRatios are zklock's figure over the best peer's in each round,
// for the rounds where both have one: the spread of the ratio itself,
// which the spreads of the medians overstate when the whole machine slows
// down for a round.
func (rw row) pairedRatios() []float64 { return rw.pairedRatiosOf("zklock") }

// pairedRatiosOf is pairedRatios of the column col (zklock-rejoin's, say).
func (rw row) pairedRatiosOf(col string) []float64 {
	var out []float64
	for k, z := range rw.rounds[col] {
		b := math.NaN()
		for _, p := range peerNames {
			if k >= len(rw.rounds[p]) {
				continue
			}
			v := rw.rounds[p][k]
			if !math.IsNaN(v) && (math.IsNaN(b) || (rw.higher && v > b) || (!rw.higher && v < b)) {
				b = v
			}
		}
		if !math.IsNaN(z) && !math.IsNaN(b) && b != 0 {
			out = append(out, z/b)
		}
	}
	return out
}

func (rw row) ratio() float64 { return rw.ratioOf("zklock") }

// ratioOf is the column col's median over the best peer's.
func (rw row) ratioOf(col string) float64 {
	_, b := rw.best()
	z, ok := rw.vals[col]
	if !ok || z.N == 0 || math.IsNaN(b) || b == 0 {
		return math.NaN()
	}
	return z.Median / b
}

// comparisonTable is the comparison as a Markdown table: rows (figures.go)
// over the contenders' columns cols.
func comparisonTable(cols []string, rows []row) string {
	var b strings.Builder
	b.WriteString("| figure |")
	for _, c := range cols {
		b.WriteString(" " + titles[c] + " |")
	}
	b.WriteString(" floor | best peer | zklock / best | target | verdict |\n|---|")
	b.WriteString(strings.Repeat("---|", len(cols)+5) + "\n")
	for _, rw := range rows {
		b.WriteString("| " + rw.figure + " |")
		for _, c := range cols {
			b.WriteString(" " + fmtSummary(rw.vals[c], rw.digits) + " |")
		}
		fl := rw.floor
		if fl == "" {
			fl = "-"
		}
		name, _ := rw.best()
		q := rw.ratio()
		qs := "-"
		if !math.IsNaN(q) {
			qs = fmt.Sprintf("%.2fx", q)
			if pr := summarize(rw.pairedRatios()); pr.N > 1 {
				qs += fmt.Sprintf(" (rounds %.2f-%.2f)", pr.Min, pr.Max)
			}
		}
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(&b, " %s | %s | %s | %s | %s |\n", fl, name, qs, dash(rw.target), dash(rw.verdict))
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
