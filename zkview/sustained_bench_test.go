// Measures of the sustained benchmarks (scale_bench_test.go) beside
// their own: the CPU time, the events held on the receive side, the
// allocations over the runs, the last snapshot against a fresh read.

package zkview

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// sustainedProfile names a CPU profile of a sustained benchmark taken
// over the writer's first run only (not the queue's fill nor the fresh
// Load after each run, which -test.cpuprofile also counts). Not with
// -test.cpuprofile: one CPU profile at a time; with one benchmark at a
// time, since each writes the file anew.
var sustainedProfile = flag.String("sustained.cpuprofile", "", "write a CPU profile of the sustained benchmarks' runs to this file")

// sustainedMemProfile names the allocation profiles taken at the start
// and the end of the first run (NAME.start, NAME.end): what the run
// allocated is `go tool pprof -sample_index=alloc_space -base NAME.start
// NAME.end`.
var sustainedMemProfile = flag.String("sustained.memprofile", "", "write allocation profiles at the start and the end of a sustained benchmark's first run")

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
	ru := usage(b)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// usage is this process's resource usage so far.
func usage(b testing.TB) syscall.Rusage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return ru
}

// runWindow measures what the process spent over a benchmark's runs
// (the writer's runs, from "ready" to "end"): heap allocations, and a
// CPU profile when -sustained.cpuprofile asks for one.
type runWindow struct {
	objs, bytes   uint64 // over the runs
	objs0, bytes0 uint64
	// goroutines started and the process's context switches (voluntary
	// and not), over the runs: what a change costs in wake-ups, much of
	// its CPU time on this kind of machine (perf: the switches' kernel
	// side and the runtime's sysmon thread), counted rather than timed
	// (the CPU share moves by points between runs of the same code)
	gos, csw   uint64
	gos0, csw0 uint64
	samples    []metrics.Sample
	prof       *os.File
	profiled   bool
	memStarted bool
	memEnded   bool
}

// start begins a run.
func (r *runWindow) start(b testing.TB) {
	if *sustainedProfile != "" && !r.profiled {
		r.profiled = true
		f, err := os.Create(*sustainedProfile)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		r.prof = f
	}
	if *sustainedMemProfile != "" && !r.memStarted {
		r.memStarted = true
		writeHeap(b, *sustainedMemProfile+".start")
	}
	r.objs0, r.bytes0, r.gos0 = r.read()
	r.csw0 = switches(b)
}

// switches is the process's context switches so far, voluntary or not.
func switches(b testing.TB) uint64 {
	ru := usage(b)
	return uint64(ru.Nvcsw + ru.Nivcsw)
}

// writeHeap writes the allocation profile so far to name, after a
// garbage collection (the profile counts what was allocated up to the
// last one).
func writeHeap(b testing.TB, name string) {
	runtime.GC()
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

// end ends a run.
func (r *runWindow) end(b testing.TB) {
	objs, bytes, gos := r.read()
	r.objs += objs - r.objs0
	r.bytes += bytes - r.bytes0
	r.gos += gos - r.gos0
	r.csw += switches(b) - r.csw0
	r.stopProfile(b)
	if r.memStarted && !r.memEnded {
		r.memEnded = true
		writeHeap(b, *sustainedMemProfile+".end")
	}
}

// stopProfile ends the profile, if one runs.
func (r *runWindow) stopProfile(b testing.TB) {
	if r.prof == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := r.prof.Close(); err != nil {
		b.Error(err)
	}
	r.prof = nil
}

// read is the heap's allocations so far, objects and bytes, and the
// goroutines started.
func (r *runWindow) read() (objs, bytes, gos uint64) {
	if r.samples == nil {
		r.samples = []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"},
			{Name: "/sched/goroutines-created:goroutines"}}
	}
	metrics.Read(r.samples)
	return r.samples[0].Value.Uint64(), r.samples[1].Value.Uint64(), r.samples[2].Value.Uint64()
}

// report reports allocs/change, B/change, goroutines/change and
// switches/change over the runs (the benchmark's own reading of Updates
// and of the writer's lines included), and ends the profile if a run
// ended early.
func (r *runWindow) report(b *testing.B, changes int) {
	r.stopProfile(b)
	if changes > 0 {
		b.ReportMetric(float64(r.objs)/float64(changes), "allocs/change")
		b.ReportMetric(float64(r.bytes)/float64(changes), "B/change")
		b.ReportMetric(float64(r.gos)/float64(changes), "goroutines/change")
		b.ReportMetric(float64(r.csw)/float64(changes), "switches/change")
	}
}

// queueDiff counts the nodes that differ between a and b in what a
// snapshot says of them (recipe's view, owner, data, stat; order follows
// from the sequences) and describes the difference.
func queueDiff(a, b *model.Queue) (int, string) {
	if a == nil || b == nil {
		return 1, fmt.Sprintf("queue missing (watched %v, loaded %v)", a != nil, b != nil)
	}
	type view struct {
		Seq              int32
		Kind             ordering.Kind
		Role, Believes   ordering.Role
		Watches, Data    string
		Session          int64
		DataLen, Version int32
		Ctime, Mtime     int64
	}
	views := func(q *model.Queue) map[string]view {
		m := make(map[string]view, q.Nodes.Len())
		for _, n := range q.Nodes.All() {
			m[n.Name] = view{n.Seq, n.Kind, n.Role, n.Believes, n.Watches(), string(n.Data()), n.Session,
				n.DataLen, n.Version, n.Ctime().UnixMilli(), n.Mtime().UnixMilli()}
		}
		return m
	}
	va, vb := views(a), views(b)
	var onlyA, onlyB, differ []string
	for name, x := range va {
		if y, ok := vb[name]; !ok {
			onlyA = append(onlyA, name)
		} else if x != y {
			differ = append(differ, fmt.Sprintf("%s watched %+v, loaded %+v", name, x, y))
		}
	}
	for name := range vb {
		if _, ok := va[name]; !ok {
			onlyB = append(onlyB, name)
		}
	}
	n := len(onlyA) + len(onlyB) + len(differ)
	if n == 0 {
		return 0, ""
	}
	slices.Sort(onlyA)
	slices.Sort(onlyB)
	slices.Sort(differ)
	first := func(s []string) string {
		if len(s) == 0 {
			return "-"
		}
		return s[0]
	}
	return n, fmt.Sprintf("%d nodes watched, %d loaded; %d only watched (first %s), %d only loaded (first %s), %d differ (first %s)",
		len(va), len(vb), len(onlyA), first(onlyA), len(onlyB), first(onlyB), len(differ), first(differ))
}
