package cmd

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/audit"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/holds"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/ui"
)

// TestConsoleBackendLease: `t` on a semaphore takes one lease in its
// clients' protocol (not a mutex beside their nodes), under the context's
// limit; without a limit a Curator semaphore is refused in one line; `t`
// on a LeaderLatch election joins it. The audit names the lease and the
// election.
func TestConsoleBackendLease(t *testing.T) {
	p := testPath(t)
	sess, other := testSession(t), testSession(t)
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	a, err := audit.Open(&config.Settings{AuditLog: auditFile, Servers: testCluster(t).Servers()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	limits := map[string]int{} // the context's semaphores:, stated below
	lb := holds.NewManager(sess, holds.Config{Semaphores: limits}, ui.OwnFromProgress)
	defer lb.Close()
	b := &auditedBackend{inner: lb, audit: a, sess: sess, lookup: func(string, string) (int64, string) { return 0, "" }}
	own := lb.Own()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// A Curator-style semaphore with two leases, one taken.
	first := lockops.NewSemaphore(other, p, lockops.WithLimit(2))
	if err := first.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	err = b.Take(ctx, p, ordering.KindMutex)
	if err == nil || !strings.Contains(err.Error(), "semaphores: in the context config") {
		t.Fatalf("take without a limit: %v", err)
	}
	limits[p] = 2
	if err := b.Take(ctx, p, ordering.KindMutex); err != nil {
		t.Fatal(err)
	}
	h := nextOwn(t, own, "holding a lease", func(o ui.OwnLock) bool { return o.State == ui.OwnHolding })
	c := testConn(t)
	if kids, _, _ := c.Children(p + "/leases"); len(kids) != 2 || !slices.Contains(kids, h.Node) {
		t.Fatalf("leases %v, want first's and ours (%s)", kids, h.Node)
	}
	if kids, _, _ := c.Children(p); len(kids) != 2 {
		t.Fatalf("the semaphore's parent holds %v: a lock node beside leases and locks?", kids)
	}
	if err := b.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
	if kids, _, _ := c.Children(p + "/leases"); len(kids) != 1 {
		t.Fatalf("leases %v after the release", kids)
	}

	// A LeaderLatch election: joined as a participant.
	e := p + "-election"
	leader := lockops.NewLock(other, e, lockops.WithLatch())
	if err := leader.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Take(ctx, e, ordering.KindMutex); err != nil {
		t.Fatal(err)
	}
	q := nextOwn(t, own, "following", func(o ui.OwnLock) bool { return o.Path == e && o.State == ui.OwnQueued })
	if n, ok := ordering.ParseName(q.Node); !ok || !n.Latch {
		t.Fatalf("own node %q is not a latch participant's", q.Node)
	}
	if err := b.Release(ctx, e); err != nil {
		t.Fatal(err)
	}

	recs := readAudit(t, auditFile)
	var kinds []string
	for _, r := range recs {
		if r.Action == "take" && r.Phase == audit.PhaseAfter && r.Outcome == audit.OutcomeOK {
			kinds = append(kinds, r.Kind)
			if r.Kind == holds.KindLease && !strings.HasPrefix(r.Node, "leases/_c_") {
				t.Errorf("lease audited as node %q", r.Node)
			}
		}
	}
	if strings.Join(kinds, ",") != "lease,election" {
		t.Fatalf("audited takes %v, want lease then election: %+v", kinds, recs)
	}
}
