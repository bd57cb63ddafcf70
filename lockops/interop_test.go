//go:build peers

package lockops

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"zklock/sandbox/peers"
)

// ourLoop takes the lock n times, recording each critical section.
func ourLoop(ctx context.Context, l *Lock, n int, hold time.Duration, who string, add func(peers.Interval, string)) error {
	for range n {
		if err := l.Acquire(ctx); err != nil {
			return err
		}
		start := time.Now()
		time.Sleep(hold)
		end := time.Now()
		add(peers.Interval{Who: who, Start: start, End: end}, l.Node())
		if err := l.Release(ctx); err != nil {
			return err
		}
	}
	return nil
}

// TestInteropWithRealClients: a real Curator InterProcessMutex contends
// with this Lock on one path, a real Kazoo Lock on another. No two
// critical sections overlap, both sides get the lock, the lock goes in
// sequence order, and our nodes take the style of the queue.
func TestInteropWithRealClients(t *testing.T) {
	for _, kind := range []string{"curator", "kazoo"} {
		t.Run(kind, func(t *testing.T) {
			ctx := tctx(t, 60*time.Second)
			p := lockPath(t)
			peer := peers.StartT(t, peers.Kind(kind), strings.Join(testServers(t), ","), 10*time.Second)
			var (
				mu    sync.Mutex
				spans []peers.Interval
				nodes = map[time.Time]string{} // start -> node
			)
			add := func(iv peers.Interval, node string) {
				mu.Lock()
				spans = append(spans, iv)
				nodes[iv.Start] = node
				mu.Unlock()
			}
			// The peer starts first so that the queue has its style.
			if _, ok, err := peer.Acquire(ctx, p, "mutex", 10*time.Second); err != nil || !ok {
				t.Fatalf("peer acquire: %v %v", ok, err)
			}
			if err := peer.Release(ctx, p); err != nil {
				t.Fatal(err)
			}
			const cycles = 40
			var wg sync.WaitGroup
			var peerErr error
			wg.Add(1)
			go func() {
				defer wg.Done()
				peerErr = peer.Loop(ctx, peers.LoopRequest{Path: p, Kind: "mutex", Cycles: cycles, HoldMS: 2}, func(c peers.Cycle) {
					add(peers.Interval{Who: kind, Start: c.Acq, End: c.Rel}, c.Node)
				})
			}()
			var ourErr error
			ours := make([]*Lock, 2)
			for i := range ours {
				ours[i] = NewLock(connect(t), p)
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := ourLoop(ctx, ours[i], cycles, 2*time.Millisecond, "zklock", add); err != nil {
						ourErr = err
					}
				}()
			}
			wg.Wait()
			if peerErr != nil || ourErr != nil {
				t.Fatalf("peer: %v, ours: %v", peerErr, ourErr)
			}
			if ov := peers.Overlaps(spans); len(ov) > 0 {
				t.Fatalf("%d overlapping critical sections, first: %+v", len(ov), ov[0])
			}
			count := map[string]int{}
			for _, s := range spans {
				count[s.Who]++
			}
			if count[kind] != cycles || count["zklock"] != 2*cycles {
				t.Fatalf("acquisitions %v, want %d %s and %d zklock", count, cycles, kind, 2*cycles)
			}
			sort.Slice(spans, func(i, j int) bool { return spans[i].Start.Before(spans[j].Start) })
			var seqs []int32
			for _, s := range spans {
				n, ok := ParseName(nodes[s.Start])
				if !ok {
					t.Fatalf("unparsable node %q", nodes[s.Start])
				}
				if s.Who == "zklock" {
					want := RecipeCurator
					if kind == "kazoo" {
						want = RecipeKazoo
					}
					if n.Recipe != want {
						t.Fatalf("our node %q in a %s queue", n.Name, kind)
					}
				}
				seqs = append(seqs, n.Seq)
			}
			if !slices.IsSortedFunc(seqs, func(a, b int32) int {
				if SeqLess(a, b) {
					return -1
				}
				return 1
			}) {
				t.Fatalf("acquisitions not in sequence order: %v", seqs)
			}
		})
	}
}

// TestStockCuratorAndKazooSplit: stock Curator and stock Kazoo on one
// path both hold at once (they cannot see each other's nodes), and this
// Lock refuses to join that queue unless told to.
func TestStockCuratorAndKazooSplit(t *testing.T) {
	ctx := tctx(t, 60*time.Second)
	p := lockPath(t)
	cs := strings.Join(testServers(t), ",")
	cur := peers.StartT(t, peers.Kind("curator"), cs, 10*time.Second)
	kaz := peers.StartT(t, peers.Kind("kazoo"), cs, 10*time.Second)
	cn, ok, err := cur.Acquire(ctx, p, "mutex", 10*time.Second)
	if err != nil || !ok {
		t.Fatalf("curator: %v %v", ok, err)
	}
	kn, ok, err := kaz.Acquire(ctx, p, "mutex", 5*time.Second)
	if err != nil || !ok {
		t.Fatalf("kazoo did not get the lock Curator holds (%v %v): the split this test shows did not happen", ok, err)
	}
	t.Logf("both hold at once: curator %s, kazoo %s", cn, kn)
	s := connect(t)
	_, err = NewLock(s, p).TryAcquire(ctx)
	if !errors.Is(err, ErrMixedRecipes) {
		t.Fatalf("joining a split queue: %v, want ErrMixedRecipes", err)
	}
	t.Logf("refusal: %v", err)
	if c := children(t, s, p); len(c) != 2 {
		t.Fatalf("children after the refusal: %v", c)
	}
	if ok, err := NewLock(s, p, WithAllowMixed()).TryAcquire(ctx); ok || err != nil {
		t.Fatalf("WithAllowMixed: %v %v, want queued behind (by sequence), not refused", ok, err)
	}
	if err := cur.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := kaz.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
}
