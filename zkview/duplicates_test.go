package zkview

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
)

// TestDuplicateWarnings: an identity with nodes of two sessions in an
// election is warned of, with its nodes; one session's two nodes, empty
// data, Curator's default IP data, persistent nodes and non-elections
// are not.
func TestDuplicateWarnings(t *testing.T) {
	n := func(name string, session int64, data string) model.Node {
		return model.Node{Name: name, Session: session, Data: []byte(data), DataLen: int32(len(data))}
	}
	sys := func(name string, session int64, id string) model.Node {
		x := n(name, session, "")
		x.Identity = id
		return x
	}
	at := func(x model.Node, client string) model.Node {
		x.Client = client
		return x
	}
	cut := n("d", 2, "long-id")
	cut.DataLen = 900
	tests := []struct {
		name  string
		typ   model.QueueType
		nodes []model.Node
		want  [][]string // nodes of each warning
	}{
		{"two sessions", model.TypeElection, []model.Node{n("a", 1, "w1"), n("b", 2, "w2"), n("c", 3, "w1")}, [][]string{{"a", "c"}}},
		{"three nodes two sessions", model.TypeElection, []model.Node{n("a", 1, "w1"), n("b", 2, "w1"), n("c", 2, "w1")}, [][]string{{"a", "b", "c"}}},
		{"two identities", model.TypeElection, []model.Node{n("a", 1, "w1"), n("b", 1, "w2"), n("c", 2, "w2"), n("d", 2, "w1")}, [][]string{{"a", "d"}, {"b", "c"}}},
		{"one session", model.TypeElection, []model.Node{n("a", 1, "w1"), n("b", 1, "w1")}, nil},
		{"empty data", model.TypeElection, []model.Node{n("a", 1, ""), n("b", 2, "")}, nil},
		{"curator default IP", model.TypeElection, []model.Node{n("a", 1, "10.1.2.3"), n("b", 2, "10.1.2.3")}, nil},
		{"IPv6", model.TypeElection, []model.Node{n("a", 1, "fe80::1"), n("b", 2, "fe80::1")}, nil},
		{"persistent", model.TypeElection, []model.Node{n("a", 0, "w1"), n("b", 2, "w1")}, nil},
		{"mutex by data", model.TypeMutex, []model.Node{n("a", 1, "w1"), n("b", 2, "w1")}, nil},
		{"system identity", model.TypeElection, []model.Node{sys("a", 1, "broker 1"), sys("b", 2, "broker 1")}, [][]string{{"a", "b"}}},
		{"data cut short differs", model.TypeElection, []model.Node{cut, n("e", 3, "long-id")}, nil},
		{"two hosts: not one participant", model.TypeElection, []model.Node{at(n("a", 1, "svc"), "10.0.0.1:4000"), at(n("b", 2, "svc"), "10.0.0.2:4000")}, nil},
		{"one host", model.TypeElection, []model.Node{at(n("a", 1, "svc"), "10.0.0.1:4000"), at(n("b", 2, "svc"), "10.0.0.1:4100")}, [][]string{{"a", "b"}}},
		{"old session's client gone", model.TypeElection, []model.Node{n("a", 1, "svc"), at(n("b", 2, "svc"), "10.0.0.1:4100")}, [][]string{{"a", "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := []model.Warning{{Code: model.WarnDuplicateParticipant, Nodes: []string{"gone"}}, {Code: model.WarnHerd}}
			q := model.Queue{Type: tt.typ, Nodes: model.NodesOf(tt.nodes...), Warnings: old}
			duplicateParticipants(&q)
			var got [][]string
			for _, w := range q.Warnings {
				if w.Code == model.WarnDuplicateParticipant {
					got = append(got, w.Nodes)
				}
			}
			if !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("duplicate-participant nodes %v, want %v", got, tt.want)
			}
			if !slices.ContainsFunc(q.Warnings, func(w model.Warning) bool { return w.Code == model.WarnHerd }) {
				t.Errorf("other warnings lost: %v", q.Warnings)
			}
			if old[0].Code != model.WarnDuplicateParticipant || len(old) != 2 {
				t.Errorf("the queue's old warnings were altered: %v", old)
			}
		})
	}
}

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
	snap, err := Load(ctx, session(t, c.Servers()), Config{Paths: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	q := queueOf(snap, p)
	if q == nil || q.Type != model.TypeElection {
		t.Fatalf("queue %s: %+v, want an election", p, q)
	}
	var got [][]string
	for _, w := range q.Warnings {
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
	w := watch(t, session(t, c.Servers()), Config{Paths: []string{p}, Elections: []string{p}})
	dups := func(s *model.Snapshot) int {
		q, n := queueOf(s, p), 0
		for _, x := range q.Warnings {
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

// TestDuplicateParticipantSystem: a Solr overseer candidate registered
// from two sessions (one node name, the identity Solr's layout gives) is
// warned of, judged by the system's identities.
func TestDuplicateParticipantSystem(t *testing.T) {
	c := testCluster(t)
	p := testPath(t) + "/overseer_elect/election"
	s1, s2 := rawConn(t, c.Servers()), rawConn(t, c.Servers())
	mkdirs(t, s1, p)
	candidate := func(conn *zk.Conn, name string) string {
		t.Helper()
		got, err := conn.Create(fmt.Sprintf("%s/%d-%s-n_", p, conn.SessionID(), name), nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			t.Fatalf("create candidate: %v", err)
		}
		return got[len(p)+1:]
	}
	first := candidate(s1, "10.0.0.5:8983_solr")
	candidate(s1, "10.0.0.6:8983_solr")
	again := candidate(s2, "10.0.0.5:8983_solr")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	snap, err := Load(ctx, session(t, c.Servers()), Config{Paths: []string{p}, Systems: true})
	if err != nil {
		t.Fatal(err)
	}
	q := queueOf(snap, p)
	if q == nil || q.System != "solr" {
		t.Fatalf("queue %s: %+v, want a solr election", p, q)
	}
	var got [][]string
	for _, w := range q.Warnings {
		if w.Code == model.WarnDuplicateParticipant {
			got = append(got, w.Nodes)
		}
	}
	if want := [][]string{{first, again}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("duplicate-participant nodes %v, want %v (warnings %+v)", got, want, q.Warnings)
	}
}
