package zkview

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
)

// TestDuplicateParticipantReal: two LeaderLatch participants with one
// participant id from two sessions (the node a reconnect leaves beside
// the old one) are warned of; two whose data is Curator's default IP are
// not.
func TestDuplicateParticipantReal(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	s1, s2 := rawConn(t, c.Servers()), rawConn(t, c.Servers())
	mkdirs(t, s1, p)
	latch := func(conn *zk.Conn, uuid, data string) string {
		t.Helper()
		got, err := conn.Create(p+"/_c_"+uuid+"-latch-", []byte(data), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatalf("create latch node: %v", err)
		}
		return got[len(p)+1:]
	}
	first := latch(s1, "11111111-1111-1111-1111-111111111111", "worker-7")
	latch(s1, "33333333-3333-3333-3333-333333333333", "10.0.0.7")
	latch(s2, "44444444-4444-4444-4444-444444444444", "10.0.0.7")
	again := latch(s2, "22222222-2222-2222-2222-222222222222", "worker-7")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	snap, err := Load(ctx, session(t, c.Servers()), Options{Paths: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	q := queueOf(snap, p)
	if q == nil || q.Type != model.TypeElection {
		t.Fatalf("queue %s: %+v, want an election", p, q)
	}
	var got [][]string
	for _, w := range q.Warnings() {
		if w.Code == model.WarnDuplicateParticipant {
			got = append(got, w.Nodes)
			t.Logf("%s: %s", w.Code, w.Message)
		}
	}
	if want := [][]string{{first, again}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("duplicate-participant nodes %v, want %v", got, want)
	}
}

// TestDuplicateParticipantWatched: in an election the config names
// (mutex nodes, as Curator's LeaderSelector with an id writes them), a
// participant that joins again from a second session while watched is
// warned of (the Watcher's change-by-change build too), and the warning
// clears when the old node goes.
func TestDuplicateParticipantWatched(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	s1, s2 := rawConn(t, c.Servers()), rawConn(t, c.Servers())
	mkdirs(t, s1, p)
	create := func(conn *zk.Conn, uuid, data string) string {
		t.Helper()
		got, err := conn.Create(p+"/_c_"+uuid+"-lock-", []byte(data), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatalf("create lock node: %v", err)
		}
		return got
	}
	old := create(s1, "11111111-1111-1111-1111-111111111111", "svc-a")
	create(s1, "22222222-2222-2222-2222-222222222222", "svc-b")
	w := watch(t, session(t, c.Servers()), Options{Paths: []string{p}, Elections: []string{p}})
	dups := func(s *model.Snapshot) int {
		q, n := queueOf(s, p), 0
		for _, x := range q.Warnings() {
			if x.Code == model.WarnDuplicateParticipant {
				n++
			}
		}
		return n
	}
	waitFor(t, w, 30*time.Second, "an election of two, no duplicate", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Type == model.TypeElection && q.Nodes.Len() == 2 && dups(s) == 0
	})
	create(s2, "33333333-3333-3333-3333-333333333333", "svc-a")
	waitFor(t, w, 30*time.Second, "duplicate-participant on the rejoin", func(s *model.Snapshot) bool {
		return queueOf(s, p).Nodes.Len() == 3 && dups(s) == 1
	})
	if err := s1.Delete(old, -1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, 30*time.Second, "duplicate-participant cleared", func(s *model.Snapshot) bool {
		return queueOf(s, p).Nodes.Len() == 2 && dups(s) == 0
	})
}
