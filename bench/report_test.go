package main

import (
	"strings"
	"testing"
)

// TestJarVersion: Debian's Curator jars have no version in the manifest;
// the versioned copy beside the unversioned name tells it.
func TestJarVersion(t *testing.T) {
	if v := jarVersion("/usr/share/java/curator-recipes.jar"); v == "" || v[0] < '0' || v[0] > '9' {
		t.Fatalf("jarVersion of Debian's curator-recipes.jar = %q, want a version (install libcurator-recipes-java: make deps)", v)
	}
}

// TestConsoleTargetTable: a target is judged on its own figure, a ratio
// against its floor when it has one, and "not measured" without it.
func TestConsoleTargetTable(t *testing.T) {
	r := &report{console: []benchLine{
		{Bench: goBench{Name: "BenchmarkChange10000"}, Metrics: map[string]float64{"requests/create": 2, "ms-to-snapshot-p50": 12}},
		{Bench: goBench{Name: "BenchmarkFirstPicture1000x10"}, Metrics: map[string]float64{"ns/op": 1.1e9}},
		{Bench: goBench{Name: "BenchmarkBareLoad1000x10"}, Metrics: map[string]float64{"ns/op": 1e9}},
		{Bench: goBench{Name: "BenchmarkSustained200"}, Metrics: map[string]float64{"cpu-%-of-core": 13.5, "watcher-cpu-%": 9.5}},
		{Bench: goBench{Name: "BenchmarkSustained2000"}, Metrics: map[string]float64{"max-lag-frames": 0.9, "p99-ms": 25}},
	}}
	out := consoleTargetTable(r.console)
	for _, want := range []string{
		"| requests per create, 10,000-node queue | BenchmarkChange10000 | 2 | 2 | met |",
		"| change to snapshot p50 (ms), 10,000 nodes | BenchmarkChange10000 | 12 | 10 | not met |",
		"| first picture of 1,000 x 10 against the raw pipelined loop | BenchmarkFirstPicture1000x10 | 1.1x | 1.2 | met |",
		"| View() of a 100,000-node queue (ns) | BenchmarkView100k | - | 2000000 | not measured |",
		// #43's console rows.
		"| 200 changes/s: the process's share of a core, the benchmark's own reading of the writer included (%) | BenchmarkSustained200 | 13.5 | 10 | not met |",
		"| 200 changes/s: the Watcher's share of a core: the process's less the benchmark's own (%) | BenchmarkSustained200 | 9.5 | 10 | met |",
		"| 2,000 changes/s: the largest lag, in frames of changes | BenchmarkSustained2000 | 0.9 | 1 | met |",
		"| 2,000 changes/s: change to snapshot p99 (ms) | BenchmarkSustained2000 | 25 | 20 | not met |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
