// Command soak runs demo-level lock churn for a long while with the whole
// console stack attached, and fails if memory or goroutines grow:
//
//	go run ./bench/soak -duration 30m
//
// On a sandbox ZooKeeper server: lockops contenders on a busy mutex, a
// read/write lock and a quiet lock, each in its own session; every few
// seconds one holder "crashes" (its session closes without a release, so
// its node vanishes with it) and a new client takes its place, and some
// waiters give up (a cancelled acquire). An operator's own lock is taken
// and released now and then. A zkview Watcher (server view on) follows the
// three locks, and the console model (ui.New, driven through Update and
// View as Bubble Tea would, without a terminal) is fed by it.
//
// Every -sample (10 s) the process's live heap (after a GC) and goroutine
// count are sampled and printed as a table. At the end, the samples after
// -warmup are split in quarters: if the last quarter's lowest value is
// above the first quarter's highest by more than a slack (heap: 25% and
// 4 MB; goroutines: 10% and 10; CPU: 30 points of a core, for a goroutine
// that spins), the run fails with exit status 1. Lows against highs: only
// sustained growth counts, not noise. So does a shutdown that hangs (with
// every goroutine's stack).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/zklock/zklock/sandbox"
)

func main() {
	duration := flag.Duration("duration", 30*time.Minute, "how long to run the churn")
	sample := flag.Duration("sample", 10*time.Second, "how often to sample heap and goroutines")
	warmup := flag.Duration("warmup", 0, "samples before this are not judged (default: a sixth of -duration, 30s to 5m)")
	giveUp := flag.Bool("giveup", true, "include a client that gives up waiting after 700 ms (cancelled acquires)")
	flag.Parse()
	if *warmup == 0 {
		*warmup = min(max(*duration/6, 30*time.Second), 5*time.Minute)
	}
	if *duration < 4**sample || *warmup >= *duration {
		fmt.Fprintf(os.Stderr, "soak: -duration %v is too short for -sample %v and -warmup %v\n", *duration, *sample, *warmup)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := soak(ctx, *duration, *sample, *warmup, *giveUp); err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		if errors.Is(err, errGrowth) || errors.Is(err, errHung) {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

// errHung: the run did not stop when its time was up.
var errHung = errors.New("hung")

// stopWait bounds the shutdown: every call in it is bounded by ten
// seconds or less.
const stopWait = 60 * time.Second

// soakTick is the server's tick: sessions of a few seconds, so that a
// crashed holder's node goes within seconds, as in the demo.
const soakTick = 200 * time.Millisecond

// soak runs the console against a churning queue for duration, sampling
// every so often after warmup (see the package comment).
func soak(ctx context.Context, duration, every, warmup time.Duration, giveUp bool) error {
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	cluster, err := sandbox.Start(sctx, sandbox.Options{TickTime: soakTick})
	cancel()
	if err != nil {
		return fmt.Errorf("start ZooKeeper (make deps installs it): %w", err)
	}
	defer cluster.Close()

	fmt.Printf("soak: %v of churn on %s, sampling every %v, judging after %v\n", duration, cluster.ConnectString(), every, warmup)
	rctx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	churn, err := startChurn(rctx, cluster.Servers(), giveUp)
	if err != nil {
		return err
	}
	con, err := startConsole(rctx, cluster.Servers(), churn.own)
	if err != nil {
		churn.stop()
		return err
	}
	samples := sampleLoop(rctx, every, churn, con)
	// Everything stops within stopWait, or the run fails with every
	// goroutine's stack: a client that never returns is what a soak is for.
	stopped := make(chan struct{})
	go func() {
		con.stop()
		churn.stop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(stopWait):
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
		return fmt.Errorf("%w: the contenders and the console did not stop within %v (stacks above)", errHung, stopWait)
	}
	for _, e := range churn.errorSample() {
		fmt.Printf("lock-core error: %s\n", e)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted after %d samples", len(samples))
	}
	if err := churn.failure(); err != nil {
		return err
	}
	if err := con.failure(); err != nil {
		return err
	}
	return judge(samples, warmup)
}
