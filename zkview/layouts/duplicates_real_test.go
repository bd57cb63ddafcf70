package layouts

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview"
)

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
	snap, err := zkview.Load(ctx, session(t, c.Servers()), zkview.Options{Paths: []string{p}, Systems: New})
	if err != nil {
		t.Fatal(err)
	}
	q := queueOf(snap, p)
	if q == nil || q.System() != "solr" {
		t.Fatalf("queue %s: %+v, want a solr election", p, q)
	}
	var got [][]string
	for _, w := range q.Warnings() {
		if w.Code == model.WarnDuplicateParticipant {
			got = append(got, w.Nodes)
		}
	}
	if want := [][]string{{first, again}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("duplicate-participant nodes %v, want %v (warnings %+v)", got, want, q.Warnings())
	}
}
