package peers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// The integration tests share one standalone server, started by the first
// test that needs one and stopped by TestMain. Its 100 ms tick lets
// sessions of a second or two expire quickly.
var shared = &sandboxtest.Shared{Options: sandbox.Options{Members: 1, TickTime: 100 * time.Millisecond}, Hint: "peers tests need a real ZooKeeper"}

func testServers(t testing.TB) []string {
	t.Helper()
	return shared.Cluster(t).Servers()
}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Close()
	os.Exit(code)
}

var kinds = []Kind{Curator, Kazoo}

// nodeStyle is each library's lock node name (PRODUCT.md's table).
func nodeStyle(k Kind, lk LockKind) *regexp.Regexp {
	if k == Curator {
		mark := map[LockKind]string{Mutex: "-lock-", Read: "-__READ__", Write: "-__WRIT__"}[lk]
		return regexp.MustCompile(`^_c_[0-9a-f-]{36}` + regexp.QuoteMeta(mark) + `\d{10}$`)
	}
	mark := map[LockKind]string{Mutex: "__lock__", Read: "__rlock__", Write: "__lock__"}[lk]
	return regexp.MustCompile(`^[0-9a-f]{32}` + mark + `\d{10}$`)
}

func testPath(t testing.TB) string {
	return fmt.Sprintf("/peers-test/%s-%d", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), time.Now().UnixNano())
}

func tctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it holds or d passes.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func children(t testing.TB, conn *zk.Conn, p string) []string {
	t.Helper()
	c, _, err := conn.Children(p)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("children %s: %v", p, err)
	}
	return c
}

// owner is the session that owns node p/name, 0 when it is gone.
func owner(t testing.TB, conn *zk.Conn, p, name string) int64 {
	t.Helper()
	_, st, err := conn.Get(p + "/" + name)
	if errors.Is(err, zk.ErrNoNode) {
		return 0
	}
	if err != nil {
		t.Fatalf("get %s/%s: %v", p, name, err)
	}
	return st.EphemeralOwner
}

// TestAcquireRelease: each library takes and hands over a mutex, reports
// its node (named in its style, owned by the session it reported), cancels
// a waiting request without leaving a node, and closes a session cleanly.
func TestAcquireRelease(t *testing.T) {
	servers := testServers(t)
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			ctx := tctx(t, 60*time.Second)
			conn := sandboxtest.Connect(t, servers, 10*time.Second)
			p := StartT(t, kind, Options{Servers: servers, Sessions: 2})
			ids := p.Sessions()
			if len(ids) != 2 || ids[0] == 0 || ids[1] == 0 || ids[0] == ids[1] {
				t.Fatalf("sessions %x", ids)
			}
			t.Logf("%s sessions 0x%x 0x%x", kind, ids[0], ids[1])
			path := testPath(t)

			h0, err := p.Acquire(ctx, 0, path, Mutex)
			if err != nil {
				t.Fatal(err)
			}
			if !nodeStyle(kind, Mutex).MatchString(h0.Node()) {
				t.Errorf("node %q is not in %s's style", h0.Node(), kind)
			}
			if o := owner(t, conn, path, h0.Node()); o != ids[0] {
				t.Errorf("node %s owned by 0x%x, want client 0's session 0x%x", h0.Node(), o, ids[0])
			}
			h1, err := p.Request(1, path, Mutex)
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, 20*time.Second, "client 1's node", func() bool { return len(children(t, conn, path)) == 2 })
			if h1.Held() {
				t.Fatal("client 1 holds while client 0 does")
			}
			if err := h0.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := h1.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if o := owner(t, conn, path, h1.Node()); o != ids[1] {
				t.Errorf("node %s owned by 0x%x, want client 1's session 0x%x", h1.Node(), o, ids[1])
			}
			if ov := Overlaps([]Interval{h0.Interval("0"), h1.Interval("1")}); len(ov) != 0 {
				t.Errorf("handover overlaps: %v", ov)
			}
			if err := h0.Release(ctx); !errors.Is(err, ErrNotHeld) {
				t.Errorf("second release: %v, want ErrNotHeld", err)
			}

			// A waiting request, cancelled, leaves no node; so does an
			// Acquire whose context ends.
			h2, err := p.Request(0, path, Mutex)
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, 20*time.Second, "client 0's waiting node", func() bool { return len(children(t, conn, path)) == 2 })
			if err := h2.Cancel(ctx); err != nil {
				t.Fatal(err)
			}
			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			_, err = p.Acquire(short, 0, path, Mutex)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("acquire past its deadline: %v", err)
			}
			eventually(t, 10*time.Second, "only the holder's node", func() bool {
				c := children(t, conn, path)
				return len(c) == 1 && c[0] == h1.Node()
			})

			// A clean close ends the session at once: its node goes.
			if err := p.CloseSession(ctx, 1); err != nil {
				t.Fatal(err)
			}
			eventually(t, time.Second, "the closed session's node to go", func() bool { return len(children(t, conn, path)) == 0 })
		})
	}
}

