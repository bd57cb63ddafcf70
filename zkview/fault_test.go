package zkview

import (
	"fmt"
	"slices"
	"sort"
	"strings"
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

// freshEquals reports whether the snapshot's queue p holds exactly the
// children a fresh listing returns.
func freshEquals(t testing.TB, c *zk.Conn, s *model.Snapshot, p string) bool {
	kids, _, err := c.Children(p)
	if err != nil {
		return false
	}
	q := queueOf(s, p)
	if q == nil || q.State != model.PathPresent {
		return false
	}
	got := append(modeltest.Names(q), q.Other()...)
	sort.Strings(got)
	sort.Strings(kids)
	return slices.Equal(got, kids)
}

func hasConnEvent(w *testWatcher, text string) bool {
	for _, ev := range w.events() {
		if ev.Kind == model.ChangeConn && strings.Contains(ev.Text(), text) {
			return true
		}
	}
	return false
}

// TestMemberKilled: in a 3-member ensemble, the member the Watcher is
// connected to dies; the Watcher reconnects elsewhere and converges,
// changes made meanwhile included.
func TestMemberKilled(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Members: 3, TickTime: 100 * time.Millisecond})
	p := testPath(t)
	mon := session(t, c.Servers())
	victim := -1
	for i, m := range c.Members() {
		if m.Addr() == mon.Server() {
			victim = i
		}
	}
	if victim < 0 {
		t.Fatalf("monitor on %s, not a member of %v", mon.Server(), c.Servers())
	}
	var others []string
	for i, m := range c.Members() {
		if i != victim {
			others = append(others, m.Addr())
		}
	}
	writer := rawConn(t, others)
	mkdirs(t, writer, p)
	var made []string
	for range 3 {
		made = append(made, createSeq(t, writer, p, "lock-", nil))
	}
	w := watch(t, mon, Options{Paths: []string{p}})
	waitFor(t, w, 15*time.Second, "three nodes", func(s *model.Snapshot) bool { return freshEquals(t, writer, s, p) })

	if err := c.Members()[victim].Kill(); err != nil {
		t.Fatal(err)
	}
	// Changes while the Watcher has no link (or has just found another).
	// The victim may have led: the others elect a new leader first.
	eventually(t, 20*time.Second, "delete after the kill", func() bool {
		err := writer.Delete(p+"/"+made[0], -1)
		return err == nil || err == zk.ErrNoNode
	})
	eventually(t, 15*time.Second, "disconnected event", func() bool { return hasConnEvent(w, "disconnected") })
	snap := waitFor(t, w, 20*time.Second, "reconnected and converged", func(s *model.Snapshot) bool {
		return s.Conn.State == model.StateConnected && !s.Stale && s.Conn.Server != c.Members()[victim].Addr() &&
			freshEquals(t, writer, s, p)
	})
	if q := queueOf(snap, p); q.Nodes.At(0).Name != made[1] || q.Nodes.At(0).Role != ordering.RoleHolder {
		t.Errorf("holder after failover: %+v", q.Nodes.At(0))
	}
	// The watch is armed again: a new change is seen.
	n := createSeq(t, writer, p, "lock-", nil)
	waitFor(t, w, 10*time.Second, "change after failover", func(s *model.Snapshot) bool {
		return slices.Contains(modeltest.Names(queueOf(s, p)), n)
	})
}

// TestLinkCutAndExpiry: a short cut (same session) loses no change made
// in the gap; a cut longer than the session timeout expires the session:
// Conn shows expired, then connected with a new session, and every path
// is read again with its watch re-set.
func TestLinkCutAndExpiry(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	proxy, err := sandbox.NewProxy(c.Servers()[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	writer := rawConn(t, c.Servers())
	mkdirs(t, writer, p)
	for range 2 {
		createSeq(t, writer, p, "lock-", nil)
	}
	const timeout = 1500 * time.Millisecond
	mon := session(t, []string{proxy.Addr()}, lockops.WithSessionTimeout(timeout))
	w := watch(t, mon, Options{Paths: []string{p}})
	waitFor(t, w, 10*time.Second, "loaded", func(s *model.Snapshot) bool { return freshEquals(t, writer, s, p) })
	firstSession := mon.ID()

	// A short cut: the session survives; a change in the gap is caught.
	proxy.Cut()
	waitFor(t, w, 5*time.Second, "stale", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return s.Stale && s.Conn.State == model.StateDisconnected && modeltest.Warning(q, model.WarnStale) != nil && q.Nodes.Len() == 2
	})
	gap := createSeq(t, writer, p, "lock-", nil)
	proxy.Restore()
	waitFor(t, w, 10*time.Second, "gap change seen", func(s *model.Snapshot) bool {
		return !s.Stale && s.Conn.SessionID == firstSession && slices.Contains(modeltest.Names(queueOf(s, p)), gap) &&
			freshEquals(t, writer, s, p)
	})

	// A long cut: the server expires the session.
	proxy.Cut()
	waitFor(t, w, 10*time.Second, "expired", func(s *model.Snapshot) bool { return s.Conn.State == model.StateExpired && s.Stale })
	kids, _, err := writer.Children(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := writer.Delete(p+"/"+ordering.Order(kids).Entries[0].Name, -1); err != nil {
		t.Fatal(err)
	}
	createSeq(t, writer, p, "lock-", nil)
	// Past the timeout on the server's side as well.
	eventually(t, 10*time.Second, "server dropped the session", func() bool {
		// `dump` lists every live session of a standalone server.
		out, err := fourletter.Ask(tctx(t, 5*time.Second), c.Servers()[0], "dump")
		return err == nil && !strings.Contains(out, fmt.Sprintf("0x%x\n", firstSession))
	})
	proxy.Restore()
	waitFor(t, w, 15*time.Second, "new session, converged", func(s *model.Snapshot) bool {
		return s.Conn.State == model.StateConnected && s.Conn.SessionID != firstSession && freshEquals(t, writer, s, p)
	})
	if !hasConnEvent(w, "expired") || !hasConnEvent(w, "new session") {
		t.Errorf("conn events: %+v", w.events())
	}
	n := createSeq(t, writer, p, "lock-", nil)
	waitFor(t, w, 10*time.Second, "watch re-set after expiry", func(s *model.Snapshot) bool {
		return slices.Contains(modeltest.Names(queueOf(s, p)), n)
	})
}
