package lockops

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// checkToken fails unless l's fencing token is the czxid of its node, as
// another session reads it, and the node is owned by l's session.
func checkToken(t *testing.T, other *Session, l *Lock) {
	t.Helper()
	_, st, err := other.conn.Get(l.abs + "/" + l.Node())
	if err != nil {
		t.Fatalf("read own node %s: %v", l.Node(), err)
	}
	if st.EphemeralOwner != l.s.ID() || st.Czxid != l.FencingToken() {
		t.Fatalf("node %s: owner 0x%x czxid %d, want 0x%x and the token %d", l.Node(), st.EphemeralOwner, st.Czxid, l.s.ID(), l.FencingToken())
	}
}

// TestRejoinLoopExclusion: clients that Acquire once, then loop Rejoin on
// one parent never hold at once, get the lock in sequence order (FIFO),
// and each hold's token is its node's czxid, growing hold after hold.
func TestRejoinLoopExclusion(t *testing.T) {
	const clients, per = 6, 25
	p := lockPath(t)
	ctx := tctx(t, 90*time.Second)
	other := connect(t)
	type hold struct {
		seq        int32
		token      int64
		start, end time.Time
	}
	var (
		inside, overlap atomic.Int32
		mu              sync.Mutex
		holds           []hold
		wg              sync.WaitGroup
	)
	errs := make(chan error, clients)
	for range clients {
		l := NewLock(connect(t), p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Acquire(ctx); err != nil {
				errs <- err
				return
			}
			for k := range per {
				start := time.Now()
				if inside.Add(1) != 1 {
					overlap.Add(1)
				}
				time.Sleep(100 * time.Microsecond)
				inside.Add(-1)
				n, _ := ordering.ParseName(l.Node())
				mu.Lock()
				holds = append(holds, hold{n.Seq, l.FencingToken(), start, time.Now()})
				mu.Unlock()
				if k == per-1 {
					errs <- l.Release(ctx)
					return
				}
				if err := l.Rejoin(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if overlap.Load() != 0 {
		t.Fatalf("%d holds found another holder inside", overlap.Load())
	}
	if len(holds) != clients*per {
		t.Fatalf("%d holds, want %d", len(holds), clients*per)
	}
	for k := 1; k < len(holds); k++ {
		a, b := holds[k-1], holds[k]
		if b.start.Before(a.end) {
			t.Fatalf("holds overlap: %+v and %+v", a, b)
		}
		if !ordering.SeqLess(a.seq, b.seq) || b.token <= a.token {
			t.Fatalf("hold %d: sequence %d token %d after sequence %d token %d: not FIFO", k, b.seq, b.token, a.seq, a.token)
		}
	}
	if c := children(t, other, p); len(c) != 0 {
		t.Fatalf("children after the loops: %v", c)
	}
}

// TestRejoinGoesBehindWaiters: a holder that rejoins while two clients
// wait gets the lock after both; the old hold's Done closes with Err nil
// at the release; the new node is named as the old (a fresh guid) and its
// token is its czxid.
func TestRejoinGoesBehindWaiters(t *testing.T) {
	p := lockPath(t)
	ctx := tctx(t, 30*time.Second)
	other := connect(t)
	var log progressLog
	a := NewLock(connect(t), p, WithProgress(log.add))
	if err := a.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	first, oldDone, oldToken := a.Node(), a.Done(), a.FencingToken()
	order := make(chan string, 3)
	var ws []*Lock
	for i, name := range []string{"b", "c"} {
		w := NewLock(connect(t), p)
		ws = append(ws, w)
		go func() {
			if err := w.Acquire(ctx); err != nil {
				t.Error(err)
				return
			}
			order <- name
			time.Sleep(20 * time.Millisecond)
			_ = w.Release(ctx)
		}()
		eventually(t, 5*time.Second, "waiter queued", func() bool { return len(children(t, other, p)) == i+2 })
	}
	go func() {
		if err := a.Rejoin(ctx); err != nil {
			t.Error(err)
			return
		}
		order <- "a"
	}()
	waitClosed(t, oldDone, 5*time.Second, "the old hold's Done")
	var got []string
	for range 3 {
		got = append(got, recvWithin(t, order, 10*time.Second, "a hold"))
	}
	if strings.Join(got, ",") != "b,c,a" {
		t.Fatalf("holds in order %v, want b,c,a", got)
	}
	if a.Err() != nil || !log.has(ordering.LockReleased) {
		t.Fatalf("after Rejoin: Err %v, progress %v", a.Err(), log.seen())
	}
	old, _ := ordering.ParseName(first)
	now, _ := ordering.ParseName(a.Node())
	if now.Recipe != old.Recipe || now.Kind != old.Kind || now.Family() != old.Family() || now.GUID() == old.GUID() || now.GUID() == "" {
		t.Fatalf("rejoined as %s (%+v), first as %s (%+v): want the same shape with a fresh guid", a.Node(), now, first, old)
	}
	for _, w := range ws {
		n, _ := ordering.ParseName(w.Node())
		if !ordering.SeqLess(n.Seq, now.Seq) {
			t.Fatalf("rejoined node %s is not behind waiter %s", a.Node(), w.Node())
		}
	}
	checkToken(t, other, a)
	if a.FencingToken() <= oldToken {
		t.Fatalf("token %d after rejoining, %d before", a.FencingToken(), oldToken)
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "empty queue", func() bool { return len(children(t, other, p)) == 0 })
}

// TestRejoinNames: Rejoin names the next node as the lock's create does,
// for every recipe a lock joins as: Curator mutex, read and write, and
// Kazoo's lock and read lock, so that stock clients order it among theirs.
func TestRejoinNames(t *testing.T) {
	ctx := tctx(t, 30*time.Second)
	s, other := connect(t), connect(t)
	cases := []struct {
		name string
		opts []Option
	}{
		{"curator-mutex", nil},
		{"curator-read", []Option{WithKind(ordering.KindRead)}},
		{"curator-write", []Option{WithKind(ordering.KindWrite)}},
		{"kazoo-lock", []Option{WithStyle(ordering.StyleKazoo)}},
		{"kazoo-read", []Option{WithStyle(ordering.StyleKazoo), WithKind(ordering.KindRead)}},
	}
	for _, tc := range cases {
		p := lockPath(t) + "-" + tc.name
		l := NewLock(s, p, append(tc.opts, WithData([]byte("rejoin-"+tc.name)))...)
		if err := l.Acquire(ctx); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		first := l.Node()
		for range 3 {
			if err := l.Rejoin(ctx); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		old, _ := ordering.ParseName(first)
		now, _ := ordering.ParseName(l.Node())
		if now.Recipe != old.Recipe || now.Kind != old.Kind || now.Family() != old.Family() || now.GUID() == old.GUID() || now.GUID() == "" {
			t.Fatalf("%s: rejoined as %s (%+v), created as %s (%+v)", tc.name, l.Node(), now, first, old)
		}
		if strings.TrimSuffix(strings.Replace(first, old.GUID(), "", 1), first[len(first)-10:]) !=
			strings.TrimSuffix(strings.Replace(l.Node(), now.GUID(), "", 1), l.Node()[len(l.Node())-10:]) {
			t.Fatalf("%s: %s and %s differ beyond guid and sequence", tc.name, first, l.Node())
		}
		data, _, err := other.conn.Get(l.abs + "/" + l.Node())
		if err != nil || string(data) != "rejoin-"+tc.name {
			t.Fatalf("%s: data %q %v", tc.name, data, err)
		}
		checkToken(t, other, l)
		if c := children(t, other, p); len(c) != 1 || c[0] != l.Node() {
			t.Fatalf("%s: children %v, want only %s", tc.name, c, l.Node())
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRejoinNotHeldAndUnsupported: Rejoin of a lock not held is
// ErrNotHeld, as Release; a semaphore's lease and an election participant
// are ErrRejoinUnsupported.
func TestRejoinNotHeldAndUnsupported(t *testing.T) {
	ctx := tctx(t, 20*time.Second)
	s := connect(t)
	p := lockPath(t)
	l := NewLock(s, p)
	if err := l.Rejoin(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Rejoin before Acquire: %v, want ErrNotHeld", err)
	}
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Rejoin(ctx); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("Rejoin after Release: %v, want ErrNotHeld", err)
	}
	for name, l := range map[string]*Lock{
		"WithLimit":       NewLock(s, p+"-sem", WithLimit(2)),
		"WithLatch":       NewLock(s, p+"-latch", WithLatch()),
		"semaphore lease": NewSemaphore(s, p+"-sem", WithLimit(2)).leaseHold(p + "-sem/leases"),
	} {
		if err := l.Rejoin(ctx); !errors.Is(err, ErrRejoinUnsupported) {
			t.Fatalf("Rejoin of a %s lock: %v, want ErrRejoinUnsupported", name, err)
		}
	}
	// A held semaphore's lease refuses too, and keeps its lease.
	m := NewSemaphore(s, p+"-sem2", WithLimit(2))
	if err := m.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	lease := m.hold
	m.mu.Unlock()
	if err := lease.Rejoin(ctx); !errors.Is(err, ErrRejoinUnsupported) {
		t.Fatalf("Rejoin of a held lease: %v, want ErrRejoinUnsupported", err)
	}
	if m.State() != ordering.LockHolding {
		t.Fatalf("lease state %s after the refused Rejoin", m.State())
	}
	if err := m.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRejoinForceReleased: a holder whose node someone deleted gets an
// error from Rejoin, whether it had learnt of the loss yet or not, and
// nothing of it is left; the Lock can be acquired again.
func TestRejoinForceReleased(t *testing.T) {
	ctx := tctx(t, 30*time.Second)
	s, other := connect(t), connect(t)
	p := lockPath(t)
	for _, learnt := range []bool{false, true} {
		l := NewLock(s, p)
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		if err := ForceRelease(ctx, other, p+"/"+l.Node(), s.ID()); err != nil {
			t.Fatal(err)
		}
		if learnt {
			waitClosed(t, l.Done(), 5*time.Second, "the loss")
		}
		err := l.Rejoin(ctx)
		if !errors.Is(err, ErrNodeDeleted) || (learnt && !errors.Is(err, ErrNotHeld)) || (!learnt && !errors.Is(err, ErrLost)) {
			t.Fatalf("learnt %v: Rejoin of a force-released holder: %v", learnt, err)
		}
		select {
		case <-l.Done():
		default:
			t.Fatalf("learnt %v: Done still open", learnt)
		}
		if l.State() != ordering.LockIdle || !errors.Is(l.Err(), ErrNodeDeleted) {
			t.Fatalf("learnt %v: state %s, Err %v", learnt, l.State(), l.Err())
		}
		if c := children(t, other, p); len(c) != 0 {
			t.Fatalf("learnt %v: children %v after the refused Rejoin", learnt, c)
		}
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// cutMulti is a dialer whose connections, once armed, cut the link at the
// next multi: after sending it (the server runs it, the answer is lost),
// or instead of sending it (it never reaches the server).
type cutMulti struct {
	armed  atomic.Bool
	before bool
	cuts   atomic.Int32
}

// opMultiCode is ZooKeeper's multi opcode.
const opMultiCode = 14

func (d *cutMulti) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &multiCutConn{Conn: c, d: d}, nil
}

type multiCutConn struct {
	net.Conn
	d *cutMulti
}

func (c *multiCutConn) Write(b []byte) (int, error) {
	multi := len(b) >= 12 && b[8] == 0 && b[9] == 0 && b[10] == 0 && b[11] == opMultiCode
	if multi && c.d.before && c.d.armed.CompareAndSwap(true, false) {
		c.d.cuts.Add(1)
		c.Conn.Close()
		return 0, net.ErrClosed
	}
	n, err := c.Conn.Write(b)
	if err == nil && multi && c.d.armed.CompareAndSwap(true, false) {
		c.d.cuts.Add(1)
		c.Conn.Close()
	}
	return n, err
}

// TestRejoinCutDuringMulti: the link dies with the multi, sent (it ran,
// the answer is lost) or not (it never ran), with a waiter in the queue:
// Rejoin finds out which once the link is back and ends holding after the
// waiter, with one node of its own and the token of that node.
func TestRejoinCutDuringMulti(t *testing.T) {
	for _, before := range []bool{false, true} {
		d := &cutMulti{before: before}
		ctx := tctx(t, 30*time.Second)
		p := lockPath(t)
		s, other := connect(t, WithDialer(d.dial)), connect(t)
		l := NewLock(s, p)
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		w := NewLock(other, p)
		got := make(chan error, 1)
		go func() {
			err := w.Acquire(ctx)
			if err == nil {
				time.Sleep(50 * time.Millisecond)
				err = w.Release(ctx)
			}
			got <- err
		}()
		eventually(t, 5*time.Second, "waiter queued", func() bool { return len(children(t, other, p)) == 2 })
		d.armed.Store(true)
		if err := l.Rejoin(ctx); err != nil {
			t.Fatalf("cut before sending %v: Rejoin: %v", before, err)
		}
		if d.cuts.Load() != 1 {
			t.Fatalf("cut before sending %v: the multi was not cut (%d cuts)", before, d.cuts.Load())
		}
		if err := recvWithin(t, got, 10*time.Second, "the waiter"); err != nil {
			t.Fatal(err)
		}
		if c := children(t, other, p); len(c) != 1 || c[0] != l.Node() {
			t.Fatalf("cut before sending %v: children %v, want only %s", before, c, l.Node())
		}
		checkToken(t, other, l)
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRejoinGivesUpWithLinkDown: Rejoin whose ctx ends while the link is
// down returns the error, does not hold, and leaves no node once the link
// is back.
func TestRejoinGivesUpWithLinkDown(t *testing.T) {
	px := newTestProxy(t)
	ctx := tctx(t, 30*time.Second)
	p := lockPath(t)
	s := connectVia(t, ctx, px, WithSessionTimeout(4*time.Second))
	l := NewLock(s, p)
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	px.Cut()
	waitState(t, s, SessionSuspended, 3*time.Second)
	rctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := l.Rejoin(rctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Rejoin with the link down: %v", err)
	}
	if l.State() != ordering.LockIdle {
		t.Fatalf("state %s after the failed Rejoin", l.State())
	}
	px.Restore()
	waitState(t, s, SessionConnected, 5*time.Second)
	other := connect(t)
	eventually(t, 10*time.Second, "no node left", func() bool { return len(children(t, other, p)) == 0 })
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRejoinSessionExpired: a Rejoin that starts with the link down and
// finds the session expired once it is back acquires in the new session,
// as Acquire would; the old hold ends lost with the session.
func TestRejoinSessionExpired(t *testing.T) {
	px := newTestProxy(t)
	ctx := tctx(t, 30*time.Second)
	p := lockPath(t)
	s := connectVia(t, ctx, px, WithSessionTimeout(2*time.Second))
	l := NewLock(s, p)
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	gen, oldDone := s.Generation(), l.Done()
	px.Cut()
	waitState(t, s, SessionSuspended, 3*time.Second)
	go func() {
		time.Sleep(4 * time.Second) // past the server's expiry
		px.Restore()
	}()
	if err := l.Rejoin(ctx); err != nil {
		t.Fatalf("Rejoin across expiry: %v", err)
	}
	if s.Generation() == gen {
		t.Fatal("the session did not expire: the test did not exercise expiry")
	}
	waitClosed(t, oldDone, time.Second, "the old hold's Done")
	other := connect(t)
	if c := children(t, other, p); len(c) != 1 || !slices.Contains(c, l.Node()) {
		t.Fatalf("children %v, want only %s", c, l.Node())
	}
	checkToken(t, other, l)
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
