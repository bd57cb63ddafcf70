// The sustained benchmark's Watcher and its floor's bare client in one
// run: the same writer, the same queue, the same server hiccups. Their
// lags, sampled at the same instants, tell the Watcher's own delay from
// the server's read latency, which any watcher that reads a node before
// showing it pays; run one after the other (BenchmarkSustained2000, then
// BenchmarkSustainedFloor2000), a slow read lands on one run and not on
// the other, and the difference of their maxima means little.

package zkview

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkSustainedPaired200: BenchmarkSustained200's writer, watched by
// a Watcher and the bare client at once.
func BenchmarkSustainedPaired200(b *testing.B) { benchSustainedPaired(b, 200, 4) }

// BenchmarkSustainedPaired2000: BenchmarkSustained2000's writer, watched
// by a Watcher and the bare client at once.
func BenchmarkSustainedPaired2000(b *testing.B) { benchSustainedPaired(b, 2000, 32) }

// pairedRuns is a paired benchmark's state over its runs: the Watcher's
// figures as benchSustained keeps them, the bare client's count, and the
// lags sampled at each Update.
type pairedRuns struct {
	w        *Watcher
	wp       *writerProc
	st       *sustainedStats
	bare     *atomic.Int64   // changes the bare client took in, over the runs
	bareDone <-chan struct{} // told when bare moves
	t0       time.Time       // the run's "ready"
	floorMax int             // the bare client's most lag at a sample
	// excess is, per sample, the Watcher's lag less the bare client's
	// (negative when the bare client was the further behind).
	excess             []int
	unshown, finalDiff int
}

// benchSustainedPaired runs the writer at rate against a
// sustainedQueue-node queue watched by a Watcher (as benchSustained) and
// by the bare client on a session of its own (as benchSustainedFloor),
// b.N runs of sustainedRun. At each Update the Watcher publishes, once
// the writer's lines reported by then are taken, both lags are sampled:
// the Watcher's as benchSustained's max-lag-changes (the reported changes
// no recent snapshot shows), the bare client's as the reported changes
// less those it took in, as read when the Update was received. Reported:
//   - max-lag-changes, floor-max-lag-changes: the most of each;
//   - max-lag-frames, floor-max-lag-frames: the same over the Watcher's
//     changes per frame (one divisor for both, so they compare);
//     max-lag-over-floor, the Watcher's most over the bare client's;
//   - excess-max-changes, excess-p99-changes: the Watcher's lag less the
//     bare client's at the same instant, the most and the 99th percentile
//     over the samples: what the Watcher holds back beyond the read the
//     bare client waits for too; excess-max-frames, excess-p99-frames,
//     the same in frames;
//   - samples (over all runs), changes/s, p99-ms (benchSustained's);
//   - never-shown, final-diff-nodes: as benchSustained, errors when not 0.
//
// The bare client's lag is a count, so a change it took in before the
// writer reported it offsets one it has not taken in: at worst it is
// understated by the changes in flight, and the excess overstated by as
// many. Its read of the count at the Update's receipt, after the Watcher
// published, gives it that much more time too. No CPU figures: the two
// clients share this process.
func benchSustainedPaired(b *testing.B, rate, workers int) {
	c, p, mon, w := watchedQueue(b)
	pr := &pairedRuns{w: w, st: &sustainedStats{path: p}}
	pr.st.firstSnapshot(b, w)
	pr.bare, pr.bareDone, _ = startBare(b, c.Servers(), p)
	pr.wp = startWriter(b, writerPlan{Servers: c.Servers(), Path: p, Rate: rate, Workers: workers, Run: sustainedRun})
	for b.Loop() {
		pr.wp.start(b)
		pr.run(b)
		pr.settle(b)
		pr.finalDiff += pr.st.freshDiff(b, mon)
	}
	pr.report(b)
}

// run follows one run of the writer until its "end", sampling both lags
// at each Update.
func (pr *pairedRuns) run(b *testing.B) {
	for running := true; running; {
		select {
		case l, ok := <-pr.wp.lines:
			running = pr.take(b, l, ok)
		case u, ok := <-pr.w.Updates():
			if !ok {
				b.Fatal("updates closed")
			}
			// Both clients' state at the same instant: the snapshot as
			// received and the bare client's count as of then.
			now := time.Now()
			taken := pr.bare.Load()
			pr.st.frame(u, now)
			// What the writer reported by now, before the lags are told.
			for drained := false; !drained && running; {
				select {
				case l, ok := <-pr.wp.lines:
					running = pr.take(b, l, ok)
				default:
					drained = true
				}
			}
			pr.sample(taken)
		}
	}
}

