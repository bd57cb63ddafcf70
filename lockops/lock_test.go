package lockops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/third_party/zk"
)

// connect opens a Session on the shared test server, closed at cleanup.
func connect(t testing.TB, opts ...SessionOption) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Connect(ctx, testServers(t), append([]SessionOption{WithSessionTimeout(4 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// connectVia opens a Session through the proxy px (a link a test cuts
// and restores), closed at cleanup.
func connectVia(t testing.TB, ctx context.Context, px *sandbox.Proxy, opts ...SessionOption) *Session {
	t.Helper()
	s, err := Connect(ctx, []string{px.Addr()}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func tctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// children lists a lock parent's children (server path).
//
// It syncs first: on an ensemble, s may be on a follower that has not yet
// applied a write another session has already had answered (a test that
// checks the release of one session through another saw the deleted node).
func children(t testing.TB, s *Session, p string) []string {
	t.Helper()
	if _, err := s.conn.Sync("/"); err != nil {
		t.Fatalf("sync before listing %s: %v", p, err)
	}
	c, _, err := s.conn.Children(s.Abs(p))
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("children %s: %v", p, err)
	}
	return c
}

// eventually polls cond until it holds or d passes.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// recvWithin is the next value from ch, failing the test unless one comes
// within d.
func recvWithin[T any](t testing.TB, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("timed out after %v waiting for %s", d, what)
		panic("unreachable")
	}
}

// waitClosed fails unless ch closes within d.
func waitClosed(t testing.TB, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("timed out after %v waiting for %s", d, what)
	}
}

func lockPath(t testing.TB) string {
	return "/lockops-test/" + strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + fmt.Sprintf("-%d", time.Now().UnixNano())
}

func TestUncontendedAcquireRelease(t *testing.T) {
	s := connect(t)
	p := lockPath(t)
	var states []ordering.LockState
	var mu sync.Mutex
	l := NewLock(s, p, WithNote("test"), WithProgress(func(pr ordering.Progress) {
		mu.Lock()
		states = append(states, pr.State)
		mu.Unlock()
	}))
	ctx := tctx(t, 10*time.Second)
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	n, ok := ordering.ParseName(l.Node())
	if !ok || n.Recipe != ordering.RecipeCurator || n.Kind != ordering.KindMutex {
		t.Fatalf("own node %q: want a Curator mutex name (%+v)", l.Node(), n)
	}
	data, st, err := s.conn.Get(s.Abs(p) + "/" + l.Node())
	if err != nil {
		t.Fatal(err)
	}
	if st.EphemeralOwner != s.ID() {
		t.Errorf("owner 0x%x, want 0x%x", st.EphemeralOwner, s.ID())
	}
	if !strings.Contains(string(data), " pid ") || !strings.HasSuffix(string(data), " test") {
		t.Errorf("data %q: want user@host pid N test", data)
	}
	if err := l.Acquire(ctx); !errors.Is(err, ErrInUse) {
		t.Errorf("second Acquire: %v, want ErrInUse", err)
	}
	done := l.Done()
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, done, time.Second, "Done after release")
	if l.Err() != nil {
		t.Errorf("Err after clean release: %v", l.Err())
	}
	if c := children(t, s, p); len(c) != 0 {
		t.Errorf("children after release: %v", c)
	}
	if err := l.Release(ctx); !errors.Is(err, ErrNotHeld) {
		t.Errorf("second Release: %v, want ErrNotHeld", err)
	}
	// Reusable.
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []ordering.LockState{ordering.LockHolding, ordering.LockReleased, ordering.LockHolding, ordering.LockReleased}
	if !slices.Equal(states, want) {
		t.Errorf("progress %v, want %v", states, want)
	}
}

func TestChrootAndKinds(t *testing.T) {
	base := lockPath(t)
	s := connect(t, WithChroot(base))
	ctx := tctx(t, 10*time.Second)
	r1 := NewLock(s, "/rw", WithKind(ordering.KindRead))
	r2 := NewLock(s, "/rw", WithKind(ordering.KindRead))
	w := NewLock(s, "/rw", WithKind(ordering.KindWrite))
	for _, l := range []*Lock{r1, r2} {
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := ordering.ParseName(r1.Node()); n.Kind != ordering.KindRead {
		t.Errorf("read node %q parsed as %v", r1.Node(), n.Kind)
	}
	if ok, err := w.TryAcquire(ctx); ok || err != nil {
		t.Fatalf("writer TryAcquire with readers holding: %v %v", ok, err)
	}
	got := make(chan error, 1)
	go func() { got <- w.Acquire(ctx) }()
	eventually(t, 5*time.Second, "writer queued", func() bool { return len(children(t, s, "/rw")) == 3 })
	if _, _, err := s.conn.Get(base + "/rw"); err != nil {
		t.Errorf("chroot not applied: %v", err)
	}
	if err := r1.Release(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		t.Fatalf("writer acquired while a reader holds: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := r2.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if n, _ := ordering.ParseName(w.Node()); n.Kind != ordering.KindWrite {
		t.Errorf("write node %q parsed as %v", w.Node(), n.Kind)
	}
	if err := w.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCancelWhileWaitingLeavesNoNode(t *testing.T) {
	s1, s2 := connect(t), connect(t)
	p := lockPath(t)
	ctx := tctx(t, 10*time.Second)
	holder := NewLock(s1, p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	var queued atomic.Bool
	waiter := NewLock(s2, p, WithProgress(func(pr ordering.Progress) {
		if pr.State == ordering.LockQueued && pr.Watching == holder.Node() && pr.Position == 2 {
			queued.Store(true)
		}
	}))
	res := make(chan error, 1)
	go func() { res <- waiter.Acquire(wctx) }()
	eventually(t, 5*time.Second, "waiter queued behind the holder", queued.Load)
	cancel()
	err := <-res
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire after cancel: %v, want context.Canceled", err)
	}
	if c := children(t, s1, p); len(c) != 1 || c[0] != holder.Node() {
		t.Fatalf("children after cancel: %v, want only the holder %s", c, holder.Node())
	}
	if ok, err := waiter.TryAcquire(ctx); ok || err != nil {
		t.Fatalf("TryAcquire while held: %v %v", ok, err)
	}
	if c := children(t, s1, p); len(c) != 1 {
		t.Fatalf("children after failed TryAcquire: %v", c)
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := waiter.TryAcquire(ctx); !ok || err != nil {
		t.Fatalf("TryAcquire when free: %v %v", ok, err)
	}
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestExclusionAndFIFO: 10 contenders in their own sessions, 200
// acquisitions in all. An atomic counter inside the critical section and
// the recorded intervals find no two holders; acquisitions happen in the
// order of the node sequences.
func TestExclusionAndFIFO(t *testing.T) {
	const contenders, per = 10, 20
	p := lockPath(t)
	ctx := tctx(t, 60*time.Second)
	type interval struct {
		who        int
		seq        int32
		start, end time.Time
	}
	var (
		inside  atomic.Int32
		overlap atomic.Int32
		mu      sync.Mutex
		order   []interval
	)
	var wg sync.WaitGroup
	errs := make(chan error, contenders)
	var locks []*Lock
	for i := range contenders {
		s := connect(t)
		l := NewLock(s, p)
		locks = append(locks, l)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				if err := l.Acquire(ctx); err != nil {
					errs <- err
					return
				}
				start := time.Now()
				if inside.Add(1) != 1 {
					overlap.Add(1)
				}
				time.Sleep(200 * time.Microsecond)
				inside.Add(-1)
				end := time.Now()
				n, _ := ordering.ParseName(l.Node())
				mu.Lock()
				order = append(order, interval{i, n.Seq, start, end})
				mu.Unlock()
				if err := l.Release(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if overlap.Load() != 0 {
		t.Fatalf("%d acquisitions found another holder inside", overlap.Load())
	}
	if len(order) != contenders*per {
		t.Fatalf("%d acquisitions, want %d", len(order), contenders*per)
	}
	var shortcuts int64
	for _, l := range locks {
		shortcuts += l.shortcuts.Load()
	}
	t.Logf("%d of %d holds by the shortcut (no listing after the predecessor went)", shortcuts, contenders*per)
	if shortcuts == 0 {
		t.Errorf("no hold took the shortcut: the test did not exercise it")
	}
	for k := 1; k < len(order); k++ {
		if order[k].start.Before(order[k-1].end) {
			t.Fatalf("intervals overlap: %+v and %+v", order[k-1], order[k])
		}
		// Nodes are queued together (each contender re-queues right after
		// releasing), so the lock goes in sequence order.
		if !ordering.SeqLess(order[k-1].seq, order[k].seq) {
			t.Fatalf("acquisition %d has sequence %d after %d: not FIFO", k, order[k].seq, order[k-1].seq)
		}
	}
}

func TestKazooStyleAndMixedRefusal(t *testing.T) {
	s, other := connect(t), connect(t)
	ctx := tctx(t, 10*time.Second)
	acl := zk.WorldACL(zk.PermAll)

	// A queue of Kazoo nodes: join in Kazoo style.
	kp := lockPath(t) + "-kazoo"
	if err := NewLock(other, kp).makeParents(ctx); err != nil {
		t.Fatal(err)
	}
	kazooNode, err := other.conn.Create(other.Abs(kp)+"/0123456789abcdef0123456789abcdef__lock__", nil, zk.FlagEphemeral|zk.FlagSequence, acl)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLock(s, kp)
	got := make(chan error, 1)
	go func() { got <- l.Acquire(ctx) }()
	// The node is on the server a moment before its create's reply names
	// it to the Lock: wait for both.
	eventually(t, 5*time.Second, "queued", func() bool { return len(children(t, s, kp)) == 2 && l.Node() != "" })
	if n, _ := ordering.ParseName(l.Node()); n.Recipe != ordering.RecipeKazoo {
		t.Fatalf("own node %q in a Kazoo queue: want Kazoo style", l.Node())
	}
	if err := other.conn.Delete(kazooNode, -1); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// A queue of Curator and Kazoo nodes: refuse, unless allowed.
	mp := lockPath(t) + "-mixed"
	if err := NewLock(other, mp).makeParents(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"_c_0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b-lock-", "0123456789abcdef0123456789abcdef__lock__"} {
		if _, err := other.conn.Create(other.Abs(mp)+"/"+n, nil, zk.FlagEphemeral|zk.FlagSequence, acl); err != nil {
			t.Fatal(err)
		}
	}
	for _, hinted := range []bool{false, true} {
		ml := NewLock(s, mp)
		if hinted {
			s.setJoinHint(s.Abs(mp), joinAs{style: ordering.StyleCurator}) // the refusal after the create
		}
		err := ml.Acquire(ctx)
		if !errors.Is(err, ordering.ErrMixedRecipes) {
			t.Fatalf("hinted=%v: Acquire on a mixed queue: %v, want ErrMixedRecipes", hinted, err)
		}
		if c := children(t, s, mp); len(c) != 2 {
			t.Fatalf("hinted=%v: children after refusal: %v", hinted, c)
		}
	}
	if ok, err := NewLock(s, mp, WithAllowMixed()).TryAcquire(ctx); ok || err != nil {
		t.Fatalf("TryAcquire WithAllowMixed: %v %v (want queued behind, not refused)", ok, err)
	}
	// A forced style against the queue's is refused too.
	if err := NewLock(s, kp, WithStyle(ordering.StyleCurator)).makeParents(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := other.conn.Create(other.Abs(kp)+"/0123456789abcdef0123456789abcdef__lock__", nil, zk.FlagEphemeral|zk.FlagSequence, acl); err != nil {
		t.Fatal(err)
	}
	if _, err := NewLock(s, kp, WithStyle(ordering.StyleCurator)).TryAcquire(ctx); !errors.Is(err, ordering.ErrMixedRecipes) {
		t.Fatalf("forced Curator style on a Kazoo queue: %v, want ErrMixedRecipes", err)
	}
}

func TestForceReleaseAndRevoke(t *testing.T) {
	s1, s2, op := connect(t), connect(t), connect(t)
	p := lockPath(t)
	ctx := tctx(t, 20*time.Second)
	holder := NewLock(s1, p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	node := p + "/" + holder.Node()
	waiter := NewLock(s2, p)
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(ctx) }()
	eventually(t, 5*time.Second, "waiter queued", func() bool { return len(children(t, op, p)) == 2 })

	if err := ForceRelease(ctx, op, node, s2.ID()); !errors.Is(err, ErrOwnerChanged) {
		t.Fatalf("ForceRelease with the wrong owner: %v, want ErrOwnerChanged", err)
	}
	if ok, _, _ := op.conn.Exists(op.Abs(node)); !ok {
		t.Fatal("node deleted by a refused ForceRelease")
	}
	if err := ForceRelease(ctx, op, p, s1.ID()); !errors.Is(err, ErrNotLockNode) {
		t.Fatalf("ForceRelease of the parent: %v, want ErrNotLockNode", err)
	}
	if err := ForceRelease(ctx, op, node, s1.ID()); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, holder.Done(), 5*time.Second, "holder's Done after ForceRelease")
	if !errors.Is(holder.Err(), ErrLost) || !errors.Is(holder.Err(), ErrNodeDeleted) {
		t.Errorf("holder Err: %v", holder.Err())
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if err := ForceRelease(ctx, op, node, s1.ID()); !errors.Is(err, ErrNoNode) {
		t.Fatalf("ForceRelease of a gone node: %v, want ErrNoNode", err)
	}
	if err := holder.Release(ctx); err != nil {
		t.Errorf("Release of a lost lock: %v", err)
	}
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// Revoke: a revocable holder lets go, the next waiter holds.
	rh := NewLock(s1, p, WithRevocable())
	if err := rh.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	go func() { got <- waiter.Acquire(ctx) }()
	eventually(t, 5*time.Second, "waiter queued", func() bool { return len(children(t, op, p)) == 2 })
	if err := Revoke(ctx, op, p+"/"+rh.Node()); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, rh.Done(), 5*time.Second, "revoked holder's Done")
	if !errors.Is(rh.Err(), ErrRevoked) {
		t.Errorf("revoked Err: %v", rh.Err())
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestShortcutNotFooledByOwnDeletion: a waiter directly behind the holder
// holds on the holder's deletion without listing again, unless its own
// node went first. One transaction deletes the waiter's node, then the
// holder's: both events reach the waiter back to back, in that order, and
// it must not hold.
func TestShortcutNotFooledByOwnDeletion(t *testing.T) {
	op, ws := connect(t), connect(t)
	p := lockPath(t)
	ctx := tctx(t, 30*time.Second)
	if err := NewLock(op, p).makeParents(ctx); err != nil {
		t.Fatal(err)
	}
	for round := range 10 {
		h, err := op.conn.Create(op.Abs(p)+"/_c_0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b-lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatal(err)
		}
		var armed atomic.Bool
		w := NewLock(ws, p, WithProgress(func(pr ordering.Progress) {
			if pr.State == ordering.LockQueued && pr.Position == 2 {
				armed.Store(true)
			}
		}))
		got := make(chan error, 1)
		go func() { got <- w.Acquire(ctx) }()
		eventually(t, 5*time.Second, "waiter queued behind the holder", armed.Load)
		if _, err := op.conn.Multi(
			&zk.DeleteRequest{Path: op.Abs(p) + "/" + w.Node(), Version: -1},
			&zk.DeleteRequest{Path: h, Version: -1},
		); err != nil {
			t.Fatal(err)
		}
		if err := <-got; !errors.Is(err, ErrNodeDeleted) {
			t.Fatalf("round %d: waiter whose node was deleted before its predecessor: %v, want ErrNodeDeleted", round, err)
		}
	}
}

// TestThirdInLineListsOnce: a waiter that joined third (holder, then one
// waiter, then it) learns from the holder's deletion alone that its
// predecessor now holds, arms its own-node watch instead of listing again,
// and takes the lock on its predecessor's deletion. Then the same with the
// own node force-deleted just before the predecessor: it must not hold.
func TestThirdInLineListsOnce(t *testing.T) {
	op := connect(t)
	p := lockPath(t)
	ctx := tctx(t, 30*time.Second)
	for _, forced := range []bool{false, true} {
		a := NewLock(connect(t), p)
		if err := a.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		queuedB := make(chan struct{})
		var once sync.Once
		b := NewLock(connect(t), p, WithProgress(func(pr ordering.Progress) {
			if pr.State == ordering.LockQueued && pr.Position == 2 {
				once.Do(func() { close(queuedB) })
			}
		}))
		gotB := make(chan error, 1)
		go func() { gotB <- b.Acquire(ctx) }()
		waitClosed(t, queuedB, 5*time.Second, "second client queued")
		positions := make(chan int, 4)
		c := NewLock(connect(t), p, WithProgress(func(pr ordering.Progress) {
			if pr.State == ordering.LockQueued {
				positions <- pr.Position
			}
		}))
		gotC := make(chan error, 1)
		go func() { gotC <- c.Acquire(ctx) }()
		if pos := recvWithin(t, positions, 5*time.Second, "third client queued"); pos != 3 {
			t.Fatalf("third client queued at %d", pos)
		}
		if err := a.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-gotB; err != nil {
			t.Fatal(err)
		}
		if pos := recvWithin(t, positions, 5*time.Second, "third client moved up"); pos != 2 {
			t.Fatalf("after the holder went, third client at %d, want 2", pos)
		}
		if n := c.ppSkips.Load(); n != 1 {
			t.Fatalf("forced=%v: the waiter listed again after its PP (the head) went: ppSkips %d", forced, n)
		}
		if !forced {
			if err := b.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-gotC; err != nil {
				t.Fatal(err)
			}
			if n := c.shortcuts.Load(); n != 1 {
				t.Errorf("third client held without the shortcut (%d)", n)
			}
			if err := c.Release(ctx); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := op.conn.Multi(
			&zk.DeleteRequest{Path: op.Abs(p) + "/" + c.Node(), Version: -1},
			&zk.DeleteRequest{Path: op.Abs(p) + "/" + b.Node(), Version: -1},
		); err != nil {
			t.Fatal(err)
		}
		if err := <-gotC; !errors.Is(err, ErrNodeDeleted) {
			t.Fatalf("waiter whose node was deleted before its predecessor: %v, want ErrNodeDeleted", err)
		}
	}
}

// TestWaitTurnChecksOwnBeforeShortcut drives waitTurn with both events
// already delivered (own node deleted, then the predecessor), the case
// the select may take in either order: it must never hold.
func TestWaitTurnChecksOwnBeforeShortcut(t *testing.T) {
	s := connect(t)
	l := NewLock(s, "/unused")
	c := created{node: "own", abs: "/unused/own", gen: s.Generation()}
	for range 200 {
		pch, och := make(chan zk.Event, 1), make(chan zk.Event, 1)
		och <- zk.Event{Type: zk.EventNodeDeleted, Path: "/unused/own"}
		pch <- zk.Event{Type: zk.EventNodeDeleted, Path: "/unused/p"}
		w := turn{p: watch{name: "p", ch: pch}, own: watch{name: "own", ch: och}, pHead: true}
		held, _, err := l.waiter().waitTurn(context.Background(), c, &w)
		if held || err != nil {
			t.Fatalf("waitTurn with the own node gone first: held=%v err=%v", held, err)
		}
	}
}

// TestCuratorFamilies: Curator's mutex and read/write locks cannot see
// each other's names. A mutex joining a read/write queue is named as a
// write lock, a write lock joining a mutex queue as a mutex; a read lock
// cannot join a mutex queue.
func TestCuratorFamilies(t *testing.T) {
	s, other := connect(t), connect(t)
	ctx := tctx(t, 20*time.Second)
	acl := zk.WorldACL(zk.PermAll)
	cases := []struct {
		name    string
		present string // a node of another client, created first
		kind    ordering.Kind
		want    ordering.Kind // how ParseName reads our node; KindOther: refused
	}{
		{"mutex-in-rw", "_c_0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b-__READ__", ordering.KindMutex, ordering.KindWrite},
		{"write-in-mutex", "_c_0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b-lock-", ordering.KindWrite, ordering.KindMutex},
		{"read-in-mutex", "_c_0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b-lock-", ordering.KindRead, ordering.KindOther},
		{"read-in-rw", "_c_0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b-__WRIT__", ordering.KindRead, ordering.KindRead},
	}
	for _, tc := range cases {
		p := lockPath(t) + "-" + tc.name
		if err := NewLock(other, p).makeParents(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := other.conn.Create(other.Abs(p)+"/"+tc.present, nil, zk.FlagEphemeral|zk.FlagSequence, acl); err != nil {
			t.Fatal(err)
		}
		l := NewLock(s, p, WithKind(tc.kind))
		ok, err := l.TryAcquire(ctx)
		if tc.want == ordering.KindOther {
			if !errors.Is(err, ordering.ErrMixedRecipes) {
				t.Errorf("%s: %v %v, want ErrMixedRecipes", tc.name, ok, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		n, _ := ordering.ParseName(l.Node())
		if n.Kind != tc.want || n.Recipe != ordering.RecipeCurator {
			t.Errorf("%s: our node %q is a %s %s, want curator %s", tc.name, l.Node(), n.Recipe, n.Kind, tc.want)
		}
		if ok {
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if c := children(t, s, p); len(c) != 1 {
			t.Errorf("%s: children %v, want only the other client's", tc.name, c)
		}
	}
}

// TestListingRidesWithCreate: the first listing of every acquisition is
// sent as soon as the create is on the wire and shows the own node, so an
// uncontended Acquire costs one round trip, not two, for the same two
// requests. A waiter's first listing comes the same way.
//
// The server's answers come through a proxy 20 ms late: the listing is
// sent by a goroutine woken when the create is written, and on a loaded
// machine that wake can take longer than a loopback round trip (one CI
// run saw 19 of 20); the delay keeps this a test of the pipelining, not
// of the scheduler.
func TestListingRidesWithCreate(t *testing.T) {
	ctx := tctx(t, 30*time.Second)
	px := newTestProxy(t)
	px.SetReplyDelay(20 * time.Millisecond)
	s := connectVia(t, ctx, px)
	p := lockPath(t)
	l := NewLock(s, p)
	const cycles = 20
	for range cycles {
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.pipelined.Load(); n != cycles {
		t.Errorf("%d of %d acquisitions used the listing sent with the create", n, cycles)
	}

	holder := NewLock(connect(t), p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	queued := make(chan ordering.Progress, 4)
	w := NewLock(s, p, WithProgress(func(pr ordering.Progress) {
		if pr.State == ordering.LockQueued {
			queued <- pr
		}
	}))
	got := make(chan error, 1)
	go func() { got <- w.Acquire(ctx) }()
	select {
	case pr := <-queued:
		if pr.Position != 2 || pr.Watching != holder.Node() {
			t.Errorf("waiter queued at %d watching %q, want 2 watching %q", pr.Position, pr.Watching, holder.Node())
		}
	case err := <-got:
		t.Fatalf("waiter returned %v while the holder holds", err)
	case <-ctx.Done():
		t.Fatal("waiter never queued")
	}
	if n := s.pipelined.Load(); n != cycles+1 {
		t.Errorf("waiter's first listing not the pipelined one (%d)", n-cycles)
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if err := w.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
