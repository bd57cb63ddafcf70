package zkview

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/sandbox/peers"
)

// The console's golden files (ui/testdata/TestRealGolden/*.golden) are
// drawn from a snapshot this package took of queues built by real
// clients. The snapshot is checked in (ui/testdata/real/fleet.json) so
// that the goldens are stable; this test builds the same queues again on every run and
// fails when what zkview sees no longer has the shape of the checked-in
// one. `go test ./zkview -run TestConsoleFixture -update-fixture` rewrites it
// (then `go test ./ui -run TestRealGolden -update` redraws the goldens).
var updateFixture = flag.Bool("update-fixture", false, "rewrite ui/testdata/real/fleet.json from real queues")

const fixtureFile = "../ui/testdata/real/fleet.json"

// fixtureNow is the fixture's "now" (the ui goldens' clock), so that ages
// in the goldens read like the real ones did.
var fixtureNow = time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)

// fixtureRoot replaces the test's own path prefix in the checked-in file.
const fixtureRoot = "/locks"

// TestConsoleFixtureFromRealQueues builds, with real clients:
//   - billing: a Curator InterProcessMutex, one holder and three waiters;
//   - orders: Kazoo read/write, two readers holding, a writer waiting, a
//     reader queued behind it;
//   - ledger: a stock Curator client and a stock Kazoo client, both holding
//     (split-holders, mixed-recipes);
//   - inventory: the Kazoo 2.8 deadlock (W1 holding, R1 and W2 queued,
//     then W1 released);
//   - reports: a lockops holder and the operator's own lockops node waiting;
//   - nope: a path that does not exist.
func TestConsoleFixtureFromRealQueues(t *testing.T) {
	c := testCluster(t)
	base := testPath(t)
	p := func(name string) string { return base + "/" + name }
	raw := rawConn(t, c.Servers())
	for _, name := range []string{"billing", "orders", "ledger", "inventory", "reports"} {
		mkdirs(t, raw, p(name))
	}
	cur := peers.StartT(t, peers.Curator, peers.Options{Servers: c.Servers(), Sessions: 5})
	kaz := peers.StartT(t, peers.Kazoo, peers.Options{Servers: c.Servers(), Sessions: 8})
	paths := []string{p("billing"), p("inventory"), p("ledger"), p("nope"), p("orders"), p("reports")}
	w := watch(t, session(t, c.Servers()), Options{Paths: paths, ServerView: true, ServerViewEvery: 200 * time.Millisecond})
	ctx := tctx(t, 90*time.Second)

	pm, pr, pw := peers.Mutex, peers.Read, peers.Write
	queueUp(t, w, p("billing"), []step{{cur, 0, pm, true}, {cur, 1, pm, false}, {cur, 2, pm, false}, {cur, 3, pm, false}})
	queueUp(t, w, p("orders"), []step{{kaz, 0, pr, true}, {kaz, 1, pr, true}, {kaz, 2, pw, false}, {kaz, 3, pr, false}})
	if _, err := cur.Acquire(ctx, 4, p("ledger"), pm); err != nil {
		t.Fatal(err)
	}
	if _, err := kaz.Acquire(ctx, 4, p("ledger"), pm); err != nil {
		t.Fatal(err)
	}
	_, holds := queueUp(t, w, p("inventory"), []step{{kaz, 5, pw, true}, {kaz, 6, pr, false}, {kaz, 7, pw, false}})
	waitPolled(t, w, 20*time.Second, "inventory chain verified", func(s *model.Snapshot) bool {
		q := queueOf(s, p("inventory"))
		return s.ServerView && q.Nodes.At(1).Link == model.LinkVerified && q.Nodes.At(2).Link == model.LinkVerified
	})
	if err := holds[0].Release(ctx); err != nil {
		t.Fatal(err)
	}
	holder := lockops.NewLock(session(t, c.Servers()), p("reports"), lockops.WithNote("nightly report"))
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	operator := lockops.NewLock(session(t, c.Servers()), p("reports"), lockops.WithNote("INC-4411"))
	go func() { _ = operator.Acquire(ctx) }()
	t.Cleanup(func() { _ = operator.Release(tctx(t, 10*time.Second)) })

	snap := waitFor(t, w, 30*time.Second, "every queue settled and judged by the servers", func(s *model.Snapshot) bool {
		if !s.ServerView {
			return false
		}
		want := map[string]int{"billing": 4, "orders": 4, "ledger": 2, "inventory": 2, "reports": 2}
		for name, n := range want {
			q := queueOf(s, p(name))
			if q == nil || q.Nodes.Len() != n {
				return false
			}
			for _, node := range q.Nodes.All() {
				if node.Client() == "" || (node.Watches() != "" && node.Link == model.LinkInferred) {
					return false
				}
			}
		}
		return modeltest.Warning(queueOf(s, p("ledger")), model.WarnSplitHolders) != nil &&
			modeltest.Warning(queueOf(s, p("inventory")), model.WarnDeadlock) != nil
	})
	own := queueOf(snap, p("reports")).Nodes.At(1).Name
	if own != operator.Node() {
		t.Fatalf("reports: the second node is %s, the operator's is %s", own, operator.Node())
	}
	got := normalizeFixture(snap, base)

	if *updateFixture {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(fixtureFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixtureFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", fixtureFile)
		return
	}
	b, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatalf("%v (write it with -update-fixture)", err)
	}
	var want model.Snapshot
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if g, w := fixtureShape(got), fixtureShape(&want); g != w {
		t.Errorf("real queues no longer look like %s:\n got: %s\nwant: %s", fixtureFile, g, w)
	}
	// The checked-in file round-trips: what the goldens draw is what was
	// captured.
	again, err := json.MarshalIndent(&want, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(again), bytes.TrimSpace(b)) {
		t.Errorf("%s does not round-trip through model.Snapshot", fixtureFile)
	}
}

