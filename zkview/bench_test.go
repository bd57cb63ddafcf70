package zkview

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/third_party/zk"
)

// Opcodes of the ZooKeeper protocol the Watcher sends.
const (
	opGetData      = 4
	opGetChildren2 = 12
	opPing         = 11
)

// requestCounter counts the request packets a client writes, by opcode,
// by following the framing (4-byte length, then xid and opcode).
type requestCounter struct {
	mu   sync.Mutex
	byOp map[int32]int
	read int64 // bytes read from the server
}

// bytesRead is how many bytes the client read from the server so far.
func (rc *requestCounter) bytesRead() int64 {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.read
}

func (rc *requestCounter) dialer() zk.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c, err := net.DialTimeout(network, addr, timeout)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c, rc: rc, first: true}, nil
	}
}

// requests returns the total (pings excluded) and the counts by opcode.
func (rc *requestCounter) requests() (int, map[int32]int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	total := 0
	for op, n := range rc.byOp {
		if op != opPing {
			total += n
		}
	}
	m := make(map[int32]int, len(rc.byOp))
	for k, v := range rc.byOp {
		m[k] = v
	}
	return total, m
}

type countingConn struct {
	net.Conn
	rc    *requestCounter
	first bool // the connect request has no xid/opcode
	hdr   [12]byte
	hn    int
	skip  int
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.rc.mu.Lock()
	c.rc.read += int64(n)
	c.rc.mu.Unlock()
	return n, err
}

func (c *countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.scan(b[:n])
	return n, err
}

func (c *countingConn) scan(p []byte) {
	for len(p) > 0 {
		if c.skip > 0 {
			k := min(c.skip, len(p))
			c.skip -= k
			p = p[k:]
			continue
		}
		k := copy(c.hdr[c.hn:], p)
		c.hn += k
		p = p[k:]
		if c.hn < len(c.hdr) {
			return
		}
		length := int(binary.BigEndian.Uint32(c.hdr[0:4]))
		if c.first {
			c.first = false
		} else {
			op := int32(binary.BigEndian.Uint32(c.hdr[8:12]))
			c.rc.mu.Lock()
			if c.rc.byOp == nil {
				c.rc.byOp = map[int32]int{}
			}
			c.rc.byOp[op]++
			c.rc.mu.Unlock()
		}
		c.skip = max(length-8, 0)
		c.hn = 0
	}
}

// fill creates nodes ephemeral sequential children under each parent,
// maxInFlight at a time.
// benchPrefix names the benchmarks' lock nodes: one go-zookeeper client's
// (a fleet's queue is of one recipe).
const benchPrefix = "_c_0123456789abcdef0123456789abcdef-lock-"

func fill(b testing.TB, c *zk.Conn, parents []string, nodes int) {
	b.Helper()
	type job struct{ parent string }
	jobs := make(chan job)
	var failed atomic.Value
	var wg sync.WaitGroup
	for range maxInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if _, err := c.Create(j.parent+"/"+benchPrefix, []byte("bench client data"),
					zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
					failed.Store(err)
				}
			}
		}()
	}
	for _, p := range parents {
		mkdirs(b, c, p)
		for range nodes {
			jobs <- job{p}
		}
	}
	close(jobs)
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatalf("fill: %v", err)
	}
}

// fillParents makes n lock parents of size nodes each under the test's
// path, on the package's cluster.
func fillParents(b testing.TB, n, size int) (*sandbox.Cluster, []string) {
	c := testCluster(b)
	root := testPath(b)
	parents := make([]string, n)
	for i := range parents {
		parents[i] = fmt.Sprintf("%s/p%04d", root, i)
	}
	fill(b, rawConn(b, c.Servers()), parents, size)
	return c, parents
}

// BenchmarkInitialLoad1000x10: Load of 1,000 lock parents of 10 nodes.
func BenchmarkInitialLoad1000x10(b *testing.B) {
	c, parents := fillParents(b, 1000, 10)
	rc := &requestCounter{}
	mon := session(b, c.Servers(), lockops.WithDialer(rc.dialer()))
	ctx := context.Background()
	before, _ := rc.requests()
	for b.Loop() {
		snap, err := Load(ctx, mon, Options{Paths: parents})
		if err != nil {
			b.Fatal(err)
		}
		if snap.Queues.Len() != 1000 || snap.Queues.At(999).Nodes.Len() != 10 {
			b.Fatalf("loaded %d queues", snap.Queues.Len())
		}
	}
	after, _ := rc.requests()
	b.ReportMetric(float64(after-before)/float64(b.N), "requests/load")
}

// BenchmarkBareLoad1000x10 is the floor for BenchmarkInitialLoad1000x10:
// the same requests (a listing per parent, a Get per node) from
// maxInFlight goroutines over one go-zookeeper connection, no model.
func BenchmarkBareLoad1000x10(b *testing.B) {
	c, parents := fillParents(b, 1000, 10)
	conn := rawConn(b, c.Servers())
	for b.Loop() {
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
			jobs <- p
		}
		close(jobs)
		wg.Wait()
	}
}

