package lockops

// The linearizability suite under faults (models in
// fencing_history_test.go): lockops clients cycle on one lock of a
// 3-member ensemble, each behind its own proxies, incrementing a fenced
// register under it, while nemeses kill the leader, kill a follower, cut
// a holder off past the session timeout, and expire a holder's session;
// and a `zklock run` holder is paused (SIGSTOP) between its read and its
// write for longer than its session, while the others take the lock.
//
// `make test` runs each nemesis once; ZKLOCK_HISTORY_DURATION (a Go
// duration, `make soak`) repeats them until it has passed.

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
)

// historyDuration is how long to repeat the nemeses: 0, once each.
func historyDuration(t *testing.T) time.Duration {
	v := os.Getenv("ZKLOCK_HISTORY_DURATION")
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("ZKLOCK_HISTORY_DURATION=%q: %v", v, err)
	}
	return d
}

// historyWorker is one lockops client cycling on the lock: acquire,
// increment the register, hold a moment, release; each step recorded.
type historyWorker struct {
	id    int
	links links
	s     *Session
	l     *Lock
	holds atomic.Int64
	fails atomic.Int64 // acquires or releases that failed (logged as counts)
	pins  *pinBoard    // the run's, for its nemeses; nil: never pinned
}

func newHistoryWorker(t *testing.T, ctx context.Context, c *sandbox.Cluster, id int, lock string, opts ...Option) *historyWorker {
	t.Helper()
	w := &historyWorker{id: id, links: newLinks(t, c)}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := Connect(cctx, w.links.addrs(), WithSessionTimeout(faultTimeout))
	if err != nil {
		t.Fatalf("worker %d: %v", id, err)
	}
	t.Cleanup(s.Close)
	w.s, w.l = s, NewLock(s, lock, append([]Option{WithNote(fmt.Sprintf("history-%d", id))}, opts...)...)
	return w
}

// run cycles until ctx ends. A hold ends with Release, recorded from its
// call to its return (to the end of time if it failed: the node then goes
// later), or with a loss, recorded when Done closed.
func (w *historyWorker) run(ctx context.Context, h *history, reg *register) {
	for ctx.Err() == nil {
		actx, cancel := context.WithTimeout(ctx, 30*time.Second)
		call := h.now()
		err := w.l.Acquire(actx)
		ret := h.now()
		cancel()
		if err != nil {
			w.fails.Add(1)
			faultPause(ctx, 50*time.Millisecond)
			continue
		}
		h.add(w.id, mutexIn{w.id, true}, nil, call, ret)
		w.holds.Add(1)
		if reg != nil {
			reg.write(reg.read(w.id, w.l.FencingToken()))
		}
		hold := time.NewTimer(10 * time.Millisecond)
		select {
		case <-w.l.Done():
		case <-hold.C:
		case <-ctx.Done():
		}
		hold.Stop()
		if stay := w.pins.stay(w); stay != nil && w.l.Err() == nil {
			select {
			case <-w.l.Done():
			case <-stay:
			case <-ctx.Done():
			}
		}
		if w.l.Err() != nil {
			at := h.now()
			h.add(w.id, mutexIn{w.id, false}, nil, at, at)
			_ = w.l.Release(context.Background())
			continue
		}
		rctx, rcancel := context.WithTimeout(context.Background(), 2*faultTimeout)
		call = h.now()
		err = w.l.Release(rctx)
		ret = h.now()
		rcancel()
		if err != nil {
			w.fails.Add(1)
			ret = math.MaxInt64
		}
		h.add(w.id, mutexIn{w.id, false}, nil, call, ret)
	}
}

// historyRun is the ensemble, its workers and what they recorded.
type historyRun struct {
	c       *sandbox.Cluster
	ctx     context.Context
	workers []*historyWorker
	check   *Session
	lock    string
	faults  int
	pins    pinBoard
}

// totalHolds is the number of holds taken by all workers.
func (r *historyRun) totalHolds() int64 {
	var n int64
	for _, w := range r.workers {
		n += w.holds.Load()
	}
	return n
}

// progress waits until the workers took n more holds.
func (r *historyRun) progress(t *testing.T, what string, n int64) {
	t.Helper()
	want := r.totalHolds() + n
	eventually(t, 60*time.Second, fmt.Sprintf("%d more holds %s", n, what), func() bool { return r.totalHolds() >= want })
}

// pinBoard keeps a holder holding for a nemesis: while pinned, the first
// worker whose hold would end stays in it until unpinned (or until it
// learns the hold is lost). A holder merely seen holding may release
// before the cut that was meant for it (holds last 10 ms): its node is
// then gone by a release, its session lives on, and the fault never
// happens.
type pinBoard struct {
	mu     sync.Mutex
	until  chan struct{} // nil: not pinned
	holder *historyWorker
}

func (b *pinBoard) pin() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.until, b.holder = make(chan struct{}), nil
}

func (b *pinBoard) unpin() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.until != nil {
		close(b.until)
	}
	b.until, b.holder = nil, nil
}

// stay is what w, holding, waits on before it ends its hold: the pin if
// w is the first to ask since pin (that one hold only), nil otherwise.
func (b *pinBoard) stay(w *historyWorker) <-chan struct{} {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.until == nil || b.holder != nil {
		return nil
	}
	b.holder = w
	return b.until
}

