package lockops

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/lockops/ordering"
)

// progressLog records a Lock's progress for assertions.
type progressLog struct {
	mu     sync.Mutex
	states []ordering.LockState
}

func (p *progressLog) add(pr ordering.Progress) {
	p.mu.Lock()
	p.states = append(p.states, pr.State)
	p.mu.Unlock()
}

// seen is a copy of the states so far.
func (p *progressLog) seen() []ordering.LockState {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.states)
}

func (p *progressLog) has(st ordering.LockState) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.states {
		if s == st {
			return true
		}
	}
	return false
}

// TestHolderLinkCutPastTimeout: the holder's link is cut for longer than
// its session timeout. It reports suspended, then its Done() closes (lost,
// session expired), and the next waiter holds once the server expires the
// session.
func TestHolderLinkCutPastTimeout(t *testing.T) {
	px := newTestProxy(t)
	ctx := tctx(t, 30*time.Second)
	p := lockPath(t)
	hs := connectVia(t, ctx, px, WithSessionTimeout(time.Second))
	var log progressLog
	holder := NewLock(hs, p, WithProgress(log.add))
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	ws := connect(t)
	waiter := NewLock(ws, p)
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(ctx) }()
	eventually(t, 5*time.Second, "waiter queued", func() bool { return len(children(t, ws, p)) == 2 })

	cut := time.Now()
	px.Cut()
	waitClosed(t, holder.Done(), 5*time.Second, "holder's Done after a long cut")
	lostAfter := time.Since(cut)
	if !errors.Is(holder.Err(), ErrLost) || !errors.Is(holder.Err(), ErrSessionExpired) {
		t.Errorf("holder Err: %v", holder.Err())
	}
	// Done closes first (the holder must stop believing at once); the
	// progress callback hears of the loss just after.
	eventually(t, 5*time.Second, "lost reported", func() bool { return log.has(ordering.LockLost) })
	if !log.has(ordering.LockSuspended) {
		t.Errorf("holder progress %v: want suspended then lost", log.seen())
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("waiter did not get the lock after the holder's session expired")
	}
	heldAfter := time.Since(cut)
	// The holder stops believing before the server lets the waiter in.
	if lostAfter > heldAfter {
		t.Errorf("holder lost after %v but the waiter held after %v", lostAfter, heldAfter)
	}
	t.Logf("holder lost after %v, waiter held after %v (session timeout 1 s)", lostAfter, heldAfter)
	px.Restore()
	if err := holder.Release(ctx); err != nil {
		t.Errorf("Release of the lost lock: %v", err)
	}
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestHolderShortCutStillHeld: a cut shorter than the session timeout is
// only a suspension.
func TestHolderShortCutStillHeld(t *testing.T) {
	px := newTestProxy(t)
	ctx := tctx(t, 30*time.Second)
	p := lockPath(t)
	hs := connectVia(t, ctx, px, WithSessionTimeout(4*time.Second))
	var log progressLog
	holder := NewLock(hs, p, WithProgress(log.add))
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	waitOwnWatch(t, ctx, hs, holder)
	px.Cut()
	eventually(t, 5*time.Second, "suspended", func() bool { return holder.State() == ordering.LockSuspended })
	px.Restore()
	eventually(t, 10*time.Second, "holding again", func() bool { return holder.State() == ordering.LockHolding })
	select {
	case <-holder.Done():
		t.Fatalf("Done closed after a short cut: %v", holder.Err())
	default:
	}
	// Release while the link is down: done once it is back.
	px.Cut()
	eventually(t, 5*time.Second, "suspended", func() bool { return holder.State() == ordering.LockSuspended })
	res := make(chan error, 1)
	go func() { res <- holder.Release(ctx) }()
	// Release is in flight, and blocked: it has begun, it has not
	// returned, and the node is still on the server.
	eventually(t, 5*time.Second, "Release to begin", func() bool {
		holder.mu.Lock()
		defer holder.mu.Unlock()
		return holder.releasing
	})
	if c := children(t, connect(t), p); len(c) != 1 {
		t.Fatalf("children while the link is down: %v, want the holder's node", c)
	}
	select {
	case err := <-res:
		t.Fatalf("Release returned with the link down: %v", err)
	default:
	}
	px.Restore()
	select {
	case err := <-res:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Release did not finish after the link came back")
	}
	if c := children(t, connect(t), p); len(c) != 0 {
		t.Fatalf("children after release: %v", c)
	}
}

