package zkview

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
)

// BenchmarkLoadRoot10000 is `zklock ls --root` on a root of 10,000 lock
// parents (entityNodes): one Load, with the peak of goroutines and of the
// heap in use while it reads (sampled every millisecond).
func BenchmarkLoadRoot10000(b *testing.B) { benchLoadRoot(b, 10000) }

// BenchmarkLoadRoot100000: the same with 100,000 parents.
func BenchmarkLoadRoot100000(b *testing.B) { benchLoadRoot(b, 100000) }

func benchLoadRoot(b *testing.B, n int) {
	c := testCluster(b)
	root := testPath(b)
	held := wideTree(b, rawConn(b, c.Servers()), root, n, entityNodes)
	mon := session(b, c.Servers(), lockops.WithSessionTimeout(30*time.Second))
	var peakG, peakHeap atomic.Int64
	for b.Loop() {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { samplePeaks(stop, &peakG, &peakHeap) })
		snap, err := Load(context.Background(), mon, Options{Roots: []string{root}})
		close(stop)
		wg.Wait()
		if err != nil {
			b.Fatal(err)
		}
		if snap.Queues.Len() != len(held) {
			b.Fatalf("%d queues, want %d", snap.Queues.Len(), len(held))
		}
	}
	b.ReportMetric(float64(peakG.Load()), "peak-goroutines")
	b.ReportMetric(float64(peakHeap.Load())/(1<<20), "peak-heap-MB")
}

// samplePeaks keeps the highest goroutine count and heap in use seen
// until stop is closed.
func samplePeaks(stop <-chan struct{}, g, heap *atomic.Int64) {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	var ms runtime.MemStats
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if n := int64(runtime.NumGoroutine()); n > g.Load() {
			g.Store(n)
		}
		if i%20 == 0 { // ReadMemStats stops the world: not every tick
			runtime.ReadMemStats(&ms)
			if h := int64(ms.HeapInuse + ms.StackInuse); h > heap.Load() {
				heap.Store(h)
			}
		}
	}
}
