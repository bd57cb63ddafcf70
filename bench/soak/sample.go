package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"
)

// errGrowth: heap or goroutines grew over the run.
var errGrowth = errors.New("growth")

// Slack allowed between the first and the last quarter of the judged
// samples. The console's event log (2,000 entries) and zkview's histories
// (depth over five minutes, 64 handoffs per queue) fill up during the
// first minutes and then stay put: a few hundred KB, under the heap slack.
const (
	heapSlackRatio      = 0.25
	heapSlackBytes      = 4 << 20
	goroutineSlackRatio = 0.10
	goroutineSlack      = 10
	// A goroutine spinning in a loop shows as CPU, not as memory: the
	// last quarter may not use more than the first quarter's busiest
	// sample plus this many percent of one core.
	cpuSlackPoints = 30.0
)

type sample struct {
	at         time.Duration // since the start
	heap       uint64        // live heap after a GC, bytes
	cpu        float64       // percent of one core since the previous sample
	objects    uint64
	goroutines int
	acquired   int64
	crashed    int64
	cancelled  int64
	errs       int64
	msgs       int64
	frames     int64
	slowest    time.Duration
}

func take(start time.Time, cpu float64, ch *churn, con *console) sample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return sample{
		at: time.Since(start), cpu: cpu, heap: ms.HeapAlloc, objects: ms.HeapObjects, goroutines: runtime.NumGoroutine(),
		acquired: ch.acquired.Load(), crashed: ch.crashed.Load(), cancelled: ch.cancelled.Load(), errs: ch.errs.Load(),
		msgs: con.handled.Load(), frames: con.frames.Load(), slowest: time.Duration(con.slowest.Load()),
	}
}

const tableHead = "    time   cpu%  heap MB   objects  goroutines  acquired  crashed  gave up  errors  console msgs  frames  slowest frame"

func (s sample) row() string {
	return fmt.Sprintf("%8s  %5.1f  %7.2f  %8d  %10d  %8d  %7d  %7d  %6d  %12d  %6d  %13s",
		s.at.Round(time.Second), s.cpu, float64(s.heap)/(1<<20), s.objects, s.goroutines,
		s.acquired, s.crashed, s.cancelled, s.errs, s.msgs, s.frames, s.slowest.Round(time.Microsecond))
}

// sampleLoop samples every `every` until ctx ends, printing each row.
func sampleLoop(ctx context.Context, every time.Duration, ch *churn, con *console) []sample {
	start := time.Now()
	fmt.Println(tableHead)
	var out []sample
	t := time.NewTicker(every)
	defer t.Stop()
	lastCPU, lastAt := cpuTime(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return out
		case <-t.C:
		}
		nowCPU, now := cpuTime(), time.Now()
		cpu := 100 * float64(nowCPU-lastCPU) / float64(now.Sub(lastAt))
		lastCPU, lastAt = nowCPU, now
		s := take(start, cpu, ch, con)
		fmt.Println(s.row())
		out = append(out, s)
	}
}

// judge compares the first and the last quarter of the samples taken
// after warmup: the last quarter's lowest value against the first
// quarter's highest, plus a slack.
func judge(samples []sample, warmup time.Duration) error {
	var judged []sample
	for _, s := range samples {
		if s.at >= warmup {
			judged = append(judged, s)
		}
	}
	if len(judged) < 4 {
		return fmt.Errorf("only %d samples after the %v warm-up: run longer", len(judged), warmup)
	}
	q := len(judged) / 4
	first, last := judged[:q], judged[len(judged)-q:]
	heapOf := func(ss []sample) []uint64 {
		var v []uint64
		for _, s := range ss {
			v = append(v, s.heap)
		}
		return v
	}
	gorOf := func(ss []sample) []int {
		var v []int
		for _, s := range ss {
			v = append(v, s.goroutines)
		}
		return v
	}
	heapBase, heapEnd := slices.Max(heapOf(first)), slices.Min(heapOf(last))
	gorBase, gorEnd := slices.Max(gorOf(first)), slices.Min(gorOf(last))
	heapLimit := max(uint64(float64(heapBase)*(1+heapSlackRatio)), heapBase+heapSlackBytes)
	gorLimit := max(int(float64(gorBase)*(1+goroutineSlackRatio)), gorBase+goroutineSlack)
	cpuOf := func(ss []sample) []float64 {
		var v []float64
		for _, s := range ss {
			v = append(v, s.cpu)
		}
		return v
	}
	cpuBase, cpuEnd := slices.Max(cpuOf(first)), slices.Min(cpuOf(last))
	cpuLimit := cpuBase + cpuSlackPoints
	span := judged[len(judged)-1].at - judged[0].at
	fmt.Printf("\njudged %d samples over %v (after a %v warm-up):\n", len(judged), span.Round(time.Second), warmup)
	fmt.Printf("  heap:       first quarter max %.2f MB, last quarter min %.2f MB (limit %.2f MB), slope %+.2f MB/h\n",
		mb(heapBase), mb(heapEnd), mb(heapLimit), slope(judged, func(s sample) float64 { return mb(s.heap) }))
	fmt.Printf("  goroutines: first quarter max %d, last quarter min %d (limit %d), slope %+.1f/h\n",
		gorBase, gorEnd, gorLimit, slope(judged, func(s sample) float64 { return float64(s.goroutines) }))
	fmt.Printf("  cpu:        first quarter max %.1f%%, last quarter min %.1f%% (limit %.1f%%)\n", cpuBase, cpuEnd, cpuLimit)
	end := judged[len(judged)-1]
	fmt.Printf("  churn: %d acquisitions, %d crashes, %d cancelled acquires, %d lock-core errors; console: %d messages, %d frames, slowest frame %v\n",
		end.acquired, end.crashed, end.cancelled, end.errs, end.msgs, end.frames, end.slowest.Round(time.Microsecond))
	var errs []error
	if heapEnd > heapLimit {
		errs = append(errs, fmt.Errorf("%w: heap grew from %.2f MB to %.2f MB", errGrowth, mb(heapBase), mb(heapEnd)))
	}
	if gorEnd > gorLimit {
		errs = append(errs, fmt.Errorf("%w: goroutines grew from %d to %d", errGrowth, gorBase, gorEnd))
	}
	if cpuEnd > cpuLimit {
		errs = append(errs, fmt.Errorf("%w: CPU grew from %.1f%% to %.1f%% of a core (something spins)", errGrowth, cpuBase, cpuEnd))
	}
	if end.acquired == 0 || end.frames == 0 {
		errs = append(errs, fmt.Errorf("nothing happened: %d acquisitions, %d frames", end.acquired, end.frames))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Println("PASS: heap, goroutines and CPU flat")
	return nil
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }

// slope is the least-squares slope of f over the samples, per hour.
func slope(ss []sample, f func(sample) float64) float64 {
	var n, sx, sy, sxx, sxy float64
	for _, s := range ss {
		x := s.at.Hours()
		y := f(s)
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
