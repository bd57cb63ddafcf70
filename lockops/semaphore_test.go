package lockops

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/sandbox/peers"
)

var (
	curatorLeaseName = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lease-\d{10}$`)
	kazooLeaseName   = regexp.MustCompile(`^[0-9a-f]{32}$`)
)

// semProgress records a Semaphore's progress.
type semProgress struct {
	mu  sync.Mutex
	all []ordering.Progress
}

func (r *semProgress) add(p ordering.Progress) {
	r.mu.Lock()
	r.all = append(r.all, p)
	r.mu.Unlock()
}

func (r *semProgress) saw(f func(ordering.Progress) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.ContainsFunc(r.all, f)
}

// acquireAsync starts m.Acquire and returns where its result arrives.
func acquireAsync(ctx context.Context, m *Semaphore) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- m.Acquire(ctx) }()
	return ch
}

// TestSemaphoreCuratorProtocol: on an empty parent zklock takes leases
// the way Curator's InterProcessSemaphoreV2 does: P/locks admits, leases
// are protected ephemeral-sequential "-lease-" nodes in P/leases, the
// admitted contender beyond the limit keeps its lease and the lock while
// it waits; waiters that give up (in line for the lock, or admitted) leave
// nothing; a returned lease goes to the admitted waiter.
func TestSemaphoreCuratorProtocol(t *testing.T) {
	ctx := tctx(t, 60*time.Second)
	p := lockPath(t)
	s0 := connect(t)
	leases, locks := p+"/leases", p+"/locks"

	a := NewSemaphore(connect(t), p, WithLimit(2), WithNote("a"))
	b := NewSemaphore(connect(t), p, WithLimit(2))
	for _, m := range []*Semaphore{a, b} {
		if err := m.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		if !curatorLeaseName.MatchString(m.Node()) || m.LeasePath() != leases+"/"+m.Node() || m.Style() != ordering.StyleCurator || m.Limit() != 2 {
			t.Fatalf("lease %q at %q (%s, limit %d): not a Curator lease", m.Node(), m.LeasePath(), m.Style(), m.Limit())
		}
		if m.State() != ordering.LockHolding {
			t.Fatalf("state %s", m.State())
		}
	}
	if data, _, err := s0.conn.Get(s0.Abs(a.LeasePath())); err != nil || string(data) != DefaultData("a") {
		t.Errorf("lease data %q (%v), want %q", data, err, DefaultData("a"))
	}
	if k := children(t, s0, locks); len(k) != 0 {
		t.Fatalf("the admission lock is held by %v after the leases were taken", k)
	}

	// c is admitted and waits with its lease beyond the limit.
	var prog semProgress
	c := NewSemaphore(connect(t), p, WithLimit(2), WithProgress(prog.add))
	cDone := acquireAsync(ctx, c)
	eventually(t, 10*time.Second, "c's lease beyond the limit and its admission node", func() bool {
		return len(children(t, s0, leases)) == 3 && len(children(t, s0, locks)) == 1
	})
	eventually(t, 10*time.Second, "c's progress: waiting on the leases", func() bool {
		return prog.saw(func(pr ordering.Progress) bool {
			return pr.State == ordering.LockQueued && pr.Watching == leases && pr.Position == 1
		})
	})
	// d waits in line for the admission lock, then gives up.
	dctx, dcancel := context.WithCancel(ctx)
	d := NewSemaphore(connect(t), p, WithLimit(2))
	dDone := acquireAsync(dctx, d)
	eventually(t, 10*time.Second, "d in line for the admission lock", func() bool { return len(children(t, s0, locks)) == 2 })
	dcancel()
	if err := <-dDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("d: %v, want canceled", err)
	}
	if k := children(t, s0, locks); len(k) != 1 {
		t.Fatalf("after d gave up the admission lock holds %v", k)
	}
	// TryAcquire of a full semaphore: false, nothing left behind.
	e := NewSemaphore(connect(t), p, WithLimit(2))
	if ok, err := e.TryAcquire(ctx); ok || err != nil {
		t.Fatalf("TryAcquire of a full semaphore: %v %v", ok, err)
	}
	if len(children(t, s0, leases)) != 3 || len(children(t, s0, locks)) != 1 {
		t.Fatalf("TryAcquire left %v %v", children(t, s0, leases), children(t, s0, locks))
	}

	// A lease returned goes to c; the admission lock is let go.
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := recvWithin(t, cDone, 10*time.Second, "c to hold"); err != nil {
		t.Fatal(err)
	}
	if k := children(t, s0, leases); len(k) != 2 || !slices.Contains(k, c.Node()) {
		t.Fatalf("leases %v after the handover, want b's and c's", k)
	}
	if k := children(t, s0, locks); len(k) != 0 {
		t.Fatalf("admission lock %v after c holds", k)
	}

	// An admitted waiter that gives up deletes its lease and lets go.
	fctx, fcancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer fcancel()
	f := NewSemaphore(connect(t), p, WithLimit(2))
	if err := f.Acquire(fctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("f: %v, want deadline exceeded", err)
	}
	if len(children(t, s0, leases)) != 2 || len(children(t, s0, locks)) != 0 {
		t.Fatalf("f gave up and left %v %v", children(t, s0, leases), children(t, s0, locks))
	}
	if err := a.Release(ctx); !errors.Is(err, ErrNotHeld) {
		t.Errorf("second release: %v, want ErrNotHeld", err)
	}
	for _, m := range []*Semaphore{b, c} {
		if err := m.Release(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case <-m.Done():
		default:
			t.Fatal("Done open after release")
		}
		if m.Err() != nil {
			t.Fatalf("Err after release: %v", m.Err())
		}
	}
	if k := children(t, s0, leases); len(k) != 0 {
		t.Fatalf("leases %v after every release", k)
	}
}

// TestSemaphoreKazooProtocol: in Kazoo style zklock makes the parent with
// max_leases as its data, names leases by a uuid4 hex with the identifier
// as data, admits through a Kazoo lock at P-__lock__; a later client reads
// the limit from the data and refuses one that differs.
func TestSemaphoreKazooProtocol(t *testing.T) {
	ctx := tctx(t, 60*time.Second)
	p := lockPath(t)
	s0 := connect(t)
	a := NewSemaphore(connect(t), p, WithStyle(ordering.StyleKazoo), WithLimit(2), WithData([]byte("worker-a")))
	if err := a.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if data, _, err := s0.conn.Get(s0.Abs(p)); err != nil || string(data) != "2" {
		t.Fatalf("parent data %q (%v), want max_leases 2", data, err)
	}
	if !kazooLeaseName.MatchString(a.Node()) || a.LeasePath() != p+"/"+a.Node() {
		t.Fatalf("lease %q at %q: not a Kazoo lease", a.Node(), a.LeasePath())
	}
	data, st, err := s0.conn.Get(s0.Abs(a.LeasePath()))
	if err != nil || string(data) != "worker-a" || st.EphemeralOwner == 0 {
		t.Fatalf("lease data %q owner 0x%x (%v)", data, st.EphemeralOwner, err)
	}

	// Detected from the data, with the limit from it.
	b := NewSemaphore(connect(t), p)
	if err := b.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if b.Style() != ordering.StyleKazoo || b.Limit() != 2 {
		t.Fatalf("detected %s limit %d, want kazoo 2", b.Style(), b.Limit())
	}
	if err := NewSemaphore(connect(t), p, WithLimit(3)).Acquire(ctx); !errors.Is(err, ErrLimitMismatch) {
		t.Fatalf("a limit that differs from max_leases: %v, want ErrLimitMismatch", err)
	}

	// A third waits in the Kazoo lock, then gives up: nothing left.
	var prog semProgress
	cctx, ccancel := context.WithCancel(ctx)
	c := NewSemaphore(connect(t), p, WithProgress(prog.add))
	cDone := acquireAsync(cctx, c)
	eventually(t, 10*time.Second, "c admitted and waiting", func() bool {
		k := children(t, s0, p+kazooLockSuffix)
		return len(k) == 1 && prog.saw(func(pr ordering.Progress) bool {
			return pr.State == ordering.LockQueued && pr.Watching == p && pr.Node == k[0]
		})
	})
	if n, ok := ordering.ParseName(children(t, s0, p+kazooLockSuffix)[0]); !ok || n.Recipe != ordering.RecipeKazoo {
		t.Fatalf("admission node %+v: not a Kazoo lock node", n)
	}
	ccancel()
	if err := <-cDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("c: %v", err)
	}
	if len(children(t, s0, p)) != 2 || len(children(t, s0, p+kazooLockSuffix)) != 0 {
		t.Fatalf("c gave up and left %v %v", children(t, s0, p), children(t, s0, p+kazooLockSuffix))
	}
	for _, m := range []*Semaphore{a, b} {
		if err := m.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if k := children(t, s0, p); len(k) != 0 {
		t.Fatalf("leases %v after every release", k)
	}
}

// TestSemaphoreRefusals: what is refused before anything is created.
func TestSemaphoreRefusals(t *testing.T) {
	ctx := tctx(t, 30*time.Second)
	s := connect(t)
	c := s.conn
	mk := func(p string, data string, kids ...string) {
		t.Helper()
		if err := s.makePath(ctx, s.Abs(p), zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		if data != "" {
			if _, err := c.Set(s.Abs(p), []byte(data), -1); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range kids {
			if _, err := c.Create(s.Abs(p)+"/"+k, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
		}
	}
	base := lockPath(t)
	mk(base+"/lockq", "", "_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-lock-0000000001")
	mk(base+"/mixed", "3", "leases")
	mk(base+"/kazoo0", "0")
	mk(base+"/words", "not a number")
	for _, tt := range []struct {
		name string
		p    string
		opts []Option
		want error
	}{
		{"curator without a limit", base + "/empty", nil, ErrNoLimit},
		{"kazoo without a limit", base + "/empty", []Option{WithStyle(ordering.StyleKazoo)}, ErrNoLimit},
		{"kazoo data that is no number, no limit", base + "/words", []Option{WithStyle(ordering.StyleKazoo)}, ErrNoLimit},
		{"kazoo max_leases 0", base + "/kazoo0", nil, ErrNoLimit},
		{"a lock queue", base + "/lockq", []Option{WithLimit(2)}, ErrNotSemaphore},
		{"both recipes", base + "/mixed", []Option{WithLimit(3)}, ordering.ErrMixedRecipes},
		{"kazoo style on curator's layout", base + "/mixed", []Option{WithLimit(3), WithStyle(ordering.StyleKazoo)}, ErrNotSemaphore},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := children(t, s, tt.p)
			err := NewSemaphore(s, tt.p, tt.opts...).Acquire(ctx)
			if !errors.Is(err, tt.want) {
				t.Fatalf("%v, want %v", err, tt.want)
			}
			t.Logf("%v", err)
			if after := children(t, s, tt.p); !slices.Equal(before, after) {
				t.Fatalf("children %v, were %v", after, before)
			}
		})
	}
	for _, opts := range [][]Option{{WithLimit(1), WithKind(ordering.KindRead)}, {WithLimit(1), WithLatch()}, {WithLimit(-1)}} {
		if err := NewSemaphore(s, base+"/opts", opts...).Acquire(ctx); err == nil {
			t.Errorf("a lock's option on a semaphore: accepted")
		}
	}
	if err := NewLock(s, base+"/opts", WithLimit(2)).Acquire(ctx); err == nil {
		t.Errorf("WithLimit on a lock: accepted")
	}
}

// TestSemaphoreLeaseLost: a lease force-released by an operator (the
// owner check applies to a lease as to a lock node) ends the hold: Done
// closes and Err says why.
func TestSemaphoreLeaseLost(t *testing.T) {
	ctx := tctx(t, 30*time.Second)
	for _, style := range []ordering.Style{ordering.StyleCurator, ordering.StyleKazoo} {
		t.Run(style.String(), func(t *testing.T) {
			s0 := connect(t)
			m := NewSemaphore(connect(t), lockPath(t), WithStyle(style), WithLimit(1))
			if err := m.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
			// Force-release, as an operator does: the owner check first.
			_, st, err := s0.conn.Get(s0.Abs(m.LeasePath()))
			if err != nil {
				t.Fatal(err)
			}
			if err := ForceRelease(ctx, s0, m.LeasePath(), st.EphemeralOwner+1); !errors.Is(err, ErrOwnerChanged) {
				t.Fatalf("force-release with another owner: %v, want ErrOwnerChanged", err)
			}
			if err := ForceRelease(ctx, s0, m.LeasePath(), st.EphemeralOwner); err != nil {
				t.Fatal(err)
			}
			recvWithin(t, m.Done(), 5*time.Second, "Done after the lease was deleted")
			if !errors.Is(m.Err(), ErrLost) || !errors.Is(m.Err(), ErrNodeDeleted) {
				t.Fatalf("Err %v", m.Err())
			}
			if m.State() != ordering.LockLost {
				t.Fatalf("state %s", m.State())
			}
			if err := m.Release(ctx); err != nil {
				t.Fatalf("release of a lost lease: %v", err)
			}
			// Reusable: a new lease.
			if err := m.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
			if err := m.Release(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSemaphoreWithPeers: zklock and stock contenders (Curator's
// InterProcessSemaphoreV2, Kazoo's Semaphore) share one semaphore with
// limit 1, 2 and 3. Step by step: zklock's lease counts for the stock
// clients (one waits while zklock's fills the limit) and theirs for zklock;
// a zklock waiter that gives up leaves nothing. Then every contender loops
// acquire, hold, release: at no instant do more than the limit hold.
func TestSemaphoreWithPeers(t *testing.T) {
	for _, kind := range []peers.Kind{peers.Curator, peers.Kazoo} {
		t.Run(string(kind), func(t *testing.T) {
			const clients = 3
			peer := peers.StartT(t, kind, peers.Options{Servers: testServers(t), Sessions: clients})
			for _, limit := range []int{1, 2, 3} {
				t.Run(fmt.Sprintf("limit%d", limit), func(t *testing.T) {
					semWithPeers(t, peer, kind, limit)
				})
			}
		})
	}
}

func semWithPeers(t *testing.T, peer *peers.Proc, kind peers.Kind, limit int) {
	ctx := tctx(t, 120*time.Second)
	p := lockPath(t)
	s0 := connect(t)
	lk := peers.Semaphore(limit)
	leaseDir, lockDir := p+"/leases", p+"/locks"
	var opts []Option
	if kind == peers.Kazoo {
		leaseDir, lockDir = p, p+kazooLockSuffix
	} else {
		opts = []Option{WithLimit(limit)} // Curator keeps it in its clients
	}

	// On Kazoo the stock client makes the parent (max_leases in its
	// data, which zklock then reads); on Curator zklock starts.
	if kind == peers.Kazoo {
		h, err := peer.Acquire(ctx, 0, p, lk)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ours := NewSemaphore(connect(t), p, opts...)
	if err := ours.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if ours.Limit() != limit {
		t.Fatalf("limit %d, want %d", ours.Limit(), limit)
	}
	var peerHolds []*peers.Hold
	for c := 0; len(peerHolds)+1 < limit; c++ {
		h, err := peer.Acquire(ctx, c, p, lk)
		if err != nil {
			t.Fatal(err)
		}
		peerHolds = append(peerHolds, h)
	}
	if got := len(children(t, s0, leaseDir)); got != limit {
		t.Fatalf("%d leases, want the limit %d", got, limit)
	}
	// Full: a zklock waiter gives up and leaves nothing.
	gctx, gcancel := context.WithTimeout(ctx, 700*time.Millisecond)
	err := NewSemaphore(connect(t), p, opts...).Acquire(gctx)
	gcancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("zklock on a full semaphore: %v, want deadline exceeded", err)
	}
	if len(children(t, s0, leaseDir)) != limit || len(children(t, s0, lockDir)) != 0 {
		t.Fatalf("the zklock waiter that gave up left %v %v", children(t, s0, leaseDir), children(t, s0, lockDir))
	}
	// Full: a stock client waits, zklock's lease counted.
	waiter, err := peer.Request(len(peerHolds), p, lk)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the stock waiter admitted", func() bool { return len(children(t, s0, lockDir)) == 1 })
	if waiter.Held() {
		t.Fatalf("%s granted a lease beyond the limit %d", kind, limit)
	}
	if err := ours.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := waiter.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	peerHolds = append(peerHolds, waiter)
	// Full of stock leases: zklock waits and gets the next one returned.
	again := acquireAsync(ctx, ours)
	eventually(t, 20*time.Second, "zklock admitted", func() bool { return len(children(t, s0, lockDir)) == 1 })
	select {
	case err := <-again:
		t.Fatalf("zklock took a lease beyond the limit (%v)", err)
	default:
	}
	if err := peerHolds[0].Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := recvWithin(t, again, 20*time.Second, "zklock to hold"); err != nil {
		t.Fatal(err)
	}
	if err := ours.Release(ctx); err != nil {
		t.Fatal(err)
	}
	for _, h := range peerHolds[1:] {
		if err := h.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// The exclusion check: everyone loops.
	const cycles = 6
	var (
		mu   sync.Mutex
		ivs  []peers.Interval
		wg   sync.WaitGroup
		errs = make(chan error, 2*len(peer.Sessions()))
	)
	add := func(iv peers.Interval) {
		mu.Lock()
		ivs = append(ivs, iv)
		mu.Unlock()
	}
	hold := func() time.Duration { return time.Duration(5+rand.IntN(20)) * time.Millisecond }
	for i := range len(peer.Sessions()) {
		m := NewSemaphore(connect(t), p, opts...)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range cycles {
				if err := m.Acquire(ctx); err != nil {
					errs <- fmt.Errorf("zklock %d: %w", i, err)
					return
				}
				start := time.Now()
				time.Sleep(hold())
				add(peers.Interval{Who: "zklock " + m.Node(), Start: start, End: time.Now()})
				if err := m.Release(ctx); err != nil {
					errs <- fmt.Errorf("zklock %d: %w", i, err)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range cycles {
				h, err := peer.Acquire(ctx, i, p, lk)
				if err != nil {
					errs <- err
					return
				}
				time.Sleep(hold())
				if err := h.Release(ctx); err != nil {
					errs <- err
					return
				}
				add(h.Interval(string(kind) + " " + h.Node()))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(ivs) != 2*cycles*len(peer.Sessions()) {
		t.Fatalf("%d leases taken, want %d", len(ivs), 2*cycles*len(peer.Sessions()))
	}
	most, at := peers.MostAtOnce(ivs)
	t.Logf("%d leases, at most %d at once (limit %d)", len(ivs), most, limit)
	if most > limit {
		t.Fatalf("%d leases held at once, limit %d: %v", most, limit, at)
	}
	if k := children(t, s0, leaseDir); len(k) != 0 {
		t.Fatalf("leases %v left after the loops", k)
	}
}

// TestSemaphoreSessionExpires: an admitted waiter whose session expires
// (its link cut past the timeout) loses its lease beyond the limit and
// its admission node with the session, and waits again in the next one;
// it then takes the lease freed for it. A held lease whose session
// expires ends: Done closes, Err says so.
func TestSemaphoreSessionExpires(t *testing.T) {
	px := newTestProxy(t)
	ctx := tctx(t, 60*time.Second)
	p := lockPath(t)
	s0 := connect(t)
	holder := NewSemaphore(connect(t), p, WithLimit(1))
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	ws := connectVia(t, ctx, px, WithSessionTimeout(time.Second))
	waiter := NewSemaphore(ws, p, WithLimit(1))
	got := acquireAsync(ctx, waiter)
	eventually(t, 10*time.Second, "the waiter admitted", func() bool {
		return len(children(t, s0, p+"/leases")) == 2 && len(children(t, s0, p+"/locks")) == 1
	})
	first := ws.Generation()
	px.Cut()
	eventually(t, 15*time.Second, "the server to drop the waiter's nodes", func() bool {
		return len(children(t, s0, p+"/leases")) == 1 && len(children(t, s0, p+"/locks")) == 0
	})
	px.Restore()
	eventually(t, 15*time.Second, "the waiter back in a new session", func() bool {
		return ws.Generation() > first && len(children(t, s0, p+"/leases")) == 2
	})
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := recvWithin(t, got, 10*time.Second, "the waiter to hold"); err != nil {
		t.Fatal(err)
	}
	_, st, err := s0.conn.Get(s0.Abs(waiter.LeasePath()))
	if err != nil || st.EphemeralOwner != ws.ID() {
		t.Fatalf("lease owned by 0x%x (%v), want the new session 0x%x", st.EphemeralOwner, err, ws.ID())
	}

	px.Cut()
	recvWithin(t, waiter.Done(), 10*time.Second, "Done of a lease whose session expired")
	if !errors.Is(waiter.Err(), ErrLost) || !errors.Is(waiter.Err(), ErrSessionExpired) {
		t.Fatalf("Err %v", waiter.Err())
	}
	px.Restore()
}
