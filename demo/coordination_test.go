package demo

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

// leaderWait bounds the wait for the leader to step down: a lead lasts
// 8-15 s, then the next participant leads.
const leaderWait = 40 * time.Second

// TestDemoSemaphoreAndElection: the console, told the demo's limits,
// shows the semaphore as one (type semaphore, holders 3/3, workers
// waiting, never over the limit) and the election as one (type election,
// one leader, the others following); leases change hands, and the leader
// steps down for another.
func TestDemoSemaphoreAndElection(t *testing.T) {
	ctx, view := runningDemo(t)
	load := func() (sem, elect model.Queue) {
		t.Helper()
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		snap, err := zkview.Load(lctx, view, zkview.Options{Paths: []string{Slots, Leader}, SemaphoreLimits: Limits()})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range snap.Queues.All() {
			switch q.Path {
			case Slots:
				sem = *q
			case Leader:
				elect = *q
			}
		}
		for _, w := range sem.Warnings() {
			if w.Code == model.WarnOverLimit {
				t.Fatalf("the demo's semaphore is over its limit: %s", w.Message)
			}
		}
		return sem, elect
	}
	leaderOf := func(q model.Queue) (string, int) {
		var leader string
		n := 0
		for _, node := range q.Nodes.All() {
			if node.Role == ordering.RoleHolder {
				leader, n = node.Name, n+1
			}
		}
		return leader, n
	}

	var leases []string
	waitUntil(t, "the semaphore full, with workers waiting, and one leader of three", func() bool {
		sem, elect := load()
		_, waiting := sem.LeaseCounts()
		_, leaders := leaderOf(elect)
		if sem.Type != model.TypeSemaphore || sem.LimitText() != "3/3" || waiting < 1 ||
			elect.Type != model.TypeElection || leaders != 1 || elect.Nodes.Len() != 3 {
			return false
		}
		for _, n := range sem.Nodes.All() {
			if n.Lease && n.Role == ordering.RoleHolder {
				leases = append(leases, n.Name)
				if !strings.Contains(string(n.Data()), " pid ") {
					t.Errorf("lease %s data %q is not a worker's identity", n.Name, n.Data())
				}
			}
		}
		return true
	})
	waitUntil(t, "a lease changing hands", func() bool {
		sem, _ := load()
		for _, n := range sem.Nodes.All() {
			if n.Lease && n.Role == ordering.RoleHolder && !slices.Contains(leases, n.Name) {
				return true
			}
		}
		return false
	})
	_, elect := load()
	first, _ := leaderOf(elect)
	deadline := time.Now().Add(leaderWait)
	for {
		_, elect := load()
		if leader, n := leaderOf(elect); n == 1 && leader != first {
			t.Logf("leadership passed from %s to %s", model.NodeRef(first, 20), model.NodeRef(leader, 20))
			break
		} else if n > 1 {
			t.Fatalf("%d leaders at once", n)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the leader %s did not step down within %s", first, leaderWait)
		}
		time.Sleep(200 * time.Millisecond) // polling ZooKeeper
	}
}

// runningDemo starts the demo's workload on the test's sandbox server (in
// a chroot of its own) and a session to look at it with; both end with the
// test, and ctx bounds it to two minutes.
func runningDemo(t *testing.T) (context.Context, *lockops.Session) {
	t.Helper()
	cfg, _, _ := demoConfig(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	d, err := startDemo(ctx, t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	view, err := lockops.Connect(ctx, cfg.Servers, cfg.SessionOptions...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(view.Close)
	return ctx, view
}
