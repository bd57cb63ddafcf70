package zkview

// Benchmarks of a root watched whole (#34, a lock per entity): a root of
// 10,000 or 100,000 lock parents, one in ten with a holder and one in a
// hundred with two waiters behind it. The first picture against the raw
// pipelined listing of the same tree (BenchmarkRootBareList*), a change
// anywhere under the root to the snapshot, and the memory per parent.
//
// By hand: go test -run '^$' -bench 'Root' -benchtime 1x ./zkview

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/third_party/zk"
)

// wideTree makes root/e<i> for n parents, parent i holding nodesOf(i)
// lock nodes, in multi-ops of 50 parents, maxInFlight of them in flight.
// It returns the parents that hold nodes.
func wideTree(b testing.TB, c *zk.Conn, root string, n int, nodesOf func(int) int) []string {
	b.Helper()
	mkdirs(b, c, root)
	acl := zk.WorldACL(zk.PermAll)
	const per = 50
	jobs := make(chan int)
	var mu sync.Mutex
	var held []string
	var failed error
	var wg sync.WaitGroup
	for range maxInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := range jobs {
				var ops []any
				var mine []string
				for i := first; i < min(first+per, n); i++ {
					p := fmt.Sprintf("%s/e%06d", root, i)
					ops = append(ops, &zk.CreateRequest{Path: p, Acl: acl})
					for range nodesOf(i) {
						ops = append(ops, &zk.CreateRequest{Path: p + "/" + benchPrefix, Data: []byte("bench client data"),
							Acl: acl, Flags: zk.FlagEphemeral | zk.FlagSequence})
					}
					if nodesOf(i) > 0 {
						mine = append(mine, p)
					}
				}
				_, err := c.Multi(ops...)
				mu.Lock()
				held = append(held, mine...)
				if err != nil {
					failed = err
				}
				mu.Unlock()
			}
		}()
	}
	for first := 0; first < n; first += per {
		jobs <- first
	}
	close(jobs)
	wg.Wait()
	if failed != nil {
		b.Fatalf("making the tree: %v", failed)
	}
	slices.Sort(held)
	return held
}

// entityNodes: one parent in ten holds a lock, one in a hundred has two
// waiters behind its holder.
func entityNodes(i int) int {
	switch {
	case i%100 == 0:
		return 3
	case i%10 == 0:
		return 1
	}
	return 0
}

// BenchmarkRootFirstPicture10000 is the first picture of a root of
// 10,000 lock parents (Watch until a snapshot shows every parent read).
func BenchmarkRootFirstPicture10000(b *testing.B) { benchRootFirstPicture(b, 10000) }

// BenchmarkRootFirstPicture100000: the same with 100,000 parents.
func BenchmarkRootFirstPicture100000(b *testing.B) { benchRootFirstPicture(b, 100000) }

// BenchmarkRootBareList10000 is the floor of BenchmarkRootFirstPicture10000:
// the root listed, every parent listed and every lock node read, from
// maxInFlight goroutines over one go-zookeeper connection, no model.
func BenchmarkRootBareList10000(b *testing.B) { benchRootBareList(b, 10000) }

// BenchmarkRootBareList100000: the same with 100,000 parents.
func BenchmarkRootBareList100000(b *testing.B) { benchRootBareList(b, 100000) }

// benchRootFirstPicture reports first-ms (the first snapshot with a lock
// parent in it) and partial-pictures (snapshots before the whole).
func benchRootFirstPicture(b *testing.B, n int) {
	c := testCluster(b)
	root := testPath(b)
	held := wideTree(b, rawConn(b, c.Servers()), root, n, entityNodes)
	var first time.Duration
	partial := 0
	for b.Loop() {
		mon := session(b, c.Servers(), lockops.WithSessionTimeout(30*time.Second))
		start := time.Now()
		w, err := Watch(context.Background(), mon, Options{Roots: []string{root}})
		if err != nil {
			b.Fatal(err)
		}
		seen := false
		deadline := time.After(5 * time.Minute)
	wait:
		for {
			select {
			case u := <-w.Updates():
				s := u.Snapshot
				if !seen && s.Queues.Len() > 0 {
					seen = true
					first += time.Since(start)
				}
				if s.Unread == 0 && s.Queues.Len() == len(held) {
					break wait
				}
				partial++
			case <-deadline:
				b.Fatal("no full picture within 5 minutes")
			}
		}
		b.StopTimer()
		w.Close()
		mon.Close()
		b.StartTimer()
	}
	b.ReportMetric(ms(first)/float64(b.N), "first-ms")
	b.ReportMetric(float64(partial)/float64(b.N), "partial-pictures")
}

