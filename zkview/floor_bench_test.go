// The floor of the sustained benchmarks: the same writer against the same
// queue, watched by a bare client that does only what any watcher of the
// queue must (one persistent recursive watch, a read of each new node),
// with no model, no snapshots, no consumer. What the Watcher spends above
// it is its own work; what the floor spends is the machine's price of
// receiving the changes at all.

package zkview

import (
	"context"
	"path"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/third_party/zk"
)

// BenchmarkSustainedFloor200: BenchmarkSustained200's writer, watched by
// the bare client.
func BenchmarkSustainedFloor200(b *testing.B) { benchSustainedFloor(b, 200, 4) }

// BenchmarkSustainedFloor2000: BenchmarkSustained2000's writer, watched
// by the bare client.
func BenchmarkSustainedFloor2000(b *testing.B) { benchSustainedFloor(b, 2000, 32) }

// bareWatch follows p's persistent recursive watch events: each batch
// the Watcher would take (drainEvents), its created children read
// (bareRead); then taken says how many of the writer's changes it has
// taken in (the event received and, for a create, the node read), and
// done is told so without waiting for anyone (as the Watcher's pump is
// kicked). It ends when the watch does.
func bareWatch(ctx context.Context, s *lockops.Session, ch <-chan zk.Event, p string, taken *atomic.Int64, done chan<- struct{}) {
	var n int64
	for ev := range ch {
		batch, last := drainEvents(ctx, s, ch, []zk.Event{ev})
		var created []string
		for _, ev := range batch {
			child := s.EventPath(ev)
			if path.Dir(child) != p {
				continue
			}
			switch ev.Type {
			case zk.EventNodeCreated:
				created = append(created, child)
				n++
			case zk.EventNodeDeleted:
				n++
			}
		}
		bareRead(ctx, s, created)
		if ctx.Err() != nil || last != nil {
			return // the watch ended (or the session did: not in these runs)
		}
		taken.Store(n)
		select {
		case done <- struct{}{}:
		default:
		}
	}
}

// startBare starts the bare client (bareWatch) on a session of its own
// (beside a Watcher, its events and reads do not queue behind the
// Watcher's), following p until stop or the benchmark's end. It returns
// the client's count of changes taken in, the channel told when it
// moves, and stop, which ends it and removes its watch (once).
func startBare(b *testing.B, servers []string, p string) (taken *atomic.Int64, done <-chan struct{}, stop func()) {
	s := session(b, servers, lockops.WithSessionTimeout(30*time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := s.AddWatch(ctx, p, true)
	if err != nil {
		cancel()
		b.Fatal(err)
	}
	taken = new(atomic.Int64)
	moved := make(chan struct{}, 1)
	go bareWatch(ctx, s, ch, p, taken, moved)
	stop = sync.OnceFunc(func() {
		cancel()
		_ = s.RemovePersistentWatch(context.Background(), p)
	})
	b.Cleanup(stop) // before the session's own cleanup (registered first), which closes it
	return taken, moved, stop
}

// bareRead reads the nodes at paths, maxInFlight at a time, as the
// Watcher's fetch does: this goroutine reads one, so a batch of one (the
// usual at 200 changes/s) starts no goroutine.
func bareRead(ctx context.Context, s *lockops.Session, paths []string) {
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	read := func() {
		for i := next.Add(1) - 1; i < int64(len(paths)) && ctx.Err() == nil; i = next.Add(1) - 1 {
			_, _, _ = s.Get(ctx, paths[i])
		}
	}
	for range min(len(paths), maxInFlight) - 1 {
		wg.Go(read)
	}
	read()
	wg.Wait()
}

// benchSustainedFloor runs the writer at rate against a
// sustainedQueue-node queue watched by bareWatch, b.N runs of
// sustainedRun. Reported as benchSustained's figures of the same names:
// cpu-%-of-core, harness-cpu-% and floor-cpu-% (the process's less the
// benchmark's own: the Watcher's watcher-cpu-% has this as its floor);
// max-lag-changes, the most changes the writer had reported and the
// client had not taken in, sampled at most every minPublish (the
// Watcher's is at each snapshot received, at most that often);
// goroutines/change and switches/change.
func benchSustainedFloor(b *testing.B, rate, workers int) {
	c := testCluster(b)
	p := testPath(b)
	fill(b, rawConn(b, c.Servers()), []string{p}, sustainedQueue)
	bare, done, stopBare := startBare(b, c.Servers(), p)
	wp := startWriter(b, writerPlan{Servers: c.Servers(), Path: p, Rate: rate, Workers: workers, Run: sustainedRun})

	var (
		reported, maxLag int64 // reported: the writer's changes, over the runs
		cpu, wall, cpu0  time.Duration
		t0               time.Time
		win              runWindow
	)
	// The lag is sampled at most every minPublish, as often as the
	// Watcher's at most (at each snapshot received): a max over as many
	// samples. At a writer's line, which wakes this loop anyway (a ticker
	// of its own would cost the floor more wake-ups than it measures).
	var sampled time.Time
	for b.Loop() {
		wp.start(b)
		for ended := false; !ended; {
			select {
			case l, ok := <-wp.lines:
				if !ok {
					b.Fatalf("the writer process ended: %s", wp.output())
				}
				switch l.kind {
				case 'r':
					cpu0, t0 = cpuTime(b), time.Now()
					win.start(b)
				case 'C', 'D':
					reported++
					if now := time.Now(); now.Sub(sampled) >= minPublish {
						sampled = now
						maxLag = max(maxLag, reported-bare.Load())
					}
				case 'e':
					cpu += cpuTime(b) - cpu0
					wall += time.Since(t0)
					win.end(b)
					ended = true
				case '!':
					b.Fatalf("writer: %s", l.text)
				}
			case <-done:
			}
		}
		// Every change taken in before the next run.
		deadline := time.After(settleWait)
		for bare.Load() < reported {
			select {
			case <-done:
			case <-deadline:
				b.Fatalf("the bare client took in %d of %d changes %v after the writer stopped", bare.Load(), reported, settleWait)
			}
		}
	}
	if reported == 0 || wall == 0 {
		b.Fatal("no change measured")
	}
	stopBare() // the harness's own share is measured with no client watching
	harness := harnessShare(b, wp)
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu-%-of-core")
	b.ReportMetric(harness, "harness-cpu-%")
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds()-harness, "floor-cpu-%")
	b.ReportMetric(float64(reported)/wall.Seconds(), "changes/s")
	b.ReportMetric(float64(maxLag), "max-lag-changes")
	win.report(b, int(reported))
}