// TestReadWrite: a writer excludes readers; once it releases, both
// readers hold at once; a writer then waits for both.
func TestReadWrite(t *testing.T) {
	servers := testServers(t)
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			ctx := tctx(t, 60*time.Second)
			conn := sandboxtest.Connect(t, servers, 10*time.Second)
			p := StartT(t, kind, Options{Servers: servers, Sessions: 3})
			path := testPath(t)
			w, err := p.Acquire(ctx, 0, path, Write)
			if err != nil {
				t.Fatal(err)
			}
			r1, err := p.Request(1, path, Read)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := p.Request(2, path, Read)
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, 20*time.Second, "three nodes", func() bool { return len(children(t, conn, path)) == 3 })
			if r1.Held() || r2.Held() {
				t.Fatal("a reader holds while the writer does")
			}
			if err := w.Release(ctx); err != nil {
				t.Fatal(err)
			}
			for _, r := range []*Hold{r1, r2} {
				if err := r.Wait(ctx); err != nil {
					t.Fatal(err)
				}
				if !nodeStyle(kind, Read).MatchString(r.Node()) {
					t.Errorf("read node %q is not in %s's style", r.Node(), kind)
				}
			}
			if !r1.Held() || !r2.Held() {
				t.Fatal("readers do not hold together")
			}
			if !nodeStyle(kind, Write).MatchString(w.Node()) {
				t.Errorf("write node %q is not in %s's style", w.Node(), kind)
			}
			w2, err := p.Request(0, path, Write)
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, 20*time.Second, "the second writer's node", func() bool { return len(children(t, conn, path)) == 3 })
			if err := r1.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if w2.Held() {
				t.Fatal("writer holds while a reader does")
			}
			if err := r2.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := w2.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if err := w2.Release(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestLoop: three clients contend for two seconds, some requests giving
// up: no two critical sections overlap, every client gets the lock, and
// each cycle carries its node and session.
func TestLoop(t *testing.T) {
	servers := testServers(t)
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			ctx := tctx(t, 60*time.Second)
			p := StartT(t, kind, Options{Servers: servers, Sessions: 3})
			path := testPath(t)
			var streamed int
			cycles, err := p.Loop(ctx, LoopSpec{
				Path: path, Duration: 2 * time.Second, Hold: time.Millisecond,
				GiveUpPercent: 20, OnCycle: func(Cycle) { streamed++ },
			})
			if err != nil {
				t.Fatal(err)
			}
			if streamed != len(cycles) {
				t.Errorf("OnCycle saw %d cycles, Loop returned %d", streamed, len(cycles))
			}
			ids := p.Sessions()
			held, gaveUp := map[int]int{}, 0
			for _, c := range cycles {
				switch {
				case c.Err != "":
					t.Errorf("cycle error: %+v", c)
				case c.GaveUp:
					gaveUp++
				case c.Held:
					held[c.Client]++
					if !nodeStyle(kind, Mutex).MatchString(c.Node) {
						t.Errorf("cycle node %q", c.Node)
					}
					if c.Acquired.Before(c.Requested) || c.ReleaseCalled.Before(c.Acquired) ||
						c.ReleaseReturned.Before(c.ReleaseCalled) || c.ReleaseCalled.Sub(c.Acquired) < time.Millisecond {
						t.Errorf("cycle times out of order: %+v", c)
					}
				}
				if c.Session != ids[c.Client] {
					t.Errorf("cycle session 0x%x, client %d has 0x%x", c.Session, c.Client, ids[c.Client])
				}
			}
			t.Logf("%s: %d cycles in 2 s, held %v, %d gave up", kind, len(cycles), held, gaveUp)
			if len(held) != 3 {
				t.Errorf("not every client got the lock: %v", held)
			}
			if gaveUp == 0 {
				t.Errorf("no request gave up: the give-up path was not exercised")
			}
			if ov := Overlaps(Intervals(string(kind), cycles)); len(ov) != 0 {
				t.Fatalf("%d overlaps, first %v", len(ov), ov[0])
			}
		})
	}
}

