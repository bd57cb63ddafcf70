package main

// The console's side of the report: the `go test -bench` runs of zkview
// and ui (console.go runs them), one row each.

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// consoleTable is the console benchmarks as a Markdown table: each
// benchmark's figures, or why it failed.
func (r *report) consoleTable() string {
	var b strings.Builder
	b.WriteString("| benchmark | what | figures |\n|---|---|---|\n")
	for _, l := range r.console {
		fig := "failed: " + strings.ReplaceAll(l.Err, "\n", " ")
		if l.Err == "" {
			fig = fmtMetrics(l.Metrics)
		}
		fmt.Fprintf(&b, "| %s (%s, %dx) | %s | %s |\n", l.Bench.Name, l.Bench.Pkg, l.N, l.Bench.What, fig)
	}
	return b.String()
}

// fmtMetrics is a benchmark's figures, "value unit" each, by unit.
func fmtMetrics(metrics map[string]float64) string {
	var fs []string
	for _, k := range slices.Sorted(maps.Keys(metrics)) {
		fs = append(fs, fmt.Sprintf("%s %s", fmtFloat(metrics[k]), k))
	}
	return strings.Join(fs, ", ")
}

func fmtFloat(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}