// BenchmarkLoadQueue10000: Load of one lock parent of 10,000 nodes.
func BenchmarkLoadQueue10000(b *testing.B) {
	c := testCluster(b)
	p := testPath(b)
	fill(b, rawConn(b, c.Servers()), []string{p}, 10000)
	mon := session(b, c.Servers())
	ctx := context.Background()
	for b.Loop() {
		snap, err := Load(ctx, mon, Options{Paths: []string{p}})
		if err != nil {
			b.Fatal(err)
		}
		if n := snap.Queues.At(0).Nodes.Len(); n != 10000 {
			b.Fatalf("loaded %d nodes", n)
		}
	}
}

// BenchmarkChange10000: one create, then one delete, in a watched
// 10,000-node queue: the requests the Watcher sends for each (counted on
// its wire), the time until a snapshot shows it, and the model's memory
// per node.
func BenchmarkChange10000(b *testing.B) { benchChange(b, 10000, false) }

// BenchmarkChange10000Children is BenchmarkChange10000 with children
// watches, as on a server before 3.6: every change re-lists the queue.
func BenchmarkChange10000Children(b *testing.B) { benchChange(b, 10000, true) }

// BenchmarkChange100000 is one create and one delete in a watched
// 100,000-node queue (make bench only: filling it takes a minute).
func BenchmarkChange100000(b *testing.B) { benchChange(b, 100000, false) }

func benchChange(b *testing.B, size int, childWatches bool) {
	c := testCluster(b)
	p := testPath(b)
	fill(b, rawConn(b, c.Servers()), []string{p}, size)
	writer := rawConn(b, c.Servers())

	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	rc := &requestCounter{}
	// A long session: pings are rare (and not counted anyway).
	mon := session(b, c.Servers(), lockops.WithDialer(rc.dialer()), lockops.WithSessionTimeout(30*time.Second))
	w, err := Watch(context.Background(), mon, Options{Paths: []string{p}, ChildWatches: childWatches})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	next := func(cond func(*model.Queue) bool) {
		deadline := time.After(30 * time.Second)
		for {
			select {
			case u, ok := <-w.Updates():
				if !ok {
					b.Fatal("updates closed")
				}
				if q := queueOf(u.Snapshot, p); q != nil && cond(q) {
					return
				}
			case <-deadline:
				b.Fatal("no snapshot showed the change within 30s")
			}
		}
	}
	next(func(q *model.Queue) bool { return q.Nodes.Len() == size })
	runtime.GC()
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	heapPerNode := (float64(m1.HeapAlloc) - float64(m0.HeapAlloc)) / float64(size)

	var createReqs, deleteReqs int
	var createBytes, deleteBytes int64
	var createLat, deleteLat []time.Duration
	for b.Loop() {
		r0, _ := rc.requests()
		by0 := rc.bytesRead()
		start := time.Now()
		n := createSeq(b, writer, p, benchPrefix, nil) // the recipe the queue was filled with
		next(func(q *model.Queue) bool { return slices.Contains(modeltest.Names(q), n) })
		createLat = append(createLat, time.Since(start))
		r1, _ := rc.requests()
		by1 := rc.bytesRead()
		start = time.Now()
		if err := writer.Delete(p+"/"+n, -1); err != nil {
			b.Fatal(err)
		}
		next(func(q *model.Queue) bool { return !slices.Contains(modeltest.Names(q), n) })
		deleteLat = append(deleteLat, time.Since(start))
		r2, _ := rc.requests()
		by2 := rc.bytesRead()
		createBytes += by1 - by0
		deleteBytes += by2 - by1
		createReqs += r1 - r0
		deleteReqs += r2 - r1
	}
	_, byOp := rc.requests()
	b.ReportMetric(heapPerNode, "heap-bytes/node")
	b.ReportMetric(float64(createReqs)/float64(b.N), "requests/create")
	b.ReportMetric(float64(deleteReqs)/float64(b.N), "requests/delete")
	b.ReportMetric(float64(createBytes)/float64(b.N), "bytes-read/create")
	b.ReportMetric(float64(deleteBytes)/float64(b.N), "bytes-read/delete")
	all := append(createLat, deleteLat...)
	b.ReportMetric(ms(percentile(all, 0.5)), "ms-to-snapshot-p50")
	b.ReportMetric(ms(percentile(all, 0.99)), "ms-to-snapshot-p99")
	b.Logf("latencies create %v delete %v", createLat, deleteLat)
	b.Logf("requests by opcode since connect: getChildren2 %d, getData %d, ping %d (all %v)",
		byOp[opGetChildren2], byOp[opGetData], byOp[opPing], byOp)
}

// percentile is the q-quantile of ds (nearest rank).
func percentile[T cmp.Ordered](ds []T, q float64) T {
	if len(ds) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
