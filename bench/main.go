// Command bench compares zklock's lock core with the lock recipes people
// already run, in one run against one fresh ZooKeeper, and measures the
// console's cost on the ensemble:
//
//	go run ./bench            # make bench: the full run, ~10 minutes
//	go run ./bench -quick     # the same figures, shorter runs, ~3 minutes
//
// It starts a standalone sandbox server and runs the same workloads through
// zklock's lockops (also as zklock-rejoin: each client Acquires once, then
// loops Lock.Rejoin, #43), go-zookeeper's zk.Lock, Apache Curator's
// InterProcessMutex and Kazoo's Lock (real clients, driven by
// zklock/sandbox/peers), a "limit" loop (create and delete an ephemeral
// sequential node, no lock logic: its holders overlap, proving that the
// exclusion check bites) and a "floor" loop (one session deletes a node,
// another wakes on its data watch: the least a handoff can cost).
//
// Workloads: one client uncontended; 8 and 32 clients, each in its own
// session, contending with hold time 0 (each repeated -runs times, each
// run cut into -slices slices taken by the peers in turn, in rotated
// order; medians with their spread); 8 clients holding 1 ms;
// 8 clients of which 30% give up at a random moment; 1 holder and 32
// waiters for the server's watch lists. Every cycle is timed by the wall
// clock of the process that ran it, and all critical sections of a run go
// through peers.Overlaps, the exclusion check.
//
// Then the console side, as `go test -bench` runs of zkview and ui.
// The table with the ratio of zklock to the best peer per figure goes to
// -out (bench/RESULTS.md).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"
)

type options struct {
	quick      bool
	out        string
	duration   time.Duration
	safetyDur  time.Duration
	runs       int
	slices     int
	cycles     int
	contenders []string
	workloads  map[string]bool
	console    bool
	noSync     bool
	cpuProfile string
	sessionTO  time.Duration
	goCmd      string
	command    string
}

func main() {
	o := parseOptions()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.Exit(2)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.Exit(2)
		}
	}
	rep, err := measure(ctx, o)
	if rep != nil {
		text := rep.markdown()
		if o.out == "-" || o.out == "" {
			fmt.Print(text)
		} else if werr := os.WriteFile(o.out, []byte(text), 0o644); werr != nil {
			err = errors.Join(err, werr)
		} else {
			fmt.Print(rep.table())
			fmt.Print("\n" + limitTable(rep))
			fmt.Printf("\nwritten to %s\n", o.out)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

// parseOptions reads the command line into options, with the defaults
// -quick implies; an unknown contender or workload exits 2 with one line.
func parseOptions() options {
	var o options
	var peersFlag, workFlag string
	flag.BoolVar(&o.quick, "quick", false, "shorter runs (3 s contention, 2 repeats, 1,000 uncontended cycles): under 3 minutes")
	flag.StringVar(&o.out, "out", "bench/RESULTS.md", "where to write the report (\"-\": standard output only)")
	flag.DurationVar(&o.duration, "duration", 0, "each contended run (default 10s, -quick 3s)")
	flag.IntVar(&o.runs, "runs", 0, "repeats of each contended and uncontended measurement (default 3, -quick 2)")
	flag.IntVar(&o.slices, "slices", 0, "slices each contended and uncontended run is cut into, the contenders' slices taken in turn (default 5, -quick 3)")
	flag.IntVar(&o.cycles, "cycles", 0, "uncontended cycles per run (default 2000, -quick 1000)")
	flag.StringVar(&peersFlag, "peers", "zklock,zklock-rejoin,gozk,curator,kazoo,limit", "contenders to run, in this order")
	flag.StringVar(&workFlag, "workloads", "uncontended,8,32,safety,watches,floor,loaded", "workloads to run (for experiments; the report needs them all)")
	flag.BoolVar(&o.console, "console", true, "also run the console benchmarks (go test -bench in zkview and ui)")
	flag.BoolVar(&o.noSync, "nosync", false, "run the server with zookeeper.forceSync=no (no fsync per commit)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of this process (the Go clients) during the lock runs")
	flag.DurationVar(&o.sessionTO, "session-timeout", 30*time.Second, "session timeout of every client (long: few pings in the request counts)")
	flag.Parse()
	if o.duration == 0 {
		o.duration = pick(o.quick, 3*time.Second, 10*time.Second)
	}
	if o.runs == 0 {
		o.runs = pick(o.quick, 2, 3)
	}
	if o.slices <= 0 {
		o.slices = pick(o.quick, 3, 5)
	}
	if o.cycles == 0 {
		o.cycles = pick(o.quick, 1000, 2000)
	}
	o.safetyDur = max(o.duration/2, time.Second)
	o.contenders = strings.Split(peersFlag, ",")
	for _, c := range o.contenders {
		switch c {
		case "zklock", "zklock-rejoin", "gozk", "curator", "kazoo", "limit":
		default:
			fmt.Fprintf(os.Stderr, "bench: unknown contender %q (zklock, zklock-rejoin, gozk, curator, kazoo, limit)\n", c)
			os.Exit(2)
		}
	}
	o.workloads = map[string]bool{}
	for _, w := range strings.Split(workFlag, ",") {
		switch w {
		case "uncontended", "8", "32", "safety", "watches", "floor", "loaded":
			o.workloads[w] = true
		default:
			fmt.Fprintf(os.Stderr, "bench: unknown workload %q (uncontended, 8, 32, safety, watches, floor, loaded)\n", w)
			os.Exit(2)
		}
	}
	o.goCmd = os.Getenv("GO")
	if o.goCmd == "" {
		o.goCmd = "go"
	}
	o.command = "go run ./bench " + strings.Join(os.Args[1:], " ")
	if len(os.Args) == 1 {
		o.command = "make bench (go run ./bench)"
	}
	return o
}

func pick[T any](quick bool, q, full T) T {
	if quick {
		return q
	}
	return full
}

// logf reports progress on stderr as the run goes.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
}