// TestLoopStop: a loop without a natural end stops when its context ends:
// waiting requests are cancelled, the holder releases, no node is left.
func TestLoopStop(t *testing.T) {
	servers := testServers(t)
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			conn := sandboxtest.Connect(t, servers, 10*time.Second)
			p := StartT(t, kind, Options{Servers: servers, Sessions: 3})
			path := testPath(t)
			ctx, cancel := context.WithCancel(tctx(t, 60*time.Second))
			defer cancel()
			var n int
			cycles, err := p.Loop(ctx, LoopSpec{
				Path: path, Cycles: 1 << 30, Hold: 50 * time.Millisecond, Discard: true,
				OnCycle: func(c Cycle) {
					if n++; n == 10 {
						cancel()
					}
				},
			})
			if !errors.Is(err, context.Canceled) || len(cycles) != 0 {
				t.Fatalf("Loop = %d cycles, %v; want none kept and context.Canceled", len(cycles), err)
			}
			eventually(t, 10*time.Second, "no node left", func() bool { return len(children(t, conn, path)) == 0 })
			// The clients are free again.
			h, err := p.Acquire(tctx(t, 20*time.Second), 2, path, Mutex)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Release(tctx(t, 20*time.Second)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestKill: SIGKILL leaves the sessions to expire: the held node outlives
// the process, then goes once the servers expire the session.
func TestKill(t *testing.T) {
	servers := testServers(t)
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			ctx := tctx(t, 60*time.Second)
			conn := sandboxtest.Connect(t, servers, 10*time.Second)
			const timeout = 2 * time.Second
			p := StartT(t, kind, Options{Servers: servers, Sessions: 2, SessionTimeout: timeout})
			path := testPath(t)
			h, err := p.Acquire(ctx, 0, path, Mutex)
			if err != nil {
				t.Fatal(err)
			}
			waiter, err := p.Request(1, path, Mutex)
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, 20*time.Second, "the waiter's node", func() bool { return len(children(t, conn, path)) == 2 })
			killed := time.Now()
			if err := p.Kill(); err != nil {
				t.Fatal(err)
			}
			if err := waiter.Wait(ctx); !errors.Is(err, ErrExited) {
				t.Errorf("waiting request after Kill: %v, want ErrExited", err)
			}
			if h.Held() {
				t.Error("a request of a killed driver still holds")
			}
			if o := owner(t, conn, path, h.Node()); o != p.Sessions()[0] {
				t.Fatalf("the holder's node went with the process (owner 0x%x): the session was closed, not left to expire", o)
			}
			eventually(t, 3*timeout+5*time.Second, "the sessions to expire", func() bool { return len(children(t, conn, path)) == 0 })
			// That they went by expiry, not by a close, is the owner check
			// above (the node outlived the process); how long it took is
			// only logged: a timing is no assertion on a shared machine.
			t.Logf("%s: nodes gone %v after SIGKILL (session timeout %v)", kind, time.Since(killed).Round(time.Millisecond), timeout)
		})
	}
}

