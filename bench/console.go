package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// goBench is one `go test -bench` benchmark the harness runs for the
// console side. The benchmarks live beside the code they measure
// (zkview/bench_test.go, ui/bench_test.go) and start their own sandbox
// server; the harness only runs them, after the lock runs, so that they
// do not compete for the CPU.
type goBench struct {
	Pkg, Name string
	Benchtime string
	What      string // what it measures, for the report
}

// benchLine is one parsed result line.
type benchLine struct {
	Bench   goBench
	N       int
	Metrics map[string]float64 // unit -> value (ns/op, B/op, custom units)
	Err     string
}

func consoleBenches(quick bool) []goBench {
	n := "3x"
	if quick {
		n = "1x"
	}
	benches := []goBench{
		{"./zkview", "BenchmarkInitialLoad1000x10", n, "zkview initial load, 1,000 lock parents x 10 nodes"},
		{"./zkview", "BenchmarkBareLoad1000x10", n, "the floor: the same listings and reads from raw go-zookeeper calls, pipelined, no model"},
		{"./zkview", "BenchmarkFirstPicture1000x10", n, "the console's first picture (Watch: a persistent watch, a listing and a Get per node) of 1,000 lock parents x 10 nodes; partial pictures on the way"},
		{"./zkview", "BenchmarkChange10000", "20x", "zkview: one create and one delete in a watched 10,000-node queue, persistent recursive watch"},
		{"./zkview", "BenchmarkChange10000Children", "5x", "the same with children watches (servers before 3.6): each change re-lists the queue"},
		{"./zkview", "BenchmarkChange100000", "10x", "zkview: one create and one delete in a watched 100,000-node queue, persistent recursive watch"},
		{"./zkview", "BenchmarkSustained200", "2x", "zkview: 200 changes/s for 5 s in a watched 10,000-node queue (writer in its own process): change to first snapshot showing it, the process's CPU and the Watcher's (less the benchmark's own reading of the writer), frames/s"},
		{"./zkview", "BenchmarkSustained2000", "1x", "the same at 2,000 changes/s, pipelined: also the largest lag in changes, and the last snapshot against a fresh Load"},
		{"./zkview", "BenchmarkSustainedFloor200", "2x", "the floor of BenchmarkSustained200: the same writer and queue watched by a bare client (one persistent recursive watch, a read of each new node; no model, no snapshots): its share of a core less the benchmark's own (floor-cpu-%), the largest lag in changes"},
		{"./zkview", "BenchmarkSustainedFloor2000", "1x", "the floor of BenchmarkSustained2000, the same way"},
		{"./zkview", "BenchmarkSustainedPaired2000", "2x", "BenchmarkSustained2000's writer watched by a Watcher and the bare client at once (two sessions, one process): both lags sampled at each of the Watcher's snapshots, so that a slow read of the server's falls on both; the Watcher's largest lag over the bare client's, and what it holds back beyond the bare client at the same instant (excess)"},
		{"./zkview", "BenchmarkRSS10000", "3x", "zkview: process RSS and Go heap per node for watching a 10,000-node queue (first full snapshot minus before Watch)"},
		{"./zkview", "BenchmarkRSS100000", "1x", "the same for 100,000 nodes (target <= 1 KB/node)"},
		{"./ui", "BenchmarkView10k", "200x", "ui View() of a 10,000-node queue at 160x48"},
		{"./ui", "BenchmarkView100k", "200x", "ui View() of a 100,000-node queue at 160x48, 24-bit colour, the cursor moving"},
		{"./ui", "BenchmarkUpdate100k", "200x", "ui: a new snapshot of a 100,000-node queue (the holder left, one joined at the tail) taken in and drawn"},
		{"./ui", "BenchmarkKeys100k/down", "500x", "ui: one `down` and the frame after it, 100,000-node queue (max-ms: the slowest frame)"},
		{"./ui", "BenchmarkKeys100k/filter", "200x", "ui: `/`, typing, enter, esc with a 100,000-node queue shown (max-ms: the slowest frame)"},
		{"./ui", "BenchmarkKeys100k/handoff", "200x", "ui: the holder leaves while the cursor is on it, 100,000-node queue (max-ms: the slowest frame)"},
		{"./ui", "BenchmarkLocks5k/sort", "200x", "ui: `s` over 5,000 lock parents and the frame after it"},
		{"./ui", "BenchmarkEventToFrame", "600x", "ui: a zkview change to the frame that shows it, 200 changes/s through a real tea.Program"},
		// A lock per entity (#34): a root of 100,000 lock parents, 1 in 10
		// held, 1 in 100 with waiters; synthetic snapshots, no server. By
		// hand: go test -run '^$' -bench 'Wide100k|LsJSON100k|Sessions10k|ExportScrape100k' -benchmem ./ui ./cmd ./exporter
		{"./ui", "BenchmarkWide100k/view", "200x", "ui View() of the lock list of 100,000 lock parents at 160x48"},
		{"./ui", "BenchmarkWide100k/down", "500x", "ui: one `down` in the lock list of 100,000 parents and the frame after it (max-ms: the slowest frame)"},
		{"./ui", "BenchmarkWide100k/sort", "100x", "ui: `s` through every order (contention/depth, stuck first/oldest wait, hold time, name) of 100,000 parents"},
		{"./ui", "BenchmarkWide100k/filter", "100x", "ui: `/`, typing, backspace, enter, esc over 100,000 parents"},
		{"./ui", "BenchmarkWide100k/waiting", "100x", "ui: `W` (waiting only) and `s` over 100,000 parents"},
		{"./ui", "BenchmarkWide100k/update", "50x", "ui: a new snapshot of 100,000 parents taken in"},
		{"./cmd", "BenchmarkLsJSON100k/stream", "3x", "ls -o json of 100,000 parents, streamed (peak-heap-MB: heap at the writes)"},
		{"./cmd", "BenchmarkLsJSON100k/array", "1x", "the old way for comparison: the whole array marshalled at once"},
		{"./cmd", "BenchmarkSessions10k/table", "5x", "sessions --root after the read: the table of 10,000 sessions over 100,000 parents"},
		{"./exporter", "BenchmarkExportScrape100k", "10x", "export: one scrape of 100,000 parents, --top 200 plus the aggregates"},
	}
	return append(benches, rootBenches(n, quick)...)
}

