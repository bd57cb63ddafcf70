package lockops

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox/peers"
)

var latchName = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-latch-\d{10}$`)

// TestLatchWithCuratorParticipants: zklock joins a Curator LeaderLatch
// election as a participant ("-latch-" names, so LeaderLatch orders it
// among its own), with WithLatch on an empty parent and by itself on a
// parent of latch nodes, and leads exactly when no stock participant
// does: the leadership intervals of all never overlap, and leadership
// passes in the order of joining.
func TestLatchWithCuratorParticipants(t *testing.T) {
	ctx := tctx(t, 90*time.Second)
	peer := peers.StartT(t, peers.Curator, peers.Options{Servers: testServers(t), Sessions: 2})
	s0 := connect(t)
	p := lockPath(t)
	var ivs []peers.Interval
	leads := func(h *peers.Hold) {
		t.Helper()
		if err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	follows := func(what string, hs ...*peers.Hold) {
		t.Helper()
		for _, h := range hs {
			if h.Held() {
				t.Fatalf("%s: Curator participant %s leads too", what, h.ID())
			}
		}
	}

	// zklock first, on an empty parent: WithLatch.
	z1 := NewLock(connect(t), p, WithLatch(), WithData([]byte("zklock-1")))
	if err := z1.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if !latchName.MatchString(z1.Node()) {
		t.Fatalf("node %q is not a latch participant's", z1.Node())
	}
	z1Start := time.Now()
	c1, err := peer.Request(0, p, peers.Latch)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the Curator participant's node", func() bool { return len(children(t, s0, p)) == 2 })
	// zklock joins behind it, by itself as a latch participant.
	z2 := NewLock(connect(t), p)
	z2Done := make(chan error, 1)
	go func() { z2Done <- z2.Acquire(ctx) }()
	eventually(t, 20*time.Second, "zklock's second participant", func() bool { return len(children(t, s0, p)) == 3 })
	c2, err := peer.Request(1, p, peers.Latch)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "four participants", func() bool { return len(children(t, s0, p)) == 4 })
	follows("while zklock leads", c1, c2)

	ivs = append(ivs, peers.Interval{Who: "zklock-1", Start: z1Start, End: time.Now()})
	if err := z1.Release(ctx); err != nil {
		t.Fatal(err)
	}
	leads(c1)
	select {
	case err := <-z2Done:
		t.Fatalf("zklock leads while Curator does (%v)", err)
	default:
	}
	follows("while c1 leads", c2)
	if err := c1.Release(ctx); err != nil {
		t.Fatal(err)
	}
	ivs = append(ivs, c1.Interval("curator-1"))
	if err := recvWithin(t, z2Done, 20*time.Second, "zklock's participant to lead"); err != nil {
		t.Fatal(err)
	}
	z2Start := time.Now()
	if !latchName.MatchString(z2.Node()) {
		t.Fatalf("node %q joined a latch parent without a latch name", z2.Node())
	}
	follows("while zklock-2 leads", c2)
	ivs = append(ivs, peers.Interval{Who: "zklock-2", Start: z2Start, End: time.Now()})
	if err := z2.Release(ctx); err != nil {
		t.Fatal(err)
	}
	leads(c2)
	if err := c2.Release(ctx); err != nil {
		t.Fatal(err)
	}
	ivs = append(ivs, c2.Interval("curator-2"))
	if ov := peers.Overlaps(ivs); len(ov) > 0 {
		t.Fatalf("two leaders at once: %v and %v", ov[0][0], ov[0][1])
	}

	// A waiting participant that gives up leaves no node.
	z3 := NewLock(connect(t), p, WithLatch())
	if err := z3.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := NewLock(connect(t), p, WithLatch()).Acquire(qctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a participant that gives up: %v", err)
	}
	if k := children(t, s0, p); len(k) != 1 || k[0] != z3.Node() {
		t.Fatalf("participants %v, want only the leader %s", k, z3.Node())
	}
	if err := z3.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestLatchRefusals: WithLatch on a mutex queue mixes recipes; a latch is
// a Curator mutex node.
func TestLatchRefusals(t *testing.T) {
	ctx := tctx(t, 20*time.Second)
	p := lockPath(t)
	holder := NewLock(connect(t), p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	err := NewLock(connect(t), p, WithLatch()).Acquire(ctx)
	if !errors.Is(err, ordering.ErrMixedRecipes) {
		t.Fatalf("a latch participant on a mutex queue: %v, want ErrMixedRecipes", err)
	}
	t.Log(err)
	if k := children(t, connect(t), p); len(k) != 1 {
		t.Fatalf("queue %v after the refusal", k)
	}
	for _, opts := range [][]Option{{WithLatch(), WithKind(ordering.KindRead)}, {WithLatch(), WithStyle(ordering.StyleKazoo)}} {
		if err := NewLock(connect(t), p+"-x", opts...).Acquire(ctx); err == nil {
			t.Errorf("latch with %d options accepted", len(opts))
		}
	}
}
