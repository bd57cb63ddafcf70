package zkview

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// The Watcher under faults, on a 3-member ensemble (fault_test.go has the
// member-killed and link-cut cases): the whole ensemble down and back,
// its own session expired by a paused member, and a holder's expiry seen
// as a handoff.

// monitorTimeout is the Watcher's and the clients' session timeout here:
// the lease (nine tenths of it) is what turns a silent link into
// "expired" on screen.
const monitorTimeout = 4 * time.Second

func faultEnsemble(t *testing.T) *sandbox.Cluster {
	t.Helper()
	return sandboxtest.Start(t, sandbox.Options{Members: 3, TickTime: 100 * time.Millisecond})
}

// truthDiff compares the snapshot's queue p with ZooKeeper now: the same
// children, and each lock node's session equal to its ephemeralOwner. ""
// when they agree.
func truthDiff(c *zk.Conn, s *model.Snapshot, p string) string {
	kids, _, err := c.Children(p)
	if err != nil {
		return fmt.Sprintf("list %s: %v", p, err)
	}
	q := queueOf(s, p)
	if q == nil || q.State != model.PathPresent {
		return fmt.Sprintf("queue %s missing or not present", p)
	}
	got := append(modeltest.Names(q), q.Other()...)
	sort.Strings(got)
	sort.Strings(kids)
	if !slices.Equal(got, kids) {
		var phantom, missing []string
		for _, g := range got {
			if !slices.Contains(kids, g) {
				phantom = append(phantom, g)
			}
		}
		for _, k := range kids {
			if !slices.Contains(got, k) {
				missing = append(missing, k)
			}
		}
		return fmt.Sprintf("phantom %v, missing %v", phantom, missing)
	}
	for _, n := range q.Nodes.All() {
		_, st, err := c.Get(p + "/" + n.Name)
		if err != nil {
			return fmt.Sprintf("get %s: %v", n.Name, err)
		}
		if n.Ctime().IsZero() || n.Session != st.EphemeralOwner {
			return fmt.Sprintf("%s: session 0x%x (read: %v), owner 0x%x", n.Name, n.Session, !n.Ctime().IsZero(), st.EphemeralOwner)
		}
	}
	return ""
}

// alive fails the test if the Watcher's Updates channel was closed: the
// monitor must never give up by itself.
func alive(t *testing.T, w *testWatcher, when string) {
	t.Helper()
	select {
	case <-w.done:
		t.Fatalf("%s: the watcher closed its Updates by itself", when)
	default:
	}
}

// connEventsSince lists the conn events received since at.
func connEventsSince(w *testWatcher, at time.Time) []string {
	var out []string
	for _, ev := range w.events() {
		if ev.Kind == model.ChangeConn && !ev.At.Before(at) {
			out = append(out, ev.Text())
		}
	}
	return out
}