func benchRootBareList(b *testing.B, n int) {
	c := testCluster(b)
	root := testPath(b)
	wideTree(b, rawConn(b, c.Servers()), root, n, entityNodes)
	conn := rawConn(b, c.Servers())
	for b.Loop() {
		parents, _, err := conn.Children(root)
		if err != nil {
			b.Fatal(err)
		}
		jobs := make(chan string)
		var wg sync.WaitGroup
		for range maxInFlight {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := range jobs {
					kids, _, err := conn.Children(p)
					if err != nil {
						panic(err)
					}
					for _, k := range kids {
						if _, _, err := conn.Get(p + "/" + k); err != nil {
							panic(err)
						}
					}
				}
			}()
		}
		for _, p := range parents {
			jobs <- root + "/" + p
		}
		close(jobs)
		wg.Wait()
	}
}

// BenchmarkRootChange10000: four changes under a watched root of 10,000
// lock parents, each to the first snapshot that shows it: a waiter joins
// a held parent and leaves; a parent is made with a holder (one multi)
// and deleted with it. Requests and bytes are counted on the Watcher's
// wire.
func BenchmarkRootChange10000(b *testing.B) { benchRootChange(b, 10000) }

// BenchmarkRootChange100000: the same under 100,000 parents.
func BenchmarkRootChange100000(b *testing.B) { benchRootChange(b, 100000) }

func benchRootChange(b *testing.B, n int) {
	c := testCluster(b)
	root := testPath(b)
	writer := rawConn(b, c.Servers())
	held := wideTree(b, writer, root, n, entityNodes)
	rc := &requestCounter{}
	mon := session(b, c.Servers(), lockops.WithDialer(rc.dialer()), lockops.WithSessionTimeout(30*time.Second))
	w, err := Watch(context.Background(), mon, Options{Roots: []string{root}})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	next := func(cond func(*model.Snapshot) bool) {
		deadline := time.After(2 * time.Minute)
		for {
			select {
			case u, ok := <-w.Updates():
				if !ok {
					b.Fatal("updates closed")
				}
				if cond(u.Snapshot) {
					return
				}
			case <-deadline:
				b.Fatal("no snapshot showed the change within 2m")
			}
		}
	}
	next(func(s *model.Snapshot) bool { return s.Unread == 0 && s.Queues.Len() == len(held) })

	var lat []time.Duration
	var reqs int
	var bytes int64
	measure := func(change func(), shows func(*model.Snapshot) bool) {
		r0, _ := rc.requests()
		by0 := rc.bytesRead()
		start := time.Now()
		change()
		next(shows)
		lat = append(lat, time.Since(start))
		r1, _ := rc.requests()
		reqs += r1 - r0
		bytes += rc.bytesRead() - by0
	}
	acl := zk.WorldACL(zk.PermAll)
	i := 0
	for b.Loop() {
		i++
		p := held[(i*7919)%len(held)]
		var node string
		measure(func() { node = createSeq(b, writer, p, benchPrefix, []byte("bench client data")) },
			func(s *model.Snapshot) bool {
				q := s.Queue(p)
				return q != nil && slices.Contains(modeltest.Names(q), node)
			})
		measure(func() { must(b, writer.Delete(p+"/"+node, -1)) },
			func(s *model.Snapshot) bool {
				q := s.Queue(p)
				return q != nil && !slices.Contains(modeltest.Names(q), node)
			})
		np := fmt.Sprintf("%s/new%06d", root, i)
		measure(func() {
			_, err := writer.Multi(&zk.CreateRequest{Path: np, Acl: acl},
				&zk.CreateRequest{Path: np + "/" + benchPrefix + "0000000000", Data: []byte("bench client data"), Acl: acl, Flags: zk.FlagEphemeral})
			must(b, err)
		}, func(s *model.Snapshot) bool { q := s.Queue(np); return q != nil && q.Nodes.Len() == 1 })
		measure(func() {
			_, err := writer.Multi(&zk.DeleteRequest{Path: np + "/" + benchPrefix + "0000000000", Version: -1},
				&zk.DeleteRequest{Path: np, Version: -1})
			must(b, err)
		}, func(s *model.Snapshot) bool { return s.Queue(np) == nil })
	}
	b.ReportMetric(float64(reqs)/float64(len(lat)), "requests/change")
	b.ReportMetric(float64(bytes)/float64(len(lat)), "bytes-read/change")
	b.ReportMetric(ms(percentile(lat, 0.5)), "ms-to-snapshot-p50")
	b.ReportMetric(ms(percentile(lat, 0.99)), "ms-to-snapshot-p99")
}