func (b *pinBoard) pinned() *historyWorker {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.holder
}

// holder pins the next holder and returns it, holding; the caller
// unpins (r.pins.unpin) once its fault is over.
func (r *historyRun) holder(t *testing.T) *historyWorker {
	t.Helper()
	r.pins.pin()
	var h *historyWorker
	eventually(t, 30*time.Second, "a pinned holder", func() bool {
		h = r.pins.pinned()
		return h != nil
	})
	return h
}

// killMember kills the leader or a follower, lets the others carry on,
// and restarts it.
func (r *historyRun) killMember(t *testing.T, leader bool) {
	var victim int
	var err error
	if leader {
		victim, err = r.c.Leader(r.ctx)
	} else {
		victim, err = follower(r.ctx, r.c)
	}
	if err != nil {
		t.Fatal(err)
	}
	m := r.c.Members()[victim]
	if err := m.Kill(); err != nil {
		t.Fatal(err)
	}
	r.faults++
	r.progress(t, "with a member down", 5)
	if err := m.Restart(r.ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.c.WaitReady(r.ctx); err != nil {
		t.Fatal(err)
	}
}

// partition cuts a holder off until its hold is lost and someone else
// has held the lock, then lets it back.
func (r *historyRun) partition(t *testing.T) {
	w := r.holder(t)
	defer r.pins.unpin()
	w.links.cut()
	r.faults++
	eventually(t, 30*time.Second, "the cut holder to learn of its loss", func() bool {
		return w.l.Err() != nil || w.l.State() != ordering.LockHolding && w.l.State() != ordering.LockSuspended
	})
	others := r.totalHolds() - w.holds.Load()
	eventually(t, 60*time.Second, "another holder while cut", func() bool { return r.totalHolds()-w.holds.Load() > others })
	w.links.restore()
}

// expire cuts a holder off until the servers have expired its session
// (its node is gone), then restores the link: the client hears of the
// expiry from the server and carries on in a new session.
func (r *historyRun) expire(t *testing.T) {
	w := r.holder(t)
	defer r.pins.unpin()
	node, gen := r.check.Abs(r.lock)+"/"+w.l.Node(), w.s.Generation()
	w.links.cut()
	r.faults++
	eventually(t, 30*time.Second, "the servers to expire the cut session", func() bool {
		ok, _, err := r.check.conn.Exists(node)
		return err == nil && !ok
	})
	w.links.restore()
	eventually(t, 60*time.Second, "the expired client's new session", func() bool { return w.s.Generation() != gen })
	r.progress(t, "after the expiry", 3)
}

// TestHistoryUnderFaults: the lock core's own view of its holds (acquire
// return to release, or to Done on a loss) is a linearizable mutex, and
// the fenced register's history a linearizable fenced register, under
// leader kill, follower kill, a holder partitioned past its session
// timeout, and a session expiry.
func TestHistoryUnderFaults(t *testing.T) {
	c := faultEnsemble(t)
	heal(t, c)
	soak := historyDuration(t)
	ctx := tctx(t, 10*time.Minute+soak)
	r := &historyRun{c: c, ctx: ctx, check: checkSession(t, c.Servers()), lock: lockPath(t)}
	h := newHistory()
	reg := &register{fenced: true, h: newHistory()}
	reg.h.origin = h.origin
	for i := range 3 {
		w := newHistoryWorker(t, ctx, c, i, r.lock)
		w.pins = &r.pins
		r.workers = append(r.workers, w)
	}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, w := range r.workers {
		wg.Go(func() { w.run(wctx, h, reg) })
	}
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			stop()
			wg.Wait()
		}
	}
	defer halt()
	r.progress(t, "to warm up", 5)

	nemeses := []struct {
		name string
		run  func(*testing.T)
	}{
		{"leader kill", func(t *testing.T) { r.killMember(t, true) }},
		{"follower kill", func(t *testing.T) { r.killMember(t, false) }},
		{"partition past the session timeout", r.partition},
		{"session expiry", r.expire},
	}
	begin := time.Now()
	for round := 0; round == 0 || time.Since(begin) < soak; round++ {
		for _, n := range nemeses {
			n.run(t)
			t.Logf("round %d: %s done (%d holds so far)", round, n.name, r.totalHolds())
		}
	}
	halt()

	mutex := checkHistory(t, "mutex", mutexModel, h.operations())
	fenced := checkHistory(t, "fenced-register", fencedModel, reg.h.operations())
	var fails int64
	for _, w := range r.workers {
		fails += w.fails.Load()
	}
	violations := 0
	for _, res := range []checkResult{mutex, fenced} {
		if !res.ok {
			violations++
		}
	}
	t.Logf("operations checked: %d (mutex %d, fenced register %d); faults injected: %d; failed acquires/releases: %d; violations: %d",
		mutex.ops+fenced.ops, mutex.ops, fenced.ops, r.faults, fails, violations)
	if !mutex.ok {
		t.Errorf("the lock core's holds are not a linearizable mutex: see %s", mutex.html)
	}
	if !fenced.ok {
		t.Errorf("the fenced register's history is not linearizable: see %s", fenced.html)
	}
}

// zklockBinary builds zklock once for the tests that run it.
var zklockBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "zklock-history-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "zklock")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/zklock/zklock").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build zklock: %v: %s", err, out)
	}
	return bin, nil
})
