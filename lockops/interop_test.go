package lockops

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox/peers"
)

// section is one critical section and the node that held it.
type section struct {
	peers.Interval
	node string
}

// sections collects critical sections from many goroutines.
type sections struct {
	mu  sync.Mutex
	all []section
}

func (s *sections) add(iv peers.Interval, node string) {
	s.mu.Lock()
	s.all = append(s.all, section{iv, node})
	s.mu.Unlock()
}

// ourLoop takes the lock n times, holding it for hold each time: by
// Acquire and Release each time, or (rejoin) by Acquire once, then Rejoin,
// and Release at the end.
func ourLoop(ctx context.Context, l *Lock, n int, hold time.Duration, who string, rec *sections, rejoin bool) error {
	if err := l.Acquire(ctx); err != nil {
		return err
	}
	for k := range n {
		start := time.Now()
		node := l.Node()
		time.Sleep(hold) // the critical section's work
		rec.add(peers.Interval{Who: who, Start: start, End: time.Now()}, node)
		if rejoin && k < n-1 {
			if err := l.Rejoin(ctx); err != nil {
				return err
			}
			continue
		}
		if err := l.Release(ctx); err != nil {
			return err
		}
		if k < n-1 {
			if err := l.Acquire(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestInteropWithRealClients: real Curator InterProcessMutex clients
// contend with this Lock on one path, real Kazoo Lock clients on another.
// No two critical sections overlap (peers.Overlaps over every section of
// both sides), both sides get the lock, it goes in sequence order, and our
// nodes take the style of the queue, detected from the peer's node, those
// that Rejoin makes (one of ours loops Rejoin) as those Acquire makes.
func TestInteropWithRealClients(t *testing.T) {
	for _, kind := range []peers.Kind{peers.Curator, peers.Kazoo} {
		t.Run(string(kind), func(t *testing.T) {
			const (
				peerClients, ourClients = 2, 2
				cycles                  = 30 // per client
				hold                    = 2 * time.Millisecond
			)
			ctx := tctx(t, 90*time.Second)
			p := lockPath(t)
			peer := peers.StartT(t, kind, peers.Options{Servers: testServers(t), Sessions: peerClients})
			var rec sections

			// The peer holds first, so that our sessions see its style when
			// they first list the queue (and keep it for the parent, even
			// when the queue is briefly empty between two cycles).
			first, err := peer.Acquire(ctx, 0, p, peers.Mutex)
			if err != nil {
				t.Fatal(err)
			}
			s0 := connect(t)
			var ours []*Lock
			for range ourClients {
				ours = append(ours, NewLock(connect(t), p))
			}
			var wg sync.WaitGroup
			errs := make(chan error, ourClients+1)
			for i, l := range ours {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// One of ours loops Rejoin: its nodes, made by the
					// multi, must be named and ordered as the others.
					if err := ourLoop(ctx, l, cycles, hold, "zklock", &rec, i == 1); err != nil {
						errs <- fmt.Errorf("zklock %d: %w", i, err)
					}
				}()
			}
			eventually(t, 20*time.Second, "our nodes queued behind the peer's", func() bool { return len(children(t, s0, p)) == 1+ourClients })
			if err := first.Release(ctx); err != nil {
				t.Fatal(err)
			}
			rec.add(first.Interval(string(kind)), first.Node())

			var cycleList []peers.Cycle
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				cycleList, err = peer.Loop(ctx, peers.LoopSpec{Path: p, Cycles: cycles, Hold: hold})
				if err != nil {
					errs <- fmt.Errorf("%s loop: %w", kind, err)
				}
			}()
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			for _, c := range cycleList {
				if c.Err != "" || !c.Held {
					t.Fatalf("%s cycle did not hold: %+v", kind, c)
				}
				rec.add(c.Interval(string(kind)), c.Node)
			}

			var ivs []peers.Interval
			count := map[string]int{}
			for _, s := range rec.all {
				ivs = append(ivs, s.Interval)
				count[s.Who]++
			}
			if ov := peers.Overlaps(ivs); len(ov) > 0 {
				t.Fatalf("%d overlapping critical sections, first: %v and %v", len(ov), ov[0][0], ov[0][1])
			}
			if count[string(kind)] != 1+peerClients*cycles || count["zklock"] != ourClients*cycles {
				t.Fatalf("acquisitions %v, want %d %s and %d zklock", count, 1+peerClients*cycles, kind, ourClients*cycles)
			}

			// In time order, the sequences rise: FIFO across both libraries.
			sort.Slice(rec.all, func(i, j int) bool { return rec.all[i].Start.Before(rec.all[j].Start) })
			want := ordering.RecipeCurator
			if kind == peers.Kazoo {
				want = ordering.RecipeKazoo
			}
			var prev *ordering.ParsedName
			for _, s := range rec.all {
				n, ok := ordering.ParseName(s.node)
				if !ok {
					t.Fatalf("unparsable node %q", s.node)
				}
				if n.Recipe != want {
					t.Fatalf("%s node %q in a %s queue", s.Who, n.Name, kind)
				}
				if prev != nil && !ordering.SeqLess(prev.Seq, n.Seq) {
					t.Fatalf("%s held before %s: not in sequence order", prev.Name, n.Name)
				}
				prev = &n
			}
			t.Logf("%s: %d critical sections, %v, no overlap, in sequence order", kind, len(rec.all), count)
		})
	}
}

// TestStockCuratorAndKazooSplit: stock Curator and stock Kazoo on one
// path both hold at once (neither sees the other's node), and this Lock
// refuses to join that queue unless told to.
func TestStockCuratorAndKazooSplit(t *testing.T) {
	ctx := tctx(t, 60*time.Second)
	p := lockPath(t)
	cfg := peers.Options{Servers: testServers(t)}
	cur := peers.StartT(t, peers.Curator, cfg)
	kaz := peers.StartT(t, peers.Kazoo, cfg)
	ch, err := cur.Acquire(ctx, 0, p, peers.Mutex)
	if err != nil {
		t.Fatal(err)
	}
	kctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	kh, err := kaz.Acquire(kctx, 0, p, peers.Mutex)
	cancel()
	if err != nil {
		t.Fatalf("Kazoo did not get the lock Curator holds (%v): the split this test shows did not happen", err)
	}
	if !ch.Held() || !kh.Held() {
		t.Fatalf("curator holds %v, kazoo holds %v", ch.Held(), kh.Held())
	}
	// Both still hold (open intervals): the exclusion check sees it.
	if ov := peers.Overlaps([]peers.Interval{ch.Interval("curator"), kh.Interval("kazoo")}); len(ov) != 1 {
		t.Errorf("Overlaps of the two holders: %v", ov)
	}
	t.Logf("both hold at once: curator %s, kazoo %s", ch.Node(), kh.Node())
	s := connect(t)
	q := ordering.Order(children(t, s, p))
	if split := q.SplitHolders(); len(split) != 2 {
		t.Errorf("Order sees split holders %v, want both nodes", split)
	}
	_, err = NewLock(s, p).TryAcquire(ctx)
	if !errors.Is(err, ordering.ErrMixedRecipes) {
		t.Fatalf("joining a split queue: %v, want ErrMixedRecipes", err)
	}
	t.Logf("refusal: %v", err)
	if c := children(t, s, p); len(c) != 2 {
		t.Fatalf("children after the refusal: %v", c)
	}
	if ok, err := NewLock(s, p, WithAllowMixed()).TryAcquire(ctx); ok || err != nil {
		t.Fatalf("WithAllowMixed: held %v, %v; want queued behind (by sequence), not refused", ok, err)
	}
	if c := children(t, s, p); len(c) != 2 {
		t.Fatalf("children after the forced try: %v", c)
	}
	if err := ch.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := kh.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRealClientQueuesOrder: queues built by real Curator and Kazoo clients
// (mutex and read/write) are read by Order as the clients themselves see
// them: holders, kinds, and each waiter's watched node equal what the
// server's `wchc` reports for the client's session (holders watch nothing).
func TestRealClientQueuesOrder(t *testing.T) {
	ctx := tctx(t, 90*time.Second)
	cfg := peers.Options{Servers: testServers(t), Sessions: 7}
	cur := peers.StartT(t, peers.Curator, cfg)
	kaz := peers.StartT(t, peers.Kazoo, cfg)
	s := connect(t)
	base := lockPath(t)
	type step struct {
		kind  peers.LockKind
		holds bool
	}
	M, R, W := peers.Mutex, peers.Read, peers.Write
	queues := []struct {
		name  string
		peer  *peers.Proc
		first int // first client of the peer used
		steps []step
		kinds []ordering.Kind
	}{
		{"curator-mutex", cur, 0, []step{{M, true}, {M, false}, {M, false}}, []ordering.Kind{ordering.KindMutex, ordering.KindMutex, ordering.KindMutex}},
		{"curator-rw", cur, 3, []step{{W, true}, {R, false}, {R, false}, {W, false}}, []ordering.Kind{ordering.KindWrite, ordering.KindRead, ordering.KindRead, ordering.KindWrite}},
		{"kazoo-mutex", kaz, 0, []step{{M, true}, {M, false}, {M, false}}, []ordering.Kind{ordering.KindMutex, ordering.KindMutex, ordering.KindMutex}},
		// Kazoo's last reader waits on the writer queued before it.
		{"kazoo-rw", kaz, 3, []step{{R, true}, {R, true}, {W, false}, {R, false}}, []ordering.Kind{ordering.KindRead, ordering.KindRead, ordering.KindWrite, ordering.KindRead}},
	}
	for _, qd := range queues {
		p := base + "/" + qd.name
		for i, st := range qd.steps {
			h, err := qd.peer.Request(qd.first+i, p, st.kind)
			if err != nil {
				t.Fatal(err)
			}
			if st.holds {
				if err := h.Wait(ctx); err != nil {
					t.Fatal(err)
				}
			}
			eventually(t, 20*time.Second, fmt.Sprintf("%s node %d", qd.name, i), func() bool {
				return len(ordering.Order(children(t, s, p)).Entries) == i+1
			})
		}
	}

	// Each waiter's watch is set a moment after its node appears: look
	// until the servers agree or the deadline passes, then report.
	var problems []string
	deadline := time.Now().Add(20 * time.Second)
	for {
		problems = nil
		out, err := fourLetter(ctx, testServers(t)[0], "wchc")
		if err != nil {
			t.Fatal(err)
		}
		watches := parseWchc(out)
		for _, qd := range queues {
			p := base + "/" + qd.name
			abs := s.Abs(p)
			q := ordering.Order(children(t, s, p))
			if len(q.Entries) != len(qd.steps) {
				t.Fatalf("%s: %d entries, want %d", qd.name, len(q.Entries), len(qd.steps))
			}
			for i, e := range q.Entries {
				_, stat, err := s.conn.Get(abs + "/" + e.Name)
				if err != nil {
					t.Fatal(err)
				}
				if want := qd.peer.Session(qd.first + i); stat.EphemeralOwner != want {
					t.Fatalf("%s %s: owner 0x%x, want the step's session 0x%x", qd.name, e.Name, stat.EphemeralOwner, want)
				}
				if e.Kind != qd.kinds[i] || (e.Role == ordering.RoleHolder) != qd.steps[i].holds {
					t.Errorf("%s %s: kind %v role %v, want kind %v holds %v", qd.name, e.Name, e.Kind, e.Role, qd.kinds[i], qd.steps[i].holds)
				}
				// Believes is a replay on today's list (see Order): a Kazoo
				// 2.8 reader that got the lock before a writer queued
				// behind it would, asked now, wait for that writer; it
				// holds all the same, and watches nothing.
				replayOnly := e.Role == ordering.RoleHolder && qd.name == "kazoo-rw" && e.Kind == ordering.KindRead
				if e.Believes != e.Role && !replayOnly {
					t.Errorf("%s %s: believes %v, role %v", qd.name, e.Name, e.Believes, e.Role)
				}
				var real []string
				for _, wp := range watches[findSess(watches, fmt.Sprintf("0x%x", stat.EphemeralOwner))] {
					if path.Dir(wp) == abs {
						real = append(real, path.Base(wp))
					}
				}
				var model []string
				if e.Watches != "" && e.Role == ordering.RoleWaiting {
					model = []string{e.Watches}
				}
				slices.Sort(real)
				if !slices.Equal(real, model) {
					problems = append(problems, fmt.Sprintf("%s %s: Order says it watches %v, wchc says %v", qd.name, e.Name, model, real))
				}
			}
		}
		if len(problems) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(problems) > 0 {
		t.Errorf("watches differ:\n%s", strings.Join(problems, "\n"))
	}
}
