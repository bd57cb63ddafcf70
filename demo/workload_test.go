package demo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/zkview"
)

// demoWait bounds each wait on the demo's clients: handoffs come every
// second or two; the rest is room for a loaded machine.
const demoWait = 20 * time.Second

// demoQueue lists path as the console orders it.
func demoQueue(t *testing.T, conn *zk.Conn, path string) ordering.Ordering {
	t.Helper()
	children, _, err := conn.Children(path)
	if err != nil {
		t.Fatalf("list %s: %v", path, err)
	}
	return ordering.Order(children)
}

// holderOf is the node that holds path by sequence order ("" for none).
func holderOf(t *testing.T, conn *zk.Conn, path string) string {
	t.Helper()
	for _, e := range demoQueue(t, conn, path).Entries {
		if e.Role == ordering.RoleHolder {
			return e.Name
		}
	}
	return ""
}

// waitUntil polls ok until it holds or demoWait passes.
func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(demoWait)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", demoWait, what)
		}
		time.Sleep(50 * time.Millisecond) // polling ZooKeeper
	}
}

// stableFor checks that path's holder stays h for d: the demo's longest
// busy hold is 1.8 s, so 2.5 s without a change means nobody let go.
func stableFor(t *testing.T, conn *zk.Conn, path, h string, d time.Duration) {
	t.Helper()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if now := holderOf(t, conn, path); now != h {
			t.Fatalf("holder of %s changed from %s to %s while paused", path, h, now)
		}
		time.Sleep(50 * time.Millisecond) // sampling the holder
	}
}

// demoConfig points a demo at the package's shared server, under a chroot
// of the test's own so that tests do not see each other's nodes; conn sees
// the whole tree, and at(p) is where the demo's p lands.
func demoConfig(t *testing.T, sandboxed bool) (cfg Options, conn *zk.Conn, at func(string) string) {
	t.Helper()
	cluster := testCluster(t)
	conn = sandboxtest.Connect(t, cluster.Servers(), 10*time.Second)
	chroot := "/" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	if _, err := conn.Create(chroot, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create %s: %v", chroot, err)
	}
	cfg = Options{Servers: cluster.Servers(), SessionOptions: []lockops.SessionOption{lockops.WithChroot(chroot)}, Sandboxed: sandboxed}
	return cfg, conn, func(p string) string { return chroot + p }
}

// adminFor connects the session a Workload makes its parents with.
func adminFor(ctx context.Context, t *testing.T, cfg Options) *lockops.Session {
	t.Helper()
	admin, err := lockops.Connect(ctx, cfg.Servers, cfg.SessionOptions...)
	if err != nil {
		t.Fatal(err)
	}
	return admin
}

// startDemo starts a Workload as `zklock demo` does.
func startDemo(ctx context.Context, t *testing.T, cfg Options) (*Workload, error) {
	t.Helper()
	return Start(ctx, adminFor(ctx, t, cfg), cfg)
}

