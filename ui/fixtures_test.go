package ui

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
)

// t0 is "now" in every fixture: 03:12:04, when on-call gets paged.
var t0 = time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)

func ago(d time.Duration) time.Time { return t0.Add(-d) }

// Names as the recipes make them (see PRODUCT.md's table).
func curatorName(uuid string, seq int32) string {
	return fmt.Sprintf("_c_%s-lock-%010d", uuid, seq)
}

func kazooName(hex, kind string, seq int32) string {
	return fmt.Sprintf("%s__%s__%010d", hex, kind, seq)
}

// node builds a lock node; the caller fills in what a scenario needs.
func node(name string, seq int32, kind ordering.Kind, recipe ordering.Recipe, role ordering.Role, sess int64, client, data string, age time.Duration) model.Node {
	return model.Node{
		Name: name, Seq: seq, Kind: kind, Recipe: recipe, Role: role, Believes: role,
		Session: sess, DataLen: int32(len(data)),
		SinceExact: true,
	}.WithClient(client).WithData([]byte(data)).WithCtime(ago(age)).WithMtime(ago(age)).WithSince(ago(age))
}

func waits(n model.Node, on string, link model.LinkStatus) model.Node {
	n.Link = link
	n.SetWatches(on)
	return n
}

// curatorJob is a Curator InterProcessMutex queue: a holder and three
// waiters, every link verified by wchc.
func curatorJob() model.Queue {
	c := ordering.RecipeCurator
	m := ordering.KindMutex
	n41 := curatorName("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 41)
	n42 := curatorName("77e1a0c2-9b8d-4e7f-a6b5-c4d3e2f1a0b9", 42)
	n43 := curatorName("0b5c8d2e-1f3a-4b6c-9d8e-7f6a5b4c3d2e", 43)
	n44 := curatorName("c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e6f", 44)
	holder := node(n41, 41, m, c, ordering.RoleHolder, 0x10000a3f2c0011, "10.0.0.12:51234", "10.0.0.12", 2*time.Minute+13*time.Second)
	holder.SetSince(ago(2*time.Minute + 13*time.Second))
	return model.Queue{
		Path:  "/locks/job-a",
		State: model.PathPresent,
		Nodes: model.NodesOf(
			holder,
			waits(node(n42, 42, m, c, ordering.RoleWaiting, 0x10000a3f2c0012, "10.0.0.13:40112", "10.0.0.13", 62*time.Second), n41, model.LinkVerified),
			waits(node(n43, 43, m, c, ordering.RoleWaiting, 0x20000b11d40007, "10.0.0.14:38820", "10.0.0.14", 48*time.Second), n42, model.LinkVerified),
			waits(node(n44, 44, m, ordering.RecipeCurator, ordering.RoleWaiting, 0x10000a3f2c0099, "10.0.0.7:55100", "zklock oncall@ops-1 INC-4411", 9*time.Second), n43, model.LinkVerified),
		),
	}.WithRare(model.QueueRare{
		Other: []string{"leases", "locks"},
	})
}

// kazooOrders is a Kazoo read/write queue: two readers hold, a writer
// waits on the last reader, a reader waits on the writer.
func kazooOrders() model.Queue {
	k := ordering.RecipeKazoo
	r7 := kazooName("a1b2c3d4e5f60718293a4b5c6d7e8f90", "rlock", 7)
	r8 := kazooName("0f1e2d3c4b5a69788796a5b4c3d2e1f0", "rlock", 8)
	w9 := kazooName("5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b", "lock", 9)
	r10 := kazooName("99aa88bb77cc66dd55ee44ff33001122", "rlock", 10)
	return model.Queue{
		Path:  "/locks/orders",
		State: model.PathPresent,
		Nodes: model.NodesOf(
			node(r7, 7, ordering.KindRead, k, ordering.RoleHolder, 0x30000c22e50001, "10.0.1.21:60001", "report-gen pid=2231", 5*time.Minute),
			node(r8, 8, ordering.KindRead, k, ordering.RoleHolder, 0x30000c22e50002, "10.0.1.22:60002", "report-gen pid=877", 4*time.Minute+2*time.Second),
			waits(node(w9, 9, ordering.KindWrite, k, ordering.RoleWaiting, 0x30000c22e50003, "10.0.1.30:41000", "orders-writer", 31*time.Second), r8, model.LinkVerified),
			waits(node(r10, 10, ordering.KindRead, k, ordering.RoleWaiting, 0x30000c22e50004, "10.0.1.23:60003", "", 12*time.Second), w9, model.LinkInferred),
		),
	}
}

// splitShared is a Java service (Curator) and a Python job (Kazoo) on one
// path: each believes it holds.
func splitShared() model.Queue {
	n10 := curatorName("1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", 10)
	n11 := curatorName("6f5e4d3c-2b1a-4f9e-8d7c-6b5a4f3e2d1c", 11)
	n12 := kazooName("3fa4c2d19e8b47a6b5c4d3e2f1a0b9c8", "lock", 12)
	kz := node(n12, 12, ordering.KindMutex, ordering.RecipeKazoo, ordering.RoleWaiting, 0x40000d3f060003, "10.0.2.40:52000", "nightly.py", 40*time.Second)
	kz.Believes = ordering.RoleHolder
	return model.Queue{
		Path:  "/locks/shared-ledger",
		State: model.PathPresent,
		Nodes: model.NodesOf(
			node(n10, 10, ordering.KindMutex, ordering.RecipeCurator, ordering.RoleHolder, 0x40000d3f060001, "10.0.2.11:49152", "10.0.2.11", 3*time.Minute),
			waits(node(n11, 11, ordering.KindMutex, ordering.RecipeCurator, ordering.RoleWaiting, 0x40000d3f060002, "10.0.2.12:49153", "10.0.2.12", time.Minute), n10, model.LinkVerified),
			kz,
		),
	}.WithRare(model.QueueRare{
		Warnings: []model.Warning{
			{Code: model.WarnSplitHolders, Message: "2 nodes believe they hold this lock at once: " + n10 + " (curator), " + n12 + " (kazoo)", Nodes: []string{n10, n12}},
			{Code: model.WarnMixedRecipes, Message: "recipes that cannot see each other share this parent: curator-mutex (2): " + n10 + ", " + n11 + "; kazoo (1): " + n12, Nodes: []string{n10, n11, n12}},
		},
	})
}

// kazooDeadlock is the Kazoo 2.8 read/write deadlock: R21 watches W22,
// W22 watches R21; W23 behind them has lost its watch.
func kazooDeadlock() model.Queue {
	k := ordering.RecipeKazoo
	r21 := kazooName("4c4d4e4f505152535455565758595a5b", "rlock", 21)
	w22 := kazooName("6a6b6c6d6e6f70717273747576777879", "lock", 22)
	w23 := kazooName("8a8b8c8d8e8f90919293949596979899", "lock", 23)
	return model.Queue{
		Path:  "/locks/inventory",
		State: model.PathPresent,
		Nodes: model.NodesOf(
			waits(node(r21, 21, ordering.KindRead, k, ordering.RoleWaiting, 0x50000e4a170001, "10.0.3.5:40001", "stock-sync", 17*time.Minute), w22, model.LinkVerified),
			waits(node(w22, 22, ordering.KindWrite, k, ordering.RoleWaiting, 0x50000e4a170002, "10.0.3.6:40002", "restock", 16*time.Minute), r21, model.LinkVerified),
			waits(node(w23, 23, ordering.KindWrite, k, ordering.RoleWaiting, 0x50000e4a170003, "10.0.3.7:40003", "audit", 9*time.Minute), w22, model.LinkMissing),
		),
	}.WithRare(model.QueueRare{
		Warnings: []model.Warning{
			{Code: model.WarnDeadlock, Message: "watch cycle by the servers' watches: " + r21 + " → " + w22 + " → " + r21 + ": each waits for the next to go, forever", Nodes: []string{r21, w22}},
			{Code: model.WarnMissingWatch, Message: "1 waiting nodes have no server watch on the node their recipe waits on (they will never wake): " + w23, Nodes: []string{w23}},
		},
	})
}

func quietReports() model.Queue {
	n := curatorName("d1d2d3d4-e5e6-4f7f-8a8b-9c9d0e0f1a1b", 3)
	h := node(n, 3, ordering.KindMutex, ordering.RecipeCurator, ordering.RoleHolder, 0x10000a3f2c0031, "10.0.0.31:47000", "10.0.0.31", 3*time.Hour+20*time.Minute)
	h.SinceExact = false
	return model.Queue{Path: "/locks/reports", State: model.PathPresent, Nodes: model.NodesOf(h)}
}

// fleet is every queue of the fixtures in one snapshot, sorted by path.
func fleet() *model.Snapshot {
	return &model.Snapshot{
		At: t0,
		Conn: model.Conn{
			State: model.StateConnected, Since: ago(time.Hour), SessionID: 0x10000a3f2c0099,
			Server: "zk1.prod:2181", Ensemble: []string{"zk1.prod:2181", "zk2.prod:2181", "zk3.prod:2181"}, Context: "prod",
		},
		Queues: model.QueuesOf(
			model.Queue{Path: "/locks/idle", State: model.PathPresent},
			kazooDeadlock(),
			curatorJob(),
			model.Queue{Path: "/locks/nope", State: model.PathAbsent},
			kazooOrders(),
			quietReports(),
			splitShared(),
		),
		ServerView:   true,
		ServerViewAt: ago(7 * time.Second),
	}
}

// changes are the log's changes in the goldens: lines as a recording made
// before changes were typed says them (Said), and a warning raised.
func changes() []model.Change {
	return []model.Change{
		{At: ago(3 * time.Minute), Kind: model.ChangeJoined, Path: "/locks/shared-ledger", Node: model.Node{Name: curatorName("1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", 10)}, Said: "#10 curator, session 0x40000d3f060001"},
		{At: ago(2*time.Minute + 13*time.Second), Kind: model.ChangeAcquired, Path: "/locks/job-a", Node: model.Node{Name: curatorName("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 41)}, Said: "#40 -> #41 in 4ms"},
		{At: ago(40 * time.Second), Kind: model.ChangeWarningRaised, Path: "/locks/shared-ledger", Warning: splitShared().Warnings()[0]},
		{At: ago(9 * time.Second), Kind: model.ChangeJoined, Path: "/locks/job-a", Node: model.Node{Name: curatorName("c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e6f", 44)}, Said: "#44 curator, session 0x10000a3f2c0099 (you)"},
	}
}

// fakeBackend records the calls the console makes.
type fakeBackend struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (f *fakeBackend) record(s string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
	return f.err
}

func (f *fakeBackend) Take(_ context.Context, path string, kind ordering.Kind) error {
	return f.record("take " + path + " " + kind.String())
}

func (f *fakeBackend) Release(_ context.Context, path string) error {
	return f.record("release " + path)
}

func (f *fakeBackend) Revoke(_ context.Context, path, node string) error {
	return f.record("revoke " + path + " " + node)
}

func (f *fakeBackend) ForceRelease(_ context.Context, path, node string, sess int64) error {
	return f.record(fmt.Sprintf("force %s %s %#x", path, node, sess))
}

func (f *fakeBackend) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func mustTheme(name string) themes.Theme {
	th, err := themes.Load(name)
	if err != nil {
		panic(err)
	}
	return th
}

// newTest is a console at t0 showing the fleet, sized w x h.
func newTest(theme string, w, h int, opts ...func(*Options)) Console {
	o := Options{
		Theme:   mustTheme(theme),
		Backend: &fakeBackend{},
		Paths:   []string{"/locks/job-a"},
		Now:     func() time.Time { return t0 },
	}
	for _, f := range opts {
		f(&o)
	}
	m := New(o)
	m = step(m, sizeMsg(w, h))
	m = step(m, updateMsg{model.Update{Snapshot: fleet(), Changes: changes()}})
	return m
}
