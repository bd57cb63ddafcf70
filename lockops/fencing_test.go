package lockops

import (
	"context"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

// holdToken is one hold's fencing token beside the node's czxid as
// another session reads it from ZooKeeper.
type holdToken struct {
	what  string
	token int64
	czxid int64
	seq   int32 // -1: none
}

// readCzxidOf reads node p's czxid through session s (synced first: s may
// sit on a member that has not applied the create yet).
func readCzxidOf(t *testing.T, s *Session, p string) int64 {
	t.Helper()
	if _, err := s.conn.Sync("/"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	ok, st, err := s.conn.Exists(s.Abs(p))
	if err != nil || !ok {
		t.Fatalf("exists %s: %v %v", p, ok, err)
	}
	return st.Czxid
}

// holdOnce takes l, records its token and the node's czxid, releases it.
func holdOnce(t *testing.T, ctx context.Context, check *Session, what string, l *Lock) holdToken {
	t.Helper()
	if err := l.Acquire(ctx); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	h := holdToken{what: what, token: l.FencingToken(), czxid: readCzxidOf(t, check, l.Path()+"/"+l.Node()), seq: -1}
	if n, ok := ordering.ParseName(l.Node()); ok {
		h.seq = n.Seq
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if got := l.FencingToken(); got != h.token {
		t.Fatalf("%s: token %d after the release, %d while held: want it kept", what, got, h.token)
	}
	return h
}

// checkTokens fails unless every token is its node's czxid and each is
// higher than the one before.
func checkTokens(t *testing.T, hs []holdToken) {
	t.Helper()
	for i, h := range hs {
		t.Logf("%-28s token %d czxid %d seq %d", h.what, h.token, h.czxid, h.seq)
		if h.token == 0 || h.token != h.czxid {
			t.Errorf("%s: token %d, the node's czxid is %d", h.what, h.token, h.czxid)
		}
		if i > 0 && h.token <= hs[i-1].token {
			t.Errorf("%s: token %d not above %s's %d", h.what, h.token, hs[i-1].what, hs[i-1].token)
		}
	}
}

// TestFencingTokenAcrossRecipes: every hold's token is its node's czxid
// as ZooKeeper reads it, and tokens grow from holder to holder: a queue
// of three handing over, then other recipes and kinds on the same parent
// (Kazoo names, read and write locks), then the parent deleted and made
// again, where sequence numbers start again from 0 but tokens do not.
func TestFencingTokenAcrossRecipes(t *testing.T) {
	ctx := tctx(t, 60*time.Second)
	check := connect(t)
	p := lockPath(t)
	var hs []holdToken

	// Three holders in a queue: b and c wait while a holds.
	a, b, c := NewLock(connect(t), p), NewLock(connect(t), p), NewLock(connect(t), p)
	if a.FencingToken() != 0 {
		t.Fatalf("token %d before the first hold", a.FencingToken())
	}
	if err := a.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	waits := make(chan error, 2)
	go func() { waits <- b.Acquire(ctx) }()
	eventually(t, 10*time.Second, "b queued", func() bool { return len(children(t, check, p)) == 2 })
	go func() { waits <- c.Acquire(ctx) }()
	eventually(t, 10*time.Second, "c queued", func() bool { return len(children(t, check, p)) == 3 })
	for _, l := range []*Lock{a, b, c} {
		if l != a {
			if err := <-waits; err != nil {
				t.Fatal(err)
			}
		}
		n, _ := ordering.ParseName(l.Node())
		h := holdToken{what: "queue holder", token: l.FencingToken(), czxid: readCzxidOf(t, check, p+"/"+l.Node()), seq: n.Seq}
		hs = append(hs, h)
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}

	hs = append(hs,
		holdOnce(t, ctx, check, "kazoo-style mutex", NewLock(connect(t), p, WithStyle(ordering.StyleKazoo))),
		holdOnce(t, ctx, check, "curator-style write lock", NewLock(connect(t), p, WithKind(ordering.KindWrite))),
		holdOnce(t, ctx, check, "curator-style read lock", NewLock(connect(t), p, WithKind(ordering.KindRead))),
	)

	// The parent deleted and made again: sequences restart, tokens do not.
	if err := check.conn.Delete(check.Abs(p), -1); err != nil {
		t.Fatalf("delete the parent: %v", err)
	}
	again := holdOnce(t, ctx, check, "after the parent's re-creation", NewLock(connect(t), p))
	if again.seq != 0 {
		t.Fatalf("sequence %d after the parent's re-creation: want it restarted at 0", again.seq)
	}
	checkTokens(t, append(hs, again))
}

// TestFencingTokenLeasesAndLatch: a LeaderLatch participant's token and
// both semaphore protocols' leases are their nodes' czxids, growing from
// one to the next.
func TestFencingTokenLeasesAndLatch(t *testing.T) {
	ctx := tctx(t, 60*time.Second)
	check := connect(t)
	base := lockPath(t)
	var hs []holdToken

	latch := NewLock(connect(t), base+"/latch", WithLatch())
	hs = append(hs, holdOnce(t, ctx, check, "latch participant", latch))

	for _, st := range []ordering.Style{ordering.StyleCurator, ordering.StyleKazoo} {
		m := NewSemaphore(connect(t), base+"/sem-"+st.String(), WithLimit(2), WithStyle(st))
		if m.FencingToken() != 0 {
			t.Fatalf("token %d before the first lease", m.FencingToken())
		}
		if err := m.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, holdToken{what: st.String() + " lease", token: m.FencingToken(), czxid: readCzxidOf(t, check, m.LeasePath()), seq: -1})
		if err := m.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	checkTokens(t, hs)
}

// TestFencingTokenAfterLostReply: a create whose answer is lost with the
// link is found again by its name; its token is still its node's czxid.
func TestFencingTokenAfterLostReply(t *testing.T) {
	ctx := tctx(t, 60*time.Second)
	check := connect(t)
	p := lockPath(t)
	s := connect(t)
	l := NewLock(s, p)
	if err := s.makePath(ctx, l.abs, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	c, found, err := l.parent().findOwn(ctx, "absent-", s.Generation())
	if err != nil || found {
		t.Fatalf("findOwn of nothing: %v %v %v", c, found, err)
	}
	// A node made by this session, its answer thrown away: what createNode
	// meets after a lost link.
	prefix := "_c_00000000-0000-4000-8000-000000000000-lock-"
	if _, err := s.conn.Create(l.abs+"/"+prefix, nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	c, found, err = l.parent().findOwn(ctx, prefix, s.Generation())
	if err != nil || !found {
		t.Fatalf("findOwn: %v %v", found, err)
	}
	czxid, found, err := readCzxid(ctx, s, c.abs, s.Generation())
	if err != nil || !found || czxid != readCzxidOf(t, check, p+"/"+c.node) {
		t.Fatalf("readCzxid %d (%v, %v), the node's czxid %d", czxid, found, err, readCzxidOf(t, check, p+"/"+c.node))
	}
}
