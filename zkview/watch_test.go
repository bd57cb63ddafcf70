package zkview

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/third_party/zk"
)

// TestQueueLifecycle: a queue of lockops Locks is shown in sequence order
// with its holder, sessions equal to each node's ephemeralOwner, and a
// release is told as a handoff.
func TestQueueLifecycle(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	ctx := tctx(t, 30*time.Second)
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Paths: []string{p}})
	waitFor(t, w, 10*time.Second, "absent path", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.State == model.PathAbsent
	})

	var locks []*lockops.Lock
	for i := range 3 {
		s := session(t, c.Servers())
		l := lockops.NewLock(s, p, lockops.WithData([]byte("client-"+string(rune('a'+i)))))
		if i == 0 {
			if err := l.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
		} else {
			go func() { _ = l.Acquire(ctx) }()
		}
		locks = append(locks, l)
		eventually(t, 10*time.Second, "node created", func() bool { return l.Node() != "" })
	}
	snap := waitFor(t, w, 10*time.Second, "three nodes", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.State == model.PathPresent && q.Nodes.Len() == 3
	})
	q := queueOf(snap, p)
	raw := rawConn(t, c.Servers())
	for i, n := range q.Nodes.All() {
		if n.Name != locks[i].Node() {
			t.Errorf("position %d: %s, want %s", i, n.Name, locks[i].Node())
		}
		_, st, err := raw.Get(p + "/" + n.Name)
		if err != nil {
			t.Fatal(err)
		}
		if n.Session != st.EphemeralOwner {
			t.Errorf("%s: session 0x%x, ephemeralOwner 0x%x", n.Name, n.Session, st.EphemeralOwner)
		}
		if want := "client-" + string(rune('a'+i)); string(n.Data()) != want {
			t.Errorf("%s: data %q, want %q", n.Name, n.Data(), want)
		}
		wantRole := ordering.RoleWaiting
		if i == 0 {
			wantRole = ordering.RoleHolder
		}
		if n.Role != wantRole || n.Believes != wantRole {
			t.Errorf("%s: role %v believes %v, want %v", n.Name, n.Role, n.Believes, wantRole)
		}
		if i > 0 && n.Watches() != q.Nodes.At(i-1).Name {
			t.Errorf("%s watches %q, want %q", n.Name, n.Watches(), q.Nodes.At(i-1).Name)
		}
		if i > 0 && (n.Link != model.LinkInferred || !n.SinceExact) {
			t.Errorf("%s: link %v exact %v", n.Name, n.Link, n.SinceExact)
		}
	}
	if len(q.Warnings()) != 0 {
		t.Errorf("healthy queue has warnings: %+v", q.Warnings())
	}

	first := locks[0].Node()
	if err := locks[0].Release(ctx); err != nil {
		t.Fatal(err)
	}
	snap = waitFor(t, w, 10*time.Second, "handoff", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Nodes.Len() == 2 && len(q.Handoffs()) > 0
	})
	q = queueOf(snap, p)
	h := q.Handoffs()[len(q.Handoffs())-1]
	if h.From != first || h.To != locks[1].Node() {
		t.Errorf("handoff %s -> %s, want %s -> %s", h.From, h.To, first, locks[1].Node())
	}
	if q.Nodes.At(0).Role != ordering.RoleHolder || !q.Nodes.At(0).SinceExact {
		t.Errorf("new holder: %+v", q.Nodes.At(0))
	}
	eventually(t, 5*time.Second, "handoff event", func() bool {
		for _, ev := range w.events() {
			if ev.Kind == model.ChangeAcquired && ev.Node.Name == locks[1].Node() && strings.Contains(ev.Text(), "gone →") {
				return true
			}
		}
		return false
	})
	for _, l := range locks[1:] {
		_ = l.Release(ctx)
	}
}

// TestAbsentAppearsVanishes: a missing path is absent, appears when
// created, and goes back to absent when deleted while watched.
func TestAbsentAppearsVanishes(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Paths: []string{p}})
	waitFor(t, w, 10*time.Second, "absent", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.State == model.PathAbsent
	})
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	n := createSeq(t, raw, p, "lock-", []byte("x"))
	waitFor(t, w, 10*time.Second, "appeared with node", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.State == model.PathPresent && slices.Equal(modeltest.Names(q), []string{n})
	})
	if err := raw.Delete(p+"/"+n, -1); err != nil {
		t.Fatal(err)
	}
	if err := raw.Delete(p, -1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, 10*time.Second, "absent again", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.State == model.PathAbsent && q.Nodes.Len() == 0
	})
	mkdirs(t, raw, p)
	waitFor(t, w, 10*time.Second, "present again", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.State == model.PathPresent
	})
}

// TestNoAuth: a parent whose ACL the Watcher cannot read is PathNoAuth
// with the error (`ls` says "no permission": cmd's
// TestWriteLsTextPathStates).
func TestNoAuth(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p[:strings.LastIndexByte(p, '/')])
	if err := raw.AddAuth("digest", []byte("owner:secret")); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Create(p, nil, 0, zk.DigestACL(zk.PermAll, "owner", "secret")); err != nil {
		t.Fatal(err)
	}
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Paths: []string{p}})
	snap := waitFor(t, w, 10*time.Second, "noauth", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.State == model.PathNoAuth
	})
	if q := queueOf(snap, p); !strings.Contains(q.Err(), "not authenticated") && !strings.Contains(q.Err(), "auth") {
		t.Errorf("noauth error %q does not say why", q.Err())
	}
	// With the credentials the same path reads.
	authed := session(t, c.Servers(), lockops.WithDigestAuth("owner", "secret"))
	w2 := watch(t, authed, Options{Paths: []string{p}})
	waitFor(t, w2, 10*time.Second, "present with auth", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.State == model.PathPresent
	})
}
