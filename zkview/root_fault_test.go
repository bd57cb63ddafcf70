package zkview

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// The fault suite for a root watched whole: the one recursive watch
// survives the ensemble's leader dying and the session expiring; each
// time the tree is read again, and the picture after it is a fresh
// read's, changes made during the fault included.

// listings is how many children listings the Watcher sent so far.
func listings(rc *requestCounter) int {
	_, byOp := rc.requests()
	return byOp[opGetChildren2]
}

// TestRootLeaderKilled: in a 3-member ensemble the leader dies; the
// Watcher of a root of 300 parents loses its link (a follower drops its
// clients while the ensemble has no leader; the leader drops them by
// dying), finds it again, lists every path of the tree again, and shows
// what a fresh read shows, the changes made meanwhile included.
func TestRootLeaderKilled(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Members: 3, TickTime: 100 * time.Millisecond})
	root := testPath(t)
	writer := rawConn(t, c.Servers())
	tr := makeEntityTree(t, writer, root, 300, 3)
	rc := &requestCounter{}
	mon := session(t, c.Servers(), lockops.WithDialer(rc.dialer()))
	fresh := session(t, c.Servers()) // fresh reads, not counted
	w := watch(t, mon, Options{Roots: []string{root}})
	converge(t, freshPicture(t, fresh, root), w)
	before := listings(rc)
	if before < len(tr.parents) {
		t.Fatalf("%d listings for %d parents", before, len(tr.parents))
	}

	leader, err := c.Leader(tctx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Members()[leader].Kill(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "disconnected event", func() bool { return hasConnEvent(w, "disconnected") })
	// Changes as soon as the others have elected a new leader.
	eventually(t, 30*time.Second, "a write after the election", func() bool {
		_, err := writer.Create(root+"/g0/after-kill", nil, 0, zk.WorldACL(zk.PermAll))
		return err == nil || err == zk.ErrNodeExists
	})
	tr.parents[root+"/g0/after-kill"] = nil
	churnEntities(t, writer, tr, rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1)), 60)

	waitFor(t, w, 30*time.Second, "reconnected", func(s *model.Snapshot) bool {
		return s.Conn.State == model.StateConnected && !s.Stale
	})
	converge(t, freshPicture(t, fresh, root), w)
	// Read again: every path listed once more (at least), not guessed.
	if again := listings(rc) - before; again < len(tr.parents) {
		t.Errorf("%d listings after the failover for %d parents: the tree was not read again", again, len(tr.parents))
	} else {
		t.Logf("%d listings after the failover, %d before", again, before)
	}
	if _, byOp := rc.requests(); byOp[opAddWatch] != 1 {
		t.Errorf("%d addWatch requests: the watch was set again by hand in the same session", byOp[opAddWatch])
	}
	checkProgressCounts(t, w.Watcher)
}

// TestRootSessionExpiry: the link is cut for longer than the session
// timeout; the server expires the session and its watch. The Watcher
// makes a new session, sets the root's watch again, reads the tree once
// more and shows what a fresh read shows; a change after it is seen.
func TestRootSessionExpiry(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	proxy, err := sandbox.NewProxy(c.Servers()[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	writer := rawConn(t, c.Servers())
	tr := makeEntityTree(t, writer, root, 300, 3)
	rc := &requestCounter{}
	mon := session(t, []string{proxy.Addr()}, lockops.WithSessionTimeout(1500*time.Millisecond), lockops.WithDialer(rc.dialer()))
	fresh := session(t, c.Servers())
	w := watch(t, mon, Options{Roots: []string{root}})
	converge(t, freshPicture(t, fresh, root), w)
	first := mon.ID()

	proxy.Cut()
	waitFor(t, w, 10*time.Second, "expired", func(s *model.Snapshot) bool { return s.Conn.State == model.StateExpired && s.Stale })
	churnEntities(t, writer, tr, rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2)), 60)
	eventually(t, 10*time.Second, "server dropped the session", func() bool {
		out, err := fourletter.Ask(tctx(t, 5*time.Second), c.Servers()[0], "dump")
		return err == nil && !strings.Contains(out, fmt.Sprintf("0x%x\n", first))
	})
	before := listings(rc)
	proxy.Restore()
	waitFor(t, w, 15*time.Second, "new session", func(s *model.Snapshot) bool {
		return s.Conn.State == model.StateConnected && s.Conn.SessionID != first
	})
	converge(t, freshPicture(t, fresh, root), w)
	if again := listings(rc) - before; again < len(tr.parents) {
		t.Errorf("%d listings in the new session for %d parents: the tree was not read again", again, len(tr.parents))
	}
	if !hasConnEvent(w, "expired") || !hasConnEvent(w, "new session") {
		t.Errorf("conn events: %+v", w.events())
	}
	// The watch is set again: a new parent is seen.
	np := root + "/g1/e99999"
	if _, err := makeParent(writer, np, 10); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, 10*time.Second, "a parent made after the expiry", func(s *model.Snapshot) bool {
		q := queueOf(s, np)
		return q != nil && q.Nodes.Len() == 1
	})
	checkProgressCounts(t, w.Watcher)
}