// TestMonitorEnsembleDown: every member dies. The Watcher keeps its model,
// marked stale since the moment the link went, then says the session is
// presumed expired; it never exits. Once the ensemble is back it
// reconnects (the same session, which the servers restore, or a new one),
// re-reads, and converges to ZooKeeper's truth, changes made right after
// the restart included; its watch is armed again.
func TestMonitorEnsembleDown(t *testing.T) {
	c := faultEnsemble(t)
	ctx := tctx(t, 90*time.Second)
	p := testPath(t)
	writer := rawConn(t, c.Servers())
	mkdirs(t, writer, p)
	mkdirs(t, writer, p+"/leases")
	var made []string
	for range 3 {
		made = append(made, createSeq(t, writer, p, "lock-", []byte("writer")))
	}
	mon := session(t, c.Servers(), lockops.WithSessionTimeout(monitorTimeout))
	w := watch(t, mon, Options{Paths: []string{p}})
	waitFor(t, w, 15*time.Second, "loaded", func(s *model.Snapshot) bool { return truthDiff(writer, s, p) == "" })

	killAt := time.Now()
	for _, m := range c.Members() {
		if err := m.Kill(); err != nil {
			t.Fatal(err)
		}
	}
	snap := waitFor(t, w, monitorTimeout, "stale", func(s *model.Snapshot) bool { return s.Stale })
	if since := snap.Conn.Since; since.Before(killAt.Add(-time.Second)) || since.After(killAt.Add(monitorTimeout)) {
		t.Errorf("stale since %s, the ensemble died at %s", since.Format("15:04:05.000"), killAt.Format("15:04:05.000"))
	}
	// The model is kept while stale, and says so.
	if q := queueOf(snap, p); q == nil || !slices.Equal(modeltest.Names(q), made) || modeltest.Warning(q, model.WarnStale) == nil {
		t.Errorf("while disconnected the queue should keep its nodes %v with a stale warning: %+v", made, q)
	}
	waitFor(t, w, 2*monitorTimeout, "presumed expired", func(s *model.Snapshot) bool {
		return s.Stale && s.Conn.State == model.StateExpired
	})
	if q := queueOf(w.Snapshot(), p); q == nil || !slices.Equal(modeltest.Names(q), made) {
		t.Errorf("while expired the queue should keep its last known nodes %v: %+v", made, q)
	}
	t.Logf("down: %q", connEventsSince(w, killAt))
	faultSleep(ctx, 2*time.Second) // the ensemble stays down a while longer
	alive(t, w, "with the ensemble down")

	restartAt := time.Now()
	var wg sync.WaitGroup
	for _, m := range c.Members() {
		wg.Go(func() {
			// Each member serves once a quorum is up: start them together.
			if err := m.Restart(ctx); err != nil {
				t.Errorf("restart member %d: %v", m.ID(), err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Changes right after the restart, perhaps before the Watcher is back.
	eventually(t, 20*time.Second, "writer deletes after the restart", func() bool {
		err := writer.Delete(p+"/"+made[0], -1)
		return err == nil || err == zk.ErrNoNode
	})
	added := createSeq(t, writer, p, "lock-", []byte("after"))
	snap = waitFor(t, w, 30*time.Second, "reconnected and converged", func(s *model.Snapshot) bool {
		return s.Conn.State == model.StateConnected && !s.Stale && truthDiff(writer, s, p) == ""
	})
	alive(t, w, "after the restart")
	evs := connEventsSince(w, restartAt)
	t.Logf("back after %v: %q", time.Since(restartAt).Round(time.Millisecond), evs)
	if !slices.ContainsFunc(evs, func(e string) bool {
		return strings.Contains(e, "reconnected") || strings.Contains(e, "new session")
	}) {
		t.Errorf("no reconnect event after the restart: %q", evs)
	}
	if q := queueOf(snap, p); q.Nodes.At(0).Name != made[1] || q.Nodes.At(0).Role != ordering.RoleHolder || !slices.Contains(modeltest.Names(q), added) {
		t.Errorf("after the restart: %v, want %s holding and %s queued", modeltest.Names(q), made[1], added)
	}
	n := createSeq(t, writer, p, "lock-", nil)
	waitFor(t, w, 10*time.Second, "watch armed again", func(s *model.Snapshot) bool {
		return slices.Contains(modeltest.Names(queueOf(s, p)), n)
	})
}

// faultSleep lets a fault last d: it is the fault's length, not a wait
// for something to happen.
func faultSleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// TestMonitorSessionExpired: the Watcher knows one member only, and that
// member is paused (a hung host) past the Watcher's session timeout, so
// the ensemble expires the Watcher's session. Meanwhile the queue
// changes. The Watcher shows stale, then expired; once the member is
// back, a new session, a full re-sync (a node whose data changed in the
// gap is read again), and the truth.
func TestMonitorSessionExpired(t *testing.T) {
	c := faultEnsemble(t)
	ctx := tctx(t, 90*time.Second)
	p := testPath(t)
	victim := 0
	leader, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if victim == leader {
		victim = 1 // a follower: the other two keep a quorum
	}
	var others []string
	for i, a := range c.Servers() {
		if i != victim {
			others = append(others, a)
		}
	}
	writer := rawConn(t, others)
	mkdirs(t, writer, p)
	var made []string
	for range 3 {
		made = append(made, createSeq(t, writer, p, "lock-", []byte("before")))
	}
	mon := session(t, []string{c.Servers()[victim]}, lockops.WithSessionTimeout(monitorTimeout))
	first := mon.ID()
	w := watch(t, mon, Options{Paths: []string{p}})
	waitFor(t, w, 15*time.Second, "loaded", func(s *model.Snapshot) bool { return truthDiff(writer, s, p) == "" })

	m := c.Members()[victim]
	pauseAt := time.Now()
	if err := m.Pause(); err != nil {
		t.Fatal(err)
	}
	resumed := false
	defer func() {
		if !resumed {
			_ = m.Resume()
		}
	}()
	// The gap: the holder goes, a node's data changes, a node arrives.
	if err := writer.Delete(p+"/"+made[0], -1); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Set(p+"/"+made[2], []byte("changed in the gap"), -1); err != nil {
		t.Fatal(err)
	}
	added := createSeq(t, writer, p, "lock-", []byte("gap"))
	waitFor(t, w, 2*monitorTimeout, "stale, presumed expired", func(s *model.Snapshot) bool {
		return s.Stale && s.Conn.State == model.StateExpired
	})
	// Past the timeout on the servers' side too: the session is gone.
	eventually(t, 3*monitorTimeout, "the servers expired the Watcher's session", func() bool {
		_, _, err := writer.Exists(p) // keeps the writer's view fresh
		if err != nil {
			return false
		}
		leader, err := c.Leader(ctx)
		if err != nil {
			return false
		}
		out, err := fourletter.Ask(ctx, c.Servers()[leader], "dump")
		return err == nil && !strings.Contains(out, fmt.Sprintf("0x%x", first))
	})
	alive(t, w, "while its member is paused")
	t.Logf("paused for %v: %q", time.Since(pauseAt).Round(time.Millisecond), connEventsSince(w, pauseAt))
	resumeAt := time.Now()
	if err := m.Resume(); err != nil {
		t.Fatal(err)
	}
	resumed = true
	snap := waitFor(t, w, 30*time.Second, "new session, re-synced", func(s *model.Snapshot) bool {
		return s.Conn.State == model.StateConnected && !s.Stale && s.Conn.SessionID != first && truthDiff(writer, s, p) == ""
	})
	t.Logf("re-synced %v after the resume: %q", time.Since(resumeAt).Round(time.Millisecond), connEventsSince(w, resumeAt))
	if !hasConnEvent(w, "expired") || !hasConnEvent(w, "new session") {
		t.Errorf("conn events: %q", connEventsSince(w, pauseAt))
	}
	q := queueOf(snap, p)
	if !slices.Equal(modeltest.Names(q), []string{made[1], made[2], added}) {
		t.Errorf("queue %v, want %v", modeltest.Names(q), []string{made[1], made[2], added})
	}
	for _, n := range q.Nodes.All() {
		if n.Name == made[2] && string(n.Data()) != "changed in the gap" {
			var evs []string
			for _, ev := range w.events() {
				evs = append(evs, ev.At.Format("15:04:05.000")+" "+ev.Kind.String()+" "+ev.Text())
			}
			t.Errorf("%s data %q (version %d, mtime %s): not read again after the expiry; events:\n%s",
				n.Name, n.Data(), n.Version, n.Mtime().Format("15:04:05.000"), strings.Join(evs, "\n"))
		}
	}
	n := createSeq(t, writer, p, "lock-", nil)
	waitFor(t, w, 10*time.Second, "watch set in the new session", func(s *model.Snapshot) bool {
		return slices.Contains(modeltest.Names(queueOf(s, p)), n)
	})
}

// TestHolderExpiryHandoff: a holder's link stays cut past its session
// timeout. It learns it lost the lock before the next waiter holds; the
// waiter holds within the session timeout plus a small bound; the Watcher
// shows the handoff as an event and in the snapshot.
func TestHolderExpiryHandoff(t *testing.T) {
	c := faultEnsemble(t)
	ctx := tctx(t, 60*time.Second)
	p := testPath(t)
	var proxies []*sandbox.Proxy
	for _, a := range c.Servers() {
		px, err := sandbox.NewProxy(a)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { px.Close() })
		proxies = append(proxies, px)
	}
	var addrs []string
	for _, px := range proxies {
		addrs = append(addrs, px.Addr())
	}
	hs := session(t, addrs, lockops.WithSessionTimeout(monitorTimeout))
	holder := lockops.NewLock(hs, p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	waiter := lockops.NewLock(session(t, c.Servers(), lockops.WithSessionTimeout(monitorTimeout)), p)
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(ctx) }()
	mon := session(t, c.Servers(), lockops.WithSessionTimeout(monitorTimeout))
	w := watch(t, mon, Options{Paths: []string{p}})
	waitFor(t, w, 15*time.Second, "holder and waiter", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Nodes.Len() == 2 && q.Nodes.At(0).Name == holder.Node() && q.Nodes.At(0).Role == ordering.RoleHolder
	})
	hnode, wnode := holder.Node(), waiter.Node()

	cut := time.Now()
	for _, px := range proxies {
		px.Cut()
	}
	var lostAt, heldAt time.Duration
	select {
	case <-holder.Done():
		lostAt = time.Since(cut)
	case err := <-got:
		t.Fatalf("the waiter got the lock (err %v) before the cut holder learned it lost it", err)
	case <-time.After(3 * monitorTimeout):
		t.Fatal("the cut holder never learned it lost the lock")
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
		heldAt = time.Since(cut)
	case <-time.After(3 * monitorTimeout):
		t.Fatal("the waiter never held")
	}
	// The server expires the session one timeout after it last heard from
	// the holder (at most the moment of the cut), rounded up to its tick;
	// then a notification and a listing. 1.5 s covers that on a loaded
	// machine.
	const bound = 1500 * time.Millisecond
	t.Logf("holder lost after %v (%v), waiter held after %v (session timeout %v)", lostAt.Round(time.Millisecond), holder.Err(), heldAt.Round(time.Millisecond), monitorTimeout)
	if heldAt > monitorTimeout+bound {
		t.Errorf("the waiter held %v after the cut: more than the session timeout plus %v", heldAt, bound)
	}
	snap := waitFor(t, w, 10*time.Second, "the handoff in the snapshot", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && slices.Equal(modeltest.Names(q), []string{wnode}) && q.Nodes.At(0).Role == ordering.RoleHolder
	})
	q := queueOf(snap, p)
	if len(q.Handoffs()) == 0 || q.Handoffs()[len(q.Handoffs())-1].From != hnode || q.Handoffs()[len(q.Handoffs())-1].To != wnode {
		t.Errorf("handoffs %+v, want %s -> %s", q.Handoffs(), hnode, wnode)
	}
	eventually(t, 5*time.Second, "handoff event", func() bool {
		for _, ev := range w.events() {
			if ev.Kind == model.ChangeAcquired && ev.Node.Name == wnode {
				return true
			}
		}
		return false
	})
	for _, px := range proxies {
		px.Restore()
	}
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