// TestConnectionEvents: a holder cut from the servers (through its own
// proxy; the other client of the process connects directly) past its
// session timeout reports SUSPENDED before the waiter gets the lock, and
// once reconnected reports the loss of its lock (LOST), a new session and
// RECONNECTED. The waiter's connection never changes.
func TestConnectionEvents(t *testing.T) {
	servers := testServers(t)
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			ctx := tctx(t, 60*time.Second)
			proxy, err := sandbox.NewProxy(servers[0])
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { proxy.Close() })
			const timeout = 2 * time.Second
			p := StartT(t, kind, Options{ClientServers: [][]string{{proxy.Addr()}, servers}, SessionTimeout: timeout})
			old := p.Session(0)
			path := testPath(t)
			h, err := p.Acquire(ctx, 0, path, Mutex)
			if err != nil {
				t.Fatal(err)
			}
			waiter, err := p.Request(1, path, Mutex)
			if err != nil {
				t.Fatal(err)
			}
			proxy.Cut()
			sus, err := p.WaitEvent(ctx, func(e PeerEvent) bool { return e.Type == EventState && e.State == StateSuspended })
			if err != nil {
				t.Fatal(err)
			}
			if err := waiter.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			next := waiter.Times().Acquired
			if sus.Client != 0 || !sus.Time.Before(next) {
				t.Errorf("client %d SUSPENDED at %v, not before the waiter held at %v", sus.Client, sus.Time, next)
			}
			if got := next.Sub(sus.Time); got < timeout/2 {
				t.Errorf("the waiter held %v after the holder was cut: before the session could expire (%v)", got, timeout)
			}
			proxy.Restore()
			select {
			case <-h.Lost():
			case <-ctx.Done():
				t.Fatalf("the holder was never told its lock was lost; events %+v", p.Events())
			}
			if _, err := p.WaitEvent(ctx, func(e PeerEvent) bool { return e.Type == EventState && e.State == StateReconnected }); err != nil {
				t.Fatal(err)
			}
			if _, err := p.WaitEvent(ctx, func(e PeerEvent) bool { return e.Type == EventSession && e.Client == 0 && e.Session != old }); err != nil {
				t.Fatal(err)
			}
			if p.Session(0) == old || p.Session(0) == 0 {
				t.Errorf("session after expiry 0x%x, before 0x%x", p.Session(0), old)
			}
			var states []string
			for _, e := range p.Events() {
				if e.Type == EventState || e.Type == EventLost {
					if e.Client != 0 {
						t.Errorf("the directly connected client had an event: %+v", e)
					}
					states = append(states, fmt.Sprintf("%s %s +%v", e.Type, e.State, e.Time.Sub(sus.Time).Round(time.Millisecond)))
				}
			}
			t.Logf("%s: cut holder: %v; waiter held at +%v", kind, states, next.Sub(sus.Time).Round(time.Millisecond))
			if err := h.Release(ctx); err != nil {
				t.Logf("release of a lost lock: %v", err)
			}
			if err := waiter.Release(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStartErrors: bad arguments are refused before anything starts.
func TestStartErrors(t *testing.T) {
	if err := Available(Kind("etcd")); !errors.Is(err, ErrBadArgument) {
		t.Errorf("Available(etcd) = %v", err)
	}
	for _, kind := range kinds {
		if err := Available(kind); err != nil {
			t.Errorf("%v (the tests need both libraries)", err)
		}
	}
	for _, cfg := range []Options{
		{},
		{Servers: []string{"a:1,b:2"}},
		{Servers: []string{"a:1"}, Sessions: 2, ClientServers: [][]string{{"a:1"}}},
		{ClientServers: [][]string{{"a:1"}, {}}},
	} {
		if _, err := Start(context.Background(), Kazoo, cfg); !errors.Is(err, ErrBadArgument) {
			t.Errorf("Start(%+v): %v, want ErrBadArgument", cfg, err)
		}
	}
}