func TestDemoClients(t *testing.T) {
	cfg, conn, at := demoConfig(t, true)
	billing, orders := at(Billing), at(Orders)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := startDemo(ctx, t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			d.Stop()
		}
	}()

	// A queue forms on the busy mutex, readers share orders, handoffs come.
	waitUntil(t, "a queue of 5 on billing", func() bool { return len(demoQueue(t, conn, billing).Entries) >= 5 })
	waitUntil(t, "two readers holding orders", func() bool { return len(demoQueue(t, conn, orders).Holders()) >= 2 })
	first := holderOf(t, conn, billing)
	start := time.Now()
	waitUntil(t, "a handoff on billing", func() bool { h := holderOf(t, conn, billing); return h != "" && h != first })
	t.Logf("handoff on billing %s after looking", time.Since(start).Round(10*time.Millisecond))
	children, _, err := conn.Get(billing + "/" + holderOf(t, conn, billing))
	if err != nil || !strings.Contains(string(children), "@") || !strings.Contains(string(children), " pid ") {
		t.Errorf("holder's data %q is not an identity (%v)", children, err)
	}

	// Pause: nobody lets go, nobody joins.
	if text, err := d.Pause(ctx); err != nil || !strings.Contains(text, "paused") {
		t.Fatalf("Pause = %q, %v", text, err)
	}
	time.Sleep(300 * time.Millisecond) // a release already on the wire lands
	h := holderOf(t, conn, billing)
	n := len(demoQueue(t, conn, billing).Entries)
	stableFor(t, conn, billing, h, 2500*time.Millisecond)
	if m := len(demoQueue(t, conn, billing).Entries); m != n {
		t.Fatalf("billing's queue went from %d to %d nodes while paused", n, m)
	}

	// Step: exactly one handoff on billing.
	text, err := d.Step(ctx)
	if err != nil || !strings.Contains(text, Billing) {
		t.Fatalf("Step = %q, %v", text, err)
	}
	waitUntil(t, "the stepped handoff", func() bool { return holderOf(t, conn, billing) != h })
	h2 := holderOf(t, conn, billing)
	stableFor(t, conn, billing, h2, 2500*time.Millisecond)

	// Kill: the holder's node goes with its session, the next one holds.
	owner := func(node string) int64 {
		_, st, err := conn.Get(billing + "/" + node)
		if err != nil {
			return 0
		}
		return st.EphemeralOwner
	}
	victim := owner(h2)
	text, err = d.Kill(ctx, Billing)
	if err != nil || !strings.Contains(text, "without a release") {
		t.Fatalf("Kill = %q, %v", text, err)
	}
	waitUntil(t, "the killed holder's node to go", func() bool { return holderOf(t, conn, billing) != h2 })
	for _, e := range demoQueue(t, conn, billing).Entries {
		if owner(e.Name) == victim {
			t.Fatalf("a node of the killed session 0x%x is still there: %s", victim, e.Name)
		}
	}
	if _, err := d.Kill(ctx, "/somewhere/else"); !errors.Is(err, errNotDemoLock) {
		t.Errorf("Kill outside the demo: %v", err)
	}

	// Resume: handoffs again.
	if text, err := d.Pause(ctx); err != nil || !strings.Contains(text, "running") {
		t.Fatalf("resume = %q, %v", text, err)
	}
	h3 := holderOf(t, conn, billing)
	waitUntil(t, "handoffs after resuming", func() bool { h := holderOf(t, conn, billing); return h != "" && h != h3 })

	// Split, asked on the read/write lock, lands on billing: two nodes
	// believe they hold.
	text, err = d.Split(ctx, Orders)
	if err != nil || !strings.Contains(text, "Kazoo") || !strings.Contains(text, Billing) {
		t.Fatalf("Split = %q, %v", text, err)
	}
	waitUntil(t, "split holders on billing", func() bool { return demoQueue(t, conn, billing).SplitHolders() != nil })
	if _, err := d.Split(ctx, Billing); !errors.Is(err, errSplitActive) {
		t.Errorf("a second split on billing: %v", err)
	}

	// Stop: every client's node is gone at once.
	start = time.Now()
	d.Stop()
	stopped = true
	t.Logf("stop took %s", time.Since(start).Round(10*time.Millisecond))
	for _, p := range Paths() {
		if q := demoQueue(t, conn, at(p)); len(q.Entries) != 0 {
			t.Errorf("%s still has %d nodes after stop", p, len(q.Entries))
		}
	}
}

// On an empty quiet lock, Split first has a Curator-style client take it.
func TestDemoSplitOnAnEmptyLock(t *testing.T) {
	cfg, conn, at := demoConfig(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := adminFor(ctx, t, cfg)
	// A demo without contenders: only the presenter's split runs.
	d := &Workload{servers: cfg.Servers, sessOpts: cfg.SessionOptions, admin: admin, sandbox: true, wake: make(chan struct{}), splits: map[string]bool{}}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	defer d.Stop()
	if err := d.makeParents(ctx, Reports); err != nil {
		t.Fatal(err)
	}
	text, err := d.Split(ctx, Reports)
	if err != nil {
		t.Fatal(err)
	}
	q := demoQueue(t, conn, at(Reports))
	if names := q.SplitHolders(); len(names) != 2 || len(q.MixedRecipes()) != 2 {
		t.Fatalf("split on an empty lock: holders %v, queue %+v", names, q.Entries)
	}
	if !strings.Contains(text, "each believe they hold") {
		t.Errorf("Split's sentence does not explain: %q", text)
	}
	// The servers' watches decide: the Kazoo-style client must not wait
	// on the Curator node, as stock Kazoo does not, or the console shows
	// it waiting and no split.
	snap, err := zkview.Load(ctx, admin, zkview.Options{Paths: []string{Reports}, ServerView: true})
	if err != nil {
		t.Fatal(err)
	}
	if lq := snap.Queue(Reports); !snap.ServerView || lq == nil || !slices.ContainsFunc(lq.Warnings(), func(w model.Warning) bool {
		return w.Code == model.WarnSplitHolders && len(w.Nodes) == 2
	}) {
		t.Errorf("with the servers' watches: server view %v, queue %+v", snap.ServerView, lq)
	}
}

// On an ensemble of the user's (--servers), the demo removes the parents
// it made once its clients are gone, and keeps those that were there.
func TestDemoExternalLeavesNothing(t *testing.T) {
	cfg, conn, at := demoConfig(t, false)
	if _, err := conn.Create(at("/demo"), []byte("mine"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := startDemo(ctx, t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "a queue on billing", func() bool { return len(demoQueue(t, conn, at(Billing)).Entries) >= 2 })
	d.Stop()
	if ok, _, err := conn.Exists(at(Root)); err != nil || ok {
		t.Errorf("%s still exists after stop (%v)", Root, err)
	}
	if data, _, err := conn.Get(at("/demo")); err != nil || string(data) != "mine" {
		t.Errorf("/demo, there before the demo, is gone or changed: %q, %v", data, err)
	}
}