// take handles one line of the writer (ok false: its pipe closed); false
// once its run ended.
func (pr *pairedRuns) take(b *testing.B, l writerLine, ok bool) bool {
	if !ok {
		b.Fatalf("the writer process ended: %s", pr.wp.output())
	}
	switch l.kind {
	case 'r':
		pr.st.running, pr.t0 = true, time.Now()
	case 'C', 'D':
		pr.st.report(change{create: l.kind == 'C', name: l.name, seq: l.seq, at: l.at})
	case 'e':
		pr.st.wall += time.Since(pr.t0)
		pr.st.running = false
		return false
	case '!':
		b.Fatalf("writer: %s", l.text)
	}
	return true
}

// sample records both lags against the changes the writer reported so
// far: the Watcher's pending ones, and those beyond the bare client's
// count taken (not below 0: it may have taken in changes whose reply has
// not reached the writer yet).
func (pr *pairedRuns) sample(taken int64) {
	lag := len(pr.st.pending)
	floor := int(max(0, int64(pr.st.changes)-taken))
	pr.st.maxLag = max(pr.st.maxLag, lag)
	pr.floorMax = max(pr.floorMax, floor)
	pr.excess = append(pr.excess, lag-floor)
}

// settle waits, after the writer stopped, until the Watcher shows every
// change and is quiet, and the bare client has taken every change in, so
// that the next run starts with neither behind.
func (pr *pairedRuns) settle(b *testing.B) {
	st := pr.st
	deadline := time.After(settleWait)
	for len(st.pending) > 0 || time.Since(st.lastAt) < quietAfter || pr.bare.Load() < int64(st.changes) {
		select {
		case u, ok := <-pr.w.Updates():
			if !ok {
				b.Fatal("updates closed")
			}
			st.frame(u, time.Now())
		case <-pr.bareDone:
		case <-time.After(quietAfter):
		case <-deadline:
			if len(st.pending) > 0 {
				b.Errorf("%d changes not shown %v after the writer stopped, first %s", len(st.pending), settleWait, st.pending[0].name)
				pr.unshown += len(st.pending)
				st.pending = nil
			}
			if taken := pr.bare.Load(); taken < int64(st.changes) {
				b.Fatalf("the bare client took in %d of %d changes %v after the writer stopped", taken, st.changes, settleWait)
			}
			return
		}
	}
}

// report reports the figures benchSustainedPaired describes.
func (pr *pairedRuns) report(b *testing.B) {
	st := pr.st
	if len(st.latencies) == 0 || st.wall == 0 || st.frames == 0 || len(pr.excess) == 0 {
		b.Fatal("no change measured")
	}
	perFrame := float64(st.changes) / float64(st.frames)
	b.ReportMetric(float64(st.maxLag), "max-lag-changes")
	b.ReportMetric(float64(pr.floorMax), "floor-max-lag-changes")
	b.ReportMetric(float64(st.maxLag)/perFrame, "max-lag-frames")
	b.ReportMetric(float64(pr.floorMax)/perFrame, "floor-max-lag-frames")
	if pr.floorMax > 0 {
		b.ReportMetric(float64(st.maxLag)/float64(pr.floorMax), "max-lag-over-floor")
	}
	b.ReportMetric(float64(slices.Max(pr.excess)), "excess-max-changes")
	b.ReportMetric(float64(percentile(pr.excess, 0.99)), "excess-p99-changes")
	b.ReportMetric(float64(slices.Max(pr.excess))/perFrame, "excess-max-frames")
	b.ReportMetric(float64(percentile(pr.excess, 0.99))/perFrame, "excess-p99-frames")
	b.ReportMetric(float64(len(pr.excess)), "samples")
	b.ReportMetric(float64(st.changes)/st.wall.Seconds(), "changes/s")
	b.ReportMetric(ms(percentile(st.latencies, 0.99)), "p99-ms")
	b.ReportMetric(float64(pr.unshown)/float64(b.N), "never-shown")
	b.ReportMetric(float64(pr.finalDiff)/float64(b.N), "final-diff-nodes")
}