// cutAfterCreate is a dialer whose connections, once armed, close right
// after sending a create request: the server gets and executes it, the
// client never hears back.
type cutAfterCreate struct {
	armed atomic.Bool
	cuts  atomic.Int32
}

func (d *cutAfterCreate) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &cutConn{Conn: c, d: d}, nil
}

type cutConn struct {
	net.Conn
	d *cutAfterCreate
}

// ZooKeeper's create opcodes: create, and create2 (answered with the
// node's Stat), which the lock core sends.
const (
	opCreateCode  = 1
	opCreate2Code = 15
)

// isCreate reports whether packet b (length, xid, opcode) is a create.
func isCreate(b []byte) bool {
	if len(b) < 12 {
		return false
	}
	op := int32(binary.BigEndian.Uint32(b[8:12]))
	return op == opCreateCode || op == opCreate2Code
}

func (c *cutConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	// One packet per Write: length, xid, opcode.
	if err == nil && isCreate(b) && c.d.armed.CompareAndSwap(true, false) {
		c.d.cuts.Add(1)
		c.Conn.Close()
	}
	return n, err
}

func TestConnectionCutDuringCreate(t *testing.T) {
	var d cutAfterCreate
	ctx := tctx(t, 30*time.Second)
	p := lockPath(t)
	s := connect(t, WithDialer(d.dial))
	if err := NewLock(s, p).makeParents(ctx); err != nil {
		t.Fatal(err)
	}
	other := connect(t)
	for round := range 3 {
		d.armed.Store(true)
		l := NewLock(s, p)
		if err := l.Acquire(ctx); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if d.cuts.Load() != int32(round+1) {
			t.Fatalf("round %d: the create was not cut (%d cuts)", round, d.cuts.Load())
		}
		c := children(t, other, p)
		if len(c) != 1 || c[0] != l.Node() {
			t.Fatalf("round %d: children %v, want exactly the own node %s", round, c, l.Node())
		}
		_, st, err := other.conn.Get(s.Abs(p) + "/" + l.Node())
		if err != nil || st.EphemeralOwner != s.ID() {
			t.Fatalf("round %d: own node owner: %v %v", round, st, err)
		}
		// The create's answer was lost: the token is still the node's.
		if l.FencingToken() != st.Czxid {
			t.Fatalf("round %d: token %d, the node's czxid %d", round, l.FencingToken(), st.Czxid)
		}
		// The lock still works: a contender waits, then gets it.
		w := NewLock(other, p)
		got := make(chan error, 1)
		go func() { got <- w.Acquire(ctx) }()
		eventually(t, 5*time.Second, "contender queued", func() bool { return len(children(t, other, p)) == 2 })
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		if err := w.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCancelDuringCutCreate: the caller gives up while the create's
// outcome is unknown; the node it made must not stay behind.
func TestCancelDuringCutCreate(t *testing.T) {
	px := newTestProxy(t)
	ctx := tctx(t, 30*time.Second)
	p := lockPath(t)
	s := connectVia(t, ctx, px, WithSessionTimeout(4*time.Second))
	l := NewLock(s, p)
	if err := l.makeParents(ctx); err != nil {
		t.Fatal(err)
	}
	px.Cut()
	waitState(t, s, SessionSuspended, 3*time.Second)
	actx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if err := l.Acquire(actx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire with the link down: %v", err)
	}
	px.Restore()
	waitState(t, s, SessionConnected, 5*time.Second)
	other := connect(t)
	// Whatever the queued create did, nothing of ours stays. A session's
	// requests are served in order: once a request sent now is answered,
	// a create queued while the link was down has been served too, and a
	// node it made is the reaper's to delete.
	if _, err := s.conn.Sync("/"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "no node of the cancelled create", func() bool { return len(children(t, other, p)) == 0 })
}

// TestReleaseWhileCutSessionEnds: Release with the link down and never
// back succeeds once the session has (presumably) ended: the ephemeral
// node goes with it.
func TestReleaseWhileCutSessionEnds(t *testing.T) {
	px := newTestProxy(t)
	ctx := tctx(t, 20*time.Second)
	p := lockPath(t)
	hs := connectVia(t, ctx, px, WithSessionTimeout(time.Second))
	holder := NewLock(hs, p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	px.Cut()
	eventually(t, 5*time.Second, "suspended", func() bool { return holder.State() == ordering.LockSuspended })
	start := time.Now()
	if err := holder.Release(ctx); err != nil {
		t.Fatalf("Release with the link down: %v", err)
	}
	t.Logf("Release returned after %v (session timeout 1 s)", time.Since(start))
	other := connect(t)
	eventually(t, 5*time.Second, "the node gone with the session", func() bool { return len(children(t, other, p)) == 0 })
}

// silencer is a dialer whose connections, once silenced, drop every byte
// both ways while staying open: a link that has gone quiet rather than
// broken, which go-zookeeper notices only two thirds of a timeout later.
type silencer struct{ on atomic.Bool }

func (s *silencer) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &silentConn{Conn: c, s: s}, nil
}

type silentConn struct {
	net.Conn
	s *silencer
}

func (c *silentConn) Write(b []byte) (int, error) {
	if c.s.on.Load() {
		return len(b), nil
	}
	return c.Conn.Write(b)
}

func (c *silentConn) Read(b []byte) (int, error) {
	for {
		n, err := c.Conn.Read(b)
		if err != nil || !c.s.on.Load() {
			return n, err
		}
	}
}

// TestHolderSilentLink: the holder's link goes quiet. The holder must stop
// believing before the server expires its session and lets the waiter in.
func TestHolderSilentLink(t *testing.T) {
	var sil silencer
	ctx := tctx(t, 30*time.Second)
	p := lockPath(t)
	hs := connect(t, WithDialer(sil.dial), WithSessionTimeout(time.Second))
	holder := NewLock(hs, p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	ws := connect(t)
	waiter := NewLock(ws, p)
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(ctx) }()
	eventually(t, 5*time.Second, "waiter queued", func() bool { return len(children(t, ws, p)) == 2 })
	var lostAt, heldAt time.Duration
	start := time.Now()
	sil.on.Store(true)
	done := make(chan struct{})
	go func() {
		<-holder.Done()
		lostAt = time.Since(start)
		close(done)
	}()
	select {
	case err := <-got:
		heldAt = time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("waiter never held")
	}
	waitClosed(t, done, 5*time.Second, "holder's Done")
	t.Logf("silent link: holder lost after %v, waiter held after %v (timeout 1 s)", lostAt, heldAt)
	if lostAt >= heldAt {
		t.Fatalf("the holder still believed it held when the waiter got the lock")
	}
	sil.on.Store(false)
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// waitOwnWatch waits until the server lists the watch l's holder sets on
// its own node (armed ownWatchDelay after it holds), through the server's
// own watch list.
func waitOwnWatch(t testing.TB, ctx context.Context, s *Session, l *Lock) {
	t.Helper()
	own := s.Abs(l.Path()) + "/" + l.Node()
	eventually(t, 10*time.Second, "the holder's watch on its own node", func() bool {
		out, err := fourletter.Ask(ctx, testServers(t)[0], "wchc")
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(fourletter.ParseWchc(out)[s.ID()], own)
	})
}
