package systems

import (
	"fmt"
	"path"
	"slices"
	"testing"
)

// solrOverseer is three Solr nodes joining the overseer election, the
// first leading and recorded (LeaderElector.java joinElection,
// OverseerElectionContext.java runLeaderProcess).
func solrOverseer(sessions []int64) ([]spec, []string) {
	nodes := []string{"10.0.0.1:8983_solr", "10.0.0.2:8983_solr", "10.0.0.3:8983_solr"}
	var specs []spec
	for i, n := range nodes {
		specs = append(specs, solrCandidate("/solr/overseer_elect", sessions, i, n))
	}
	return specs, nodes
}

func TestSolrOverseer(t *testing.T) {
	specs, nodes := solrOverseer(fakeSessions)
	tree := NewMemTree()
	made := memBuild(tree, fakeSessions, specs...)
	head := made[0][len("/solr/overseer_elect/election/"):]
	memBuild(tree, fakeSessions, solrOverseerRecord("/solr", 0, head))

	rec := recognizeOne(t, tree, "/solr/overseer_elect/election")
	want := []string{nodes[0] + ":holder", nodes[1] + ":waiting", nodes[2] + ":waiting"}
	if rec.System != Solr || rec.Label != "solr overseer" || !slices.Equal(roles(rec), want) || rec.Findings != nil {
		t.Fatalf("got %s %q %q %q", rec.System, rec.Label, roles(rec), findings(rec))
	}

	// Failover: the head's node goes, its session lives on and its record
	// lags behind: a mismatch naming both.
	tree.Delete(made[0])
	rec = recognizeOne(t, tree, "/solr/overseer_elect/election")
	next := made[1][len("/solr/overseer_elect/election/"):]
	if got, want := findings(rec), []string{"leader-mismatch: " + head + " / " + next}; !slices.Equal(got, want) {
		t.Errorf("lagging record: findings %q, want %q", got, want)
	}
	// The old record goes, the new leader has not written its own yet.
	tree.Delete("/solr/overseer_elect/leader")
	rec = recognizeOne(t, tree, "/solr/overseer_elect/election")
	if got, want := findings(rec), []string{"leader-mismatch:  / " + next}; !slices.Equal(got, want) {
		t.Errorf("missing record: findings %q, want %q", got, want)
	}
	memBuild(tree, fakeSessions, solrOverseerRecord("/solr", 1, next))
	rec = recognizeOne(t, tree, "/solr/overseer_elect/election")
	if rec.Findings != nil || rec.Participants[0].Identity != nodes[1] {
		t.Errorf("after the new record: %q %q", roles(rec), findings(rec))
	}
}

// TestSolrJoinAtHead: joinAtHead makes a plain ephemeral node with the
// sequence of the node second in line (LeaderElector.joinElection): two
// nodes share a sequence, Solr orders them by name, and one leads.
func TestSolrJoinAtHead(t *testing.T) {
	specs, _ := solrOverseer(fakeSessions)
	tree := NewMemTree()
	made := memBuild(tree, fakeSessions, specs...)
	second := made[1]
	var seq int64
	fmt.Sscanf(second[len(second)-10:], "%d", &seq)
	memBuild(tree, fakeSessions, ephemeral(fmt.Sprintf("/solr/overseer_elect/election/%d-10.0.0.4:8983_solr-n_%010d", fakeSessions[3], seq), 3, nil))
	rec := recognizeOne(t, tree, "/solr/overseer_elect/election")
	if len(rec.Holders()) != 1 || len(rec.Participants) != 4 {
		t.Fatalf("roles %q", roles(rec))
	}
	if rec.Participants[1].Seq != rec.Participants[2].Seq || rec.Participants[1].Name > rec.Participants[2].Name {
		t.Errorf("equal sequences not ordered by name: %q", roles(rec))
	}
}

func TestSolrShard(t *testing.T) {
	tree := NewMemTree()
	made := memBuild(tree, fakeSessions,
		solrCandidate("/collections/books/leader_elect/shard1", fakeSessions, 1, "core_node3"),
		solrCandidate("/collections/books/leader_elect/shard1", fakeSessions, 2, "core_node5"))
	memBuild(tree, fakeSessions, solrShardRecord("", "books", "shard1", 1, "core_node3", "10.0.0.2:8983_solr"))
	p := "/collections/books/leader_elect/shard1/election"
	rec := recognizeOne(t, tree, p)
	if rec.Label != "solr books/shard1" || rec.Record != "/collections/books/leaders/shard1/leader" || rec.Findings != nil {
		t.Fatalf("got %q %q %q", rec.Label, rec.Record, findings(rec))
	}
	if got, want := roles(rec), []string{"core_node3:holder", "core_node5:waiting"}; !slices.Equal(got, want) {
		t.Errorf("roles %q, want %q", got, want)
	}
	// The leader's node goes but its session keeps the record.
	tree.Delete(made[0])
	rec = recognizeOne(t, tree, p)
	if len(rec.Findings) != 1 || rec.Findings[0].ElectionSays != path.Base(made[1]) {
		t.Errorf("lagging shard record: %q", findings(rec))
	}
}

func TestSolrLookAlikes(t *testing.T) {
	tests := []struct {
		name  string
		specs []spec
		path  string
	}{
		{"session in the name is not the owner", []spec{ephSeq("/o/overseer_elect/election/12345-n1:8983_solr-n_", 0, nil)}, "/o/overseer_elect/election"},
		{"persistent candidates", []spec{persistent(fmt.Sprintf("/o/election/%d-n1-n_0000000001", fakeSessions[0]), nil)}, "/o/election"},
		{"a stranger among candidates", []spec{solrCandidate("/o", fakeSessions, 0, "n1"), ephemeral("/o/election/lock", 0, nil)}, "/o/election"},
		{"another directory name", []spec{ephSeq(fmt.Sprintf("/o/elect/%d-n1-n_", fakeSessions[0]), 0, nil)}, "/o/elect"},
		{"empty election in no Solr place", []spec{persistent("/o/elect/election", nil)}, "/o/elect/election"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if rec, ok := Recognize(mem(tt.specs...), tt.path); ok {
				t.Errorf("recognised as %s %q", rec.System, rec.Label)
			}
		})
	}
}
