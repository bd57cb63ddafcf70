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
func consoleTable(lines []benchLine) string {
	var b strings.Builder
	b.WriteString("| benchmark | what | figures |\n|---|---|---|\n")
	for _, l := range lines {
		fig := "failed: " + strings.ReplaceAll(l.Err, "\n", " ")
		if l.Err == "" {
			fig = fmtMetrics(l.Metrics)
		}
		fmt.Fprintf(&b, "| %s (%s, %dx) | %s | %s |\n", l.Bench.Name, l.Bench.Pkg, l.N, l.Bench.What, fig)
	}
	return b.String()
}

// consoleTarget is one target of the console at incident scale (#18),
// judged on the figures of this run.
type consoleTarget struct {
	what  string
	bench string // the benchmark whose figure it is
	unit  string
	most  float64 // the figure must be at most this
	// per: the figure is divided by this benchmark's ns/op first (a
	// ratio against a floor measured in the same run), when set.
	per string
}

// consoleTargets are the targets the console benchmarks are judged by.
var consoleTargets = []consoleTarget{
	{what: "requests per create, 10,000-node queue", bench: "BenchmarkChange10000", unit: "requests/create", most: 2},
	{what: "bytes read per create, 10,000-node queue", bench: "BenchmarkChange10000", unit: "bytes-read/create", most: 2048},
	{what: "requests per create, 100,000-node queue", bench: "BenchmarkChange100000", unit: "requests/create", most: 2},
	{what: "bytes read per create, 100,000-node queue", bench: "BenchmarkChange100000", unit: "bytes-read/create", most: 2048},
	{what: "change to snapshot p50 (ms), 10,000 nodes", bench: "BenchmarkChange10000", unit: "ms-to-snapshot-p50", most: 10},
	{what: "change to snapshot p99 (ms), 10,000 nodes", bench: "BenchmarkChange10000", unit: "ms-to-snapshot-p99", most: 30},
	{what: "change to snapshot p50 (ms), 100,000 nodes", bench: "BenchmarkChange100000", unit: "ms-to-snapshot-p50", most: 20},
	{what: "change to snapshot p99 (ms), 100,000 nodes", bench: "BenchmarkChange100000", unit: "ms-to-snapshot-p99", most: 60},
	{what: "first picture of 1,000 x 10 against the raw pipelined loop", bench: "BenchmarkFirstPicture1000x10", unit: "ns/op", most: 1.2, per: "BenchmarkBareLoad1000x10"},
	{what: "process memory per watched node after GC (bytes), 10,000 nodes", bench: "BenchmarkRSS10000", unit: "rss-gc-bytes/node", most: 1024},
	{what: "process memory per watched node after GC (bytes), 100,000 nodes", bench: "BenchmarkRSS100000", unit: "rss-gc-bytes/node", most: 1024},
	{what: "View() of a 100,000-node queue (ns)", bench: "BenchmarkView100k", unit: "ns/op", most: 2e6},
	{what: "slowest frame scrolling a 100,000-node queue (ms)", bench: "BenchmarkKeys100k/down", unit: "max-ms", most: 50},
	{what: "slowest frame filtering with a 100,000-node queue (ms)", bench: "BenchmarkKeys100k/filter", unit: "max-ms", most: 50},
	{what: "slowest frame following the holder, 100,000 nodes (ms)", bench: "BenchmarkKeys100k/handoff", unit: "max-ms", most: 50},
	{what: "200 changes/s: change to snapshot p99 (ms)", bench: "BenchmarkSustained200", unit: "p99-ms", most: 50},
	{what: "200 changes/s: the process's share of a core, the benchmark's own reading of the writer included (%)", bench: "BenchmarkSustained200", unit: "cpu-%-of-core", most: 10},
	{what: "200 changes/s: the Watcher's share of a core: the process's less the benchmark's own (%)", bench: "BenchmarkSustained200", unit: "watcher-cpu-%", most: 10},
	{what: "2,000 changes/s: nodes wrong after it stops (against a fresh read)", bench: "BenchmarkSustained2000", unit: "final-diff-nodes", most: 0},
	{what: "2,000 changes/s: the largest lag, in frames of changes", bench: "BenchmarkSustained2000", unit: "max-lag-frames", most: 1},
	{what: "2,000 changes/s: change to snapshot p99 (ms)", bench: "BenchmarkSustained2000", unit: "p99-ms", most: 20},
	{what: "2,000 changes/s, a bare client beside it in the same run: the Watcher's largest lag over the bare client's (the floor on the same server at the same moments)", bench: "BenchmarkSustainedPaired2000", unit: "max-lag-over-floor", most: 1.15},
	{what: "2,000 changes/s, a bare client beside it: what the Watcher holds back beyond the bare client at the same instant, p99, in frames", bench: "BenchmarkSustainedPaired2000", unit: "excess-p99-frames", most: 1},
	{what: "2,000 changes/s: the most events held unpublished at a publish (receive side), in frames (#34)", bench: "BenchmarkSustained2000", unit: "max-held-frames", most: 1},
	// A lock per entity (#34), 100,000 lock parents.
	{what: "View() of the lock list of 100,000 parents (ns)", bench: "BenchmarkWide100k/view", unit: "ns/op", most: 2e6},
	{what: "slowest frame scrolling 100,000 parents (ms)", bench: "BenchmarkWide100k/down", unit: "max-ms", most: 50},
	{what: "slowest frame sorting 100,000 parents (ms)", bench: "BenchmarkWide100k/sort", unit: "max-ms", most: 50},
	{what: "slowest frame filtering 100,000 parents (ms)", bench: "BenchmarkWide100k/filter", unit: "max-ms", most: 50},
	{what: "slowest frame of waiting-only, 100,000 parents (ms)", bench: "BenchmarkWide100k/waiting", unit: "max-ms", most: 50},
	{what: "sessions table of 10,000 sessions (ns)", bench: "BenchmarkSessions10k/table", unit: "ns/op", most: 2e9},
	{what: "export scrape of 100,000 parents (ns)", bench: "BenchmarkExportScrape100k", unit: "ns/op", most: 2e8},
	// A root watched whole (#34): one recursive watch for every parent.
	{what: "first picture of a root of 10,000 parents against the raw pipelined listing", bench: "BenchmarkRootFirstPicture10000", unit: "ns/op", most: 1.2, per: "BenchmarkRootBareList10000"},
	{what: "first picture of a root of 100,000 parents against the raw pipelined listing", bench: "BenchmarkRootFirstPicture100000", unit: "ns/op", most: 1.2, per: "BenchmarkRootBareList100000"},
	{what: "first snapshot of a root of 100,000 parents (ms)", bench: "BenchmarkRootFirstPicture100000", unit: "first-ms", most: 1000},
	{what: "change under a root of 10,000 parents to snapshot p50 (ms)", bench: "BenchmarkRootChange10000", unit: "ms-to-snapshot-p50", most: 10},
	{what: "change under a root of 10,000 parents to snapshot p99 (ms)", bench: "BenchmarkRootChange10000", unit: "ms-to-snapshot-p99", most: 30},
	{what: "change under a root of 100,000 parents to snapshot p50 (ms)", bench: "BenchmarkRootChange100000", unit: "ms-to-snapshot-p50", most: 10},
	{what: "change under a root of 100,000 parents to snapshot p99 (ms)", bench: "BenchmarkRootChange100000", unit: "ms-to-snapshot-p99", most: 30},
	{what: "requests per change under a root of 100,000 parents", bench: "BenchmarkRootChange100000", unit: "requests/change", most: 2},
	{what: "bytes read per change under a root of 100,000 parents", bench: "BenchmarkRootChange100000", unit: "bytes-read/change", most: 2048},
	{what: "process memory per empty parent after GC (bytes), 100,000 parents", bench: "BenchmarkRootRSS100000", unit: "rss-gc-bytes/parent", most: 600},
	{what: "process memory per parent with a node after GC (bytes), 100,000 parents", bench: "BenchmarkRootRSSHeld100000", unit: "rss-gc-bytes/parent", most: 1024},
}

// consoleTargetTable judges consoleTargets on this run's figures (lines).
func consoleTargetTable(lines []benchLine) string {
	by := map[string]map[string]float64{}
	for _, l := range lines {
		if l.Err == "" {
			by[l.Bench.Name] = l.Metrics
		}
	}
	var b strings.Builder
	b.WriteString("| target | benchmark | measured | at most | verdict |\n|---|---|---|---|---|\n")
	for _, t := range consoleTargets {
		v, ok := by[t.bench][t.unit]
		if ok && t.per != "" {
			floor, fok := by[t.per]["ns/op"]
			ok = fok && floor > 0
			if ok {
				v /= floor
			}
		}
		measured, verdict := "-", "not measured"
		if ok {
			measured, verdict = fmtFloat(v), "met"
			if v > t.most {
				verdict = "not met"
			}
			if t.per != "" {
				measured += "x"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", t.what, t.bench, measured, fmtFloat(t.most), verdict)
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