// rootBenches watch a root of lock parents whole (#34): one recursive
// watch, 1 in 10 parents held, 1 in 100 with waiters. Quick runs keep to
// 10,000 parents: making a tree of 100,000 takes a minute or two. By
// hand: go test -run '^$' -bench Root -benchtime 1x ./zkview
func rootBenches(n string, quick bool) []goBench {
	bs := []goBench{
		{"./zkview", "BenchmarkRootFirstPicture10000", n, "zkview: the first picture of a root of 10,000 lock parents (first-ms: the first snapshot with a parent in it)"},
		{"./zkview", "BenchmarkRootBareList10000", n, "the floor: the root, every parent listed and every lock node read, pipelined raw go-zookeeper calls, no model"},
		{"./zkview", "BenchmarkRootChange10000", "20x", "zkview: under a watched root of 10,000 parents, a waiter joins and leaves a held parent, a parent is made with a holder and deleted (4 changes)"},
		{"./zkview", "BenchmarkRootRSS10000", "1x", "zkview: process RSS per parent after GC, a root of 10,000 empty parents"},
		{"./zkview", "BenchmarkRootRSSHeld10000", "1x", "the same, each parent holding one lock node"},
		{"./systems", "BenchmarkSystemsReadWide100k", "10x", "systems: one read of the systems' layouts (the Watcher's, every 15 s) over a root of 100,000 plain lock parents, reads answered from memory: the CPU it costs"},
	}
	if quick {
		return bs
	}
	return append(bs,
		goBench{"./zkview", "BenchmarkRootFirstPicture100000", "1x", "the first picture of a root of 100,000 lock parents"},
		goBench{"./zkview", "BenchmarkRootBareList100000", "1x", "its floor: the raw pipelined listing of the same tree"},
		goBench{"./zkview", "BenchmarkRootChange100000", "20x", "the 4 changes under a watched root of 100,000 parents"},
		goBench{"./zkview", "BenchmarkRootRSS100000", "1x", "process RSS per parent after GC, a root of 100,000 empty parents (target <= 600 B)"},
		goBench{"./zkview", "BenchmarkRootRSSHeld100000", "1x", "the same, each parent holding one lock node (target <= 1 KB)"},
	)
}

// runGoBench runs one benchmark in its package and parses its line.
func runGoBench(ctx context.Context, goCmd string, b goBench) benchLine {
	out := benchLine{Bench: b, Metrics: map[string]float64{}}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "test", "-run", "^$", "-bench", "^"+b.Name+"$",
		"-benchtime", b.Benchtime, "-benchmem", "-count", "1", b.Pkg)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = os.Environ()
	err := cmd.Run()
	found := false
	for _, line := range strings.Split(stdout.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[0], b.Name) {
			continue
		}
		n, perr := strconv.Atoi(f[1])
		if perr != nil {
			continue
		}
		found = true
		out.N = n
		for i := 2; i+1 < len(f); i += 2 {
			v, perr := strconv.ParseFloat(f[i], 64)
			if perr == nil {
				out.Metrics[f[i+1]] = v
			}
		}
	}
	if err != nil || !found {
		tail := strings.TrimSpace(stdout.String() + "\n" + stderr.String())
		if len(tail) > 600 {
			tail = tail[len(tail)-600:]
		}
		out.Err = fmt.Sprintf("%v: %s", err, tail)
	}
	return out
}
