package lockops

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/fourletter"
)

// packetsReceived is the server's zk_packets_received (mntr): requests
// and pings from every client, so benchmarks read it with only their own
// sessions open.
func packetsReceived(tb testing.TB) int64 {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := fourletter.Ask(ctx, testServers(tb)[0], "mntr")
	if err != nil {
		tb.Fatal(err)
	}
	v, ok := fourletter.ParseMntr(out)["zk_packets_received"]
	if !ok {
		tb.Fatalf("no zk_packets_received in mntr: %q", out)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// locker is what the benchmarks drive: this package's Lock, or
// go-zookeeper's zk.Lock for comparison.
type locker interface {
	lock(ctx context.Context) error
	unlock(ctx context.Context) error
}

type ours struct{ l *Lock }

func (o ours) lock(ctx context.Context) error   { return o.l.Acquire(ctx) }
func (o ours) unlock(ctx context.Context) error { return o.l.Release(ctx) }

type gozk struct{ l *zk.Lock }

func (g gozk) lock(context.Context) error   { return g.l.Lock() }
func (g gozk) unlock(context.Context) error { return g.l.Unlock() }

func newOurs(tb testing.TB, p string) locker { return ours{NewLock(connect(tb), p)} }

func newGoZK(tb testing.TB, p string) locker {
	s := connect(tb)
	if err := NewLock(s, p).makeParents(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return gozk{zk.NewLock(s.conn, s.Abs(p), zk.WorldACL(zk.PermAll))}
}

// runContended has n contenders, each in its own session, take the lock
// b.N times in all, and reports acquisitions per second, the handoff
// (one holder's end of critical section to the next one's start) p50, and
// requests per acquisition.
func runContended(b *testing.B, n int, mk func(testing.TB, string) locker) {
	warmServer(b)
	p := lockPath(b)
	ctx := context.Background()
	ls := make([]locker, n)
	for i := range ls {
		ls[i] = mk(b, p)
		if err := ls[i].lock(ctx); err != nil { // warm up: parents, style
			b.Fatal(err)
		}
		if err := ls[i].unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var (
		remaining atomic.Int64
		mu        sync.Mutex
		spans     [][2]time.Time
		wg        sync.WaitGroup
		failed    atomic.Value
	)
	remaining.Store(int64(b.N))
	before := packetsReceived(b)
	cpu0 := processCPU()
	b.ResetTimer()
	start := time.Now()
	for _, l := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for remaining.Add(-1) >= 0 {
				if err := l.lock(ctx); err != nil {
					failed.Store(err)
					return
				}
				in := time.Now()
				out := time.Now()
				mu.Lock()
				spans = append(spans, [2]time.Time{in, out})
				mu.Unlock()
				if err := l.unlock(ctx); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	b.StopTimer()
	cpu := processCPU() - cpu0
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	after := packetsReceived(b)
	slices.SortFunc(spans, func(x, y [2]time.Time) int { return x[0].Compare(y[0]) })
	var gaps []time.Duration
	for k := 1; k < len(spans); k++ {
		gaps = append(gaps, spans[k][0].Sub(spans[k-1][1]))
	}
	slices.Sort(gaps)
	if len(gaps) > 0 {
		b.ReportMetric(float64(gaps[len(gaps)/2].Microseconds())/1000, "handoff-p50-ms")
	}
	b.ReportMetric(float64(b.N)/el.Seconds(), "acq/s")
	b.ReportMetric(float64(after-before)/float64(b.N), "req/acq")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "client-cpu-us/acq")
	if _, ok := ls[0].(ours); ok {
		var sc int64
		for _, l := range ls {
			sc += l.(ours).l.shortcuts.Load()
		}
		b.ReportMetric(float64(sc)/float64(b.N), "shortcut/acq")
	}
}

// processCPU is this process's user+system CPU time: the clients' cost,
// which on a small machine competes with the server's.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkUncontended(b *testing.B)     { runContended(b, 1, newOurs) }
func BenchmarkContended8(b *testing.B)      { runContended(b, 8, newOurs) }
func BenchmarkContended32(b *testing.B)     { runContended(b, 32, newOurs) }
func BenchmarkGoZKUncontended(b *testing.B) { runContended(b, 1, newGoZK) }
func BenchmarkGoZKContended8(b *testing.B)  { runContended(b, 8, newGoZK) }
func BenchmarkGoZKContended32(b *testing.B) { runContended(b, 32, newGoZK) }

// BenchmarkDeleteWakeFloor is the floor for a handoff: one session
// deletes a node, another is woken by its watch. Reports the p50 from the
// delete call to the wake.
func BenchmarkDeleteWakeFloor(b *testing.B) {
	a, w, abs := twoSessions(b)
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		n, err := a.conn.Create(abs+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			b.Fatal(err)
		}
		_, _, ch, err := w.conn.GetW(n)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := a.conn.Delete(n, -1); err != nil {
			b.Fatal(err)
		}
		if _, _, err := waitEvent(context.Background(), nil, ch); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "delete-wake-p50-ms")
}

// BenchmarkMultiWakeFloor is BenchmarkDeleteWakeFloor with Rejoin's
// transaction in place of the delete: one multi deletes the watched node
// and creates the next at the tail (ephemeral sequential), so the floor of
// a Rejoin handoff. Reports the p50 from the multi call to the wake, and
// the same for a bare delete measured in the same loop (alternating, so
// both see the same machine): their ratio is what the create inside the
// transaction costs the handoff.
func BenchmarkMultiWakeFloor(b *testing.B) {
	a, w, abs := twoSessions(b)
	acl := zk.WorldACL(zk.PermAll)
	n, err := a.conn.Create(abs+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
	if err != nil {
		b.Fatal(err)
	}
	var multi, del []time.Duration
	k := 0
	for b.Loop() {
		_, _, ch, err := w.conn.GetW(n)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if k++; k%2 == 0 {
			if err := a.conn.Delete(n, -1); err != nil {
				b.Fatal(err)
			}
		} else {
			mr, _, err := a.conn.MultiZxid(&zk.DeleteRequest{Path: n, Version: -1},
				&zk.CreateRequest{Path: abs + "/n-", Acl: acl, Flags: zk.FlagEphemeral | zk.FlagSequence})
			if err != nil {
				b.Fatal(err)
			}
			n = mr[1].String
		}
		if _, _, err := waitEvent(context.Background(), nil, ch); err != nil {
			b.Fatal(err)
		}
		if k%2 == 0 {
			del = append(del, time.Since(start))
			// The next node, made after the wake (not the handoff's).
			if n, err = a.conn.Create(abs+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, acl); err != nil {
				b.Fatal(err)
			}
		} else {
			multi = append(multi, time.Since(start))
		}
	}
	slices.Sort(multi)
	slices.Sort(del)
	if len(del) > 0 {
		b.ReportMetric(float64(multi[len(multi)/2].Microseconds())/1000, "multi-wake-p50-ms")
		b.ReportMetric(float64(del[len(del)/2].Microseconds())/1000, "delete-wake-p50-ms")
	}
}

// twoSessions is what the floor benchmarks start from: the shared server
// warmed, two sessions on it, and a lock parent made (its server path).
func twoSessions(b *testing.B) (a, o *Session, abs string) {
	warmServer(b)
	a, o = connect(b), connect(b)
	p := lockPath(b)
	if err := NewLock(a, p).makeParents(context.Background()); err != nil {
		b.Fatal(err)
	}
	return a, o, a.Abs(p)
}

// warmServer runs the requests of a few thousand acquisitions through the
// shared server once, so that whichever benchmark runs first does not pay
// for the JVM's warm-up.
var warmOnce sync.Once

func warmServer(b *testing.B) {
	warmOnce.Do(func() {
		s := connect(b)
		p := lockPath(b)
		if err := NewLock(s, p).makeParents(context.Background()); err != nil {
			b.Fatal(err)
		}
		abs := s.Abs(p)
		for range 5000 {
			n, err := s.conn.Create(abs+"/warm-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
			if err != nil {
				b.Fatal(err)
			}
			_, _, _ = s.conn.Children(abs)
			_, _, _ = s.conn.Get(n)
			_ = s.conn.Delete(n, -1)
		}
	})
}

// BenchmarkReleaseOwnWatched: what the holder's own-node watch costs its
// release. Each iteration deletes two nodes that another session watches
// (as the next waiter does), one of them also watched by the deleting
// session itself (a holder's own-node watch), in alternating order, and
// reports the delete round trip's p50 of each and their ratio: the price
// of the one notification more that the release sends.
func BenchmarkReleaseOwnWatched(b *testing.B) {
	a, w, abs := twoSessions(b)
	var lat [2][]time.Duration // [0]: not own-watched, [1]: own-watched
	k := 0
	for b.Loop() {
		for j := range 2 {
			own := (j+k)%2 == 1
			n, err := a.conn.Create(abs+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
			if err != nil {
				b.Fatal(err)
			}
			if _, _, _, err := w.conn.GetW(n); err != nil {
				b.Fatal(err)
			}
			if own {
				if _, _, _, err := a.conn.GetW(n); err != nil {
					b.Fatal(err)
				}
			}
			start := time.Now()
			if err := a.conn.Delete(n, -1); err != nil {
				b.Fatal(err)
			}
			i := 0
			if own {
				i = 1
			}
			lat[i] = append(lat[i], time.Since(start))
		}
		k++
	}
	p50 := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	plain, owned := p50(lat[0]), p50(lat[1])
	b.ReportMetric(plain, "delete-p50-ms")
	b.ReportMetric(owned, "delete-own-watched-p50-ms")
	b.ReportMetric(owned/plain, "own-watched/plain")
}

// BenchmarkReleaseBehind: why a hold-0 release takes longer than the
// floor. The delete is sent alone, right behind another session's create
// (a write: the client that just released, joining again), or right
// behind another session's listing (a read), in turn, and the delete's
// round trip p50 of each is reported with its ratio to the lone one. A
// write the server starts to log first makes the delete wait for that
// commit; a read does not go through the log.
func BenchmarkReleaseBehind(b *testing.B) {
	a, o, abs := twoSessions(b)
	acl := zk.WorldACL(zk.PermAll)
	kinds := []string{"alone", "behind-create", "behind-list"}
	lat := make([][]time.Duration, len(kinds))
	k := 0
	for b.Loop() {
		for j := range kinds {
			kind := (j + k) % len(kinds)
			n, err := a.conn.Create(abs+"/n-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
			if err != nil {
				b.Fatal(err)
			}
			type made struct {
				node string
				err  error
			}
			done := make(chan made, 1)
			if kind > 0 {
				sent := o.lease.sent.expect([]byte(abs))
				go func() {
					var m made
					if kind == 1 {
						m.node, m.err = o.conn.Create(abs+"/o-", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
					} else {
						_, _, m.err = o.conn.Children(abs)
					}
					done <- m
				}()
				<-sent.ch
			} else {
				done <- made{}
			}
			start := time.Now()
			if err := a.conn.Delete(n, -1); err != nil {
				b.Fatal(err)
			}
			lat[kind] = append(lat[kind], time.Since(start))
			m := <-done
			if m.err != nil {
				b.Fatal(m.err)
			}
			if m.node != "" {
				if err := o.conn.Delete(m.node, -1); err != nil {
					b.Fatal(err)
				}
			}
		}
		k++
	}
	p50 := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	alone := p50(lat[0])
	b.ReportMetric(alone, "alone-p50-ms")
	for i, kind := range kinds[1:] {
		v := p50(lat[i+1])
		b.ReportMetric(v, kind+"-p50-ms")
		b.ReportMetric(v/alone, kind+"/alone")
	}
}
