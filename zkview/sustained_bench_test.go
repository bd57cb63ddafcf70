// Measures of the sustained benchmarks (scale_bench_test.go) beside
// their own: the CPU time, the events held on the receive side.

package zkview

import (
	"syscall"
	"testing"
	"time"
)

// heldRuns measures, over a benchmark's runs, the watch events the
// Watcher held (received, not yet in its model) at each snapshot it
// built: the lag on the receive side, without the writer's and the
// server's part of the delay.
type heldRuns struct {
	max              int64 // the most events held at a build
	received, builds int64 // over the runs
	received0        int64
	builds0          int
}

// start begins a run: the most held is counted from here.
func (h *heldRuns) start(w *Watcher) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held.max = 0
	h.received0, h.builds0 = w.held.received.Load(), w.held.builds
}

// end ends a run.
func (h *heldRuns) end(w *Watcher) {
	w.mu.Lock()
	defer w.mu.Unlock()
	h.max = max(h.max, w.held.max)
	h.received += w.held.received.Load() - h.received0
	h.builds += int64(w.held.builds - h.builds0)
}

// report reports max-held-changes and max-held-frames: the most held
// over the events a build took in on average (one frame's worth).
func (h *heldRuns) report(b *testing.B) {
	b.ReportMetric(float64(h.max), "max-held-changes")
	if h.received > 0 && h.builds > 0 {
		b.ReportMetric(float64(h.max)*float64(h.builds)/float64(h.received), "max-held-frames")
	}
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime(b testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