// normalizeFixture makes a snapshot fit to check in: the test's prefix
// becomes /locks, every time moves so that the snapshot was taken at
// fixtureNow (ages kept, to the second), all in UTC.
func normalizeFixture(s *model.Snapshot, base string) *model.Snapshot {
	b, _ := json.Marshal(s)
	var n model.Snapshot
	_ = json.Unmarshal(b, &n) // a deep copy
	shift := fixtureNow.Sub(s.At)
	tm := func(t *time.Time) {
		if !t.IsZero() {
			*t = t.Add(shift).UTC().Round(time.Second)
		}
	}
	path := func(p string) string { return fixtureRoot + strings.TrimPrefix(p, base) }
	tm(&n.At)
	tm(&n.Conn.Since)
	tm(&n.ServerViewAt)
	for i := range n.Queues.Len() {
		q := n.Queues.At(i)
		q.Path = path(q.Path)
		listed := q.ListedAt()
		tm(&listed)
		q.SetListedAt(listed)
		nodes := q.Nodes.Slice() // a copy: the snapshot's nodes are shared
		for j := range nodes {
			c, m, s := nodes[j].Ctime(), nodes[j].Mtime(), nodes[j].Since()
			tm(&c)
			tm(&m)
			tm(&s)
			nodes[j].SetCtime(c)
			nodes[j].SetMtime(m)
			nodes[j].SetSince(s)
		}
		q.Nodes = model.NodesOf(nodes...)
		hs := q.Handoffs() // the deep copy's own
		for j := range hs {
			hs[j].Path = path(hs[j].Path)
			tm(&hs[j].At)
		}
		for j := range q.Depth {
			tm(&q.Depth[j].At)
		}
		ws := q.Warnings() // the deep copy's own
		for j := range ws {
			ws[j].Message = strings.ReplaceAll(ws[j].Message, base, fixtureRoot)
		}
	}
	return &n
}

// fixtureShape is what must not change between runs: per queue, its state
// and each node's kind, recipe, role, belief, link and watched node (by
// index), and the warnings with the nodes they name (by index). Names,
// sessions, addresses and times differ every run.
func fixtureShape(s *model.Snapshot) string {
	var b strings.Builder
	for _, q := range s.Queues.All() {
		idx := func(name string) int {
			return q.Nodes.Index(func(n *model.Node) bool { return n.Name == name })
		}
		fmt.Fprintf(&b, "%s %s [", q.Path[strings.LastIndex(q.Path, "/")+1:], q.State)
		for _, n := range q.Nodes.All() {
			fmt.Fprintf(&b, " %s/%s/%s/%s/%s->%d", n.Kind, n.Recipe, n.Role, n.Believes, n.Link, idx(n.Watches()))
		}
		b.WriteString(" ] warnings")
		var ws []string
		for _, x := range q.Warnings() {
			var at []string
			for _, n := range x.Nodes {
				at = append(at, fmt.Sprint(idx(n)))
			}
			ws = append(ws, x.Code+"@"+strings.Join(at, ","))
		}
		slices.Sort(ws)
		fmt.Fprintf(&b, " %v; ", ws)
	}
	return b.String()
}
