package cmd

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/zklock/zklock/audit"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/holds"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/ui"
)

// nextOwn waits for the next report on the console's own-lock channel
// that satisfies ok, skipping others.
func nextOwn(t *testing.T, ch <-chan ui.OwnLock, what string, ok func(ui.OwnLock) bool) ui.OwnLock {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case o := <-ch:
			if ok(o) {
				return o
			}
		case <-deadline:
			t.Fatalf("no own-lock report: %s", what)
		}
	}
}

// TestConsoleBackend drives the console's Backend as the console does
// (without a terminal): take queues and returns, progress arrives on Own,
// release works while queued and while holding, force-release and revoke
// go through the lock core, and every action is audited before and after.
func TestConsoleBackend(t *testing.T) {
	p := testPath(t)
	sess := testSession(t)
	other := testSession(t)
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	a, err := audit.Open(&config.Settings{AuditLog: auditFile, Servers: testCluster(t).Servers()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	lb := holds.NewManager(sess, holds.Config{}, ui.OwnFromProgress)
	defer lb.Close()
	b := &auditedBackend{inner: lb, audit: a, sess: sess, lookup: func(string, string) (int64, string) { return 0, "" }}
	own := lb.Own()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// Someone holds: take returns once queued, watching the holder.
	holder := lockops.NewLock(other, p, lockops.WithRevocable())
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Take(ctx, p, ordering.KindMutex); err != nil {
		t.Fatal(err)
	}
	q := nextOwn(t, own, "queued", func(o ui.OwnLock) bool { return o.State == ui.OwnQueued })
	if q.Path != p || q.Position != 2 || q.Watching != holder.Node() || q.Node == "" {
		t.Fatalf("queued report %+v, want position 2 watching %s", q, holder.Node())
	}
	if err := b.Take(ctx, p, ordering.KindMutex); !errors.Is(err, holds.ErrAlreadyOwn) {
		t.Fatalf("second take: %v, want holds.ErrAlreadyOwn", err)
	}

	// Release while queued: the node goes, the holder keeps holding.
	if err := b.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
	nextOwn(t, own, "released while queued", func(o ui.OwnLock) bool { return o.State == ui.OwnReleased })
	if kids, _, _ := testConn(t).Children(p); len(kids) != 1 {
		t.Fatalf("after release while queued: %v", kids)
	}

	// Queue again; the holder lets go: the operator holds.
	if err := b.Take(ctx, p, ordering.KindMutex); err != nil {
		t.Fatal(err)
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	h := nextOwn(t, own, "holding", func(o ui.OwnLock) bool { return o.State == ui.OwnHolding })
	mine := h.Node

	// The other client queues behind; force-release and revoke it through
	// the backend (owner checked by the lock core).
	waiter := lockops.NewLock(other, p)
	wres := make(chan error, 1)
	go func() { wres <- waiter.Acquire(ctx) }()
	eventually(t, 20*time.Second, "the other client to queue", func() bool { return waiter.Node() != "" && waiter.State() == ordering.LockQueued })
	if err := b.ForceRelease(ctx, p, waiter.Node(), sess.ID()); !errors.Is(err, lockops.ErrOwnerChanged) {
		t.Fatalf("force-release with the wrong owner: %v, want ErrOwnerChanged", err)
	}
	if err := b.Revoke(ctx, p, waiter.Node()); err != nil {
		t.Fatal(err)
	}
	if err := b.ForceRelease(ctx, p, waiter.Node(), other.ID()); err != nil {
		t.Fatal(err)
	}

	// Release while holding.
	if err := b.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
	nextOwn(t, own, "released while holding", func(o ui.OwnLock) bool { return o.State == ui.OwnReleased && o.Node == mine })
	if err := b.Release(ctx, p); !errors.Is(err, holds.ErrNotOwn) {
		t.Fatalf("release of nothing: %v", err)
	}
	cancel()
	<-wres

	recs := readAudit(t, auditFile)
	var got []string
	for _, r := range recs {
		got = append(got, r.Action+"/"+r.Phase+"/"+r.Outcome)
		if r.Session == "" || r.Path != p {
			t.Errorf("audit line without the operator's session or path: %+v", r)
		}
	}
	want := []string{
		"take/before/", "take/after/ok", "take/before/", "take/after/error",
		"release/before/", "release/after/ok",
		"take/before/", "take/after/ok",
		"force-release/before/", "force-release/after/error",
		"revoke/before/", "revoke/after/ok",
		"force-release/before/", "force-release/after/ok",
		"release/before/", "release/after/ok",
		"release/before/", "release/after/error",
	}
	if len(got) != len(want) {
		t.Fatalf("audit:\n got %v\nwant %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("audit line %d: %s, want %s (all: %v)", i, got[i], want[i], got)
		}
	}
	if r := recs[5]; r.Node == "" {
		t.Errorf("release after: no node: %+v", r)
	}
}

// TestConsoleBackendCloseReleases: closing the backend (the console's
// exit path) ends a wait and a hold.
func TestConsoleBackendCloseReleases(t *testing.T) {
	p1, p2 := testPath(t), testPath(t)
	sess := testSession(t)
	other := testSession(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = holdLock(t, other, p2)
	lb := holds.NewManager(sess, holds.Config{}, ui.OwnFromProgress)
	if err := lb.Take(ctx, p1, ordering.KindMutex); err != nil {
		t.Fatal(err)
	}
	if err := lb.Take(ctx, p2, ordering.KindMutex); err != nil {
		t.Fatal(err)
	}
	c := testConn(t)
	eventually(t, 20*time.Second, "both nodes", func() bool {
		k1, _, _ := c.Children(p1)
		k2, _, _ := c.Children(p2)
		return len(k1) == 1 && len(k2) == 2
	})
	start := time.Now()
	lb.Close()
	if took := time.Since(start); took > holds.CloseTimeout {
		t.Errorf("Close took %v", took)
	}
	k1, _, _ := c.Children(p1)
	k2, _, _ := c.Children(p2)
	if len(k1) != 0 || len(k2) != 1 {
		t.Fatalf("after Close: %v and %v, want the operator's nodes gone", k1, k2)
	}
}