func must(b testing.TB, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRootRSS100000: the process's memory per parent for watching a
// root of 100,000 empty lock parents (target <= 600 B), after GC.
func BenchmarkRootRSS100000(b *testing.B) { benchRootRSS(b, 100000, func(int) int { return 0 }) }

// BenchmarkRootRSSHeld100000: the same with one lock node in every
// parent (target <= 1 KB).
func BenchmarkRootRSSHeld100000(b *testing.B) { benchRootRSS(b, 100000, func(int) int { return 1 }) }

// BenchmarkRootRSS10000 and BenchmarkRootRSSHeld10000: the same at
// 10,000 parents (quick runs).
func BenchmarkRootRSS10000(b *testing.B)     { benchRootRSS(b, 10000, func(int) int { return 0 }) }
func BenchmarkRootRSSHeld10000(b *testing.B) { benchRootRSS(b, 10000, func(int) int { return 1 }) }

// benchRootRSS is benchRSS for a root: rss-gc-bytes/parent is the
// process's resident memory with the first full snapshot held, after a
// GC that returns freed memory, minus before the Watch; heap-bytes/parent
// the Go heap's part.
func benchRootRSS(b *testing.B, n int, nodesOf func(int) int) {
	c := testCluster(b)
	root := testPath(b)
	held := wideTree(b, rawConn(b, c.Servers()), root, n, nodesOf)
	if os.Getenv("ZKVIEW_HEAP_PROFILE") != "" {
		runtime.MemProfileRate = 512 // finer than the default: the profile is per parent
	}
	var rssGC, heap, inuse, other float64
	for b.Loop() {
		mon := session(b, c.Servers(), lockops.WithSessionTimeout(30*time.Second))
		runtime.GC()
		debug.FreeOSMemory()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		r0 := rssBytes(b)
		w, err := Watch(context.Background(), mon, Options{Roots: []string{root}})
		if err != nil {
			b.Fatal(err)
		}
		var snap *model.Snapshot
		deadline := time.After(5 * time.Minute)
		for snap == nil || snap.Unread > 0 || snap.Queues.Len() != len(held) {
			select {
			case u := <-w.Updates():
				snap = u.Snapshot
			case <-deadline:
				b.Fatalf("the first full snapshot did not come within 5m")
			}
		}
		runtime.GC()
		debug.FreeOSMemory()
		runtime.ReadMemStats(&m1)
		r2 := rssBytes(b)
		writeHeapProfile(b)
		runtime.KeepAlive(snap)
		w.Close()
		mon.Close()
		rssGC += float64(r2 - r0)
		heap += float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
		inuse += float64(m1.HeapInuse) - float64(m0.HeapInuse)
		other += float64(m1.StackInuse+m1.GCSys+m1.MSpanInuse+m1.OtherSys) - float64(m0.StackInuse+m0.GCSys+m0.MSpanInuse+m0.OtherSys)
	}
	per := float64(b.N) * float64(n)
	b.ReportMetric(rssGC/per, "rss-gc-bytes/parent")
	b.ReportMetric(heap/per, "heap-bytes/parent")
	// Where RSS goes beyond the live heap: spans' free slots
	// (heap-inuse minus heap) and the runtime's own (stacks, GC data,
	// span structures).
	b.ReportMetric(inuse/per, "heap-inuse-bytes/parent")
	b.ReportMetric(other/per, "runtime-bytes/parent")
}

// writeHeapProfile writes the heap profile to the file $ZKVIEW_HEAP_PROFILE
// names, if any: -memprofile is written after the benchmark, when the
// Watcher whose memory it measures is gone.
func writeHeapProfile(b *testing.B) {
	name := os.Getenv("ZKVIEW_HEAP_PROFILE")
	if name == "" {
		return
	}
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}
