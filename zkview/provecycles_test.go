package zkview

import (
	"context"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/third_party/zk"
)

// TestLoadProvesCycleAge: a one-off read (Load) of a cross-lock cycle
// whose parents have had no child change since its newest node was made
// calls it a deadlock at once (their pzxid proves it has stood since),
// with nothing left for ConfirmCycles to wait for; once a parent has a
// child change after that node (a node made and deleted beside the
// cycle), one read proves nothing and the cycle is young.
func TestLoadProvesCycleAge(t *testing.T) {
	c := testCluster(t)
	base := testPath(t)
	a, b := base+"/a", base+"/b"
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, a)
	mkdirs(t, raw, b)
	sa, sb := rawConn(t, c.Servers()), rawConn(t, c.Servers())
	create := func(conn *zk.Conn, dir string) *zk.Stat {
		t.Helper()
		p, err := conn.Create(dir+"/lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatal(err)
		}
		_, st, err := conn.Get(p)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// A holds a and waits on b; B holds b and waits on a.
	create(sa, a)
	create(sb, b)
	create(sa, b)
	newest := create(sb, a)
	made := time.UnixMilli(newest.Ctime)
	// The cycle must have stood DeadlockAfter for one read to call it a
	// deadlock: wait for its age (the servers' clock), not for a read.
	eventually(t, 3*sessions.DeadlockAfter, "the cycle to come of age", func() bool {
		return time.Since(made) > sessions.DeadlockAfter+100*time.Millisecond
	})
	cfg := Options{Paths: []string{a, b}}
	mon := session(t, c.Servers())
	load := func() *model.Snapshot {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		s, err := Load(ctx, mon, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := load()
	if len(s.Deadlocks) != 1 || s.Deadlocks[0].State != model.CycleDeadlock {
		t.Fatalf("one read of a cycle that has stood %v: %+v", time.Since(made).Round(time.Millisecond), s.Deadlocks)
	}
	if since := s.Deadlocks[0].Since; !since.Equal(made) {
		t.Errorf("the deadlock dated %s, want its newest node's creation %s", since, made)
	}
	if young, _ := sessions.YoungCycles(s); young {
		t.Error("a proven deadlock left for a second read")
	}
	if same, err := ConfirmCycles(context.Background(), mon, cfg, s); err != nil || same != s {
		t.Errorf("ConfirmCycles read again (%v)", err)
	}
	// A child change on b after the cycle's newest node: one read can no
	// longer tell how long the cycle has stood.
	p, err := raw.Create(b+"/x", nil, 0, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Delete(p, -1); err != nil {
		t.Fatal(err)
	}
	s = load()
	if len(s.Deadlocks) != 1 || s.Deadlocks[0].State != model.CycleYoung {
		t.Fatalf("a cycle whose parent changed since: %+v, want young", s.Deadlocks)
	}
}
