package cmd

import (
	"os"
	"testing"

	"github.com/zklock/zklock/third_party/zk"
)

// TestRunRefusesNotALock: `run` on a system's election (Solr's overseer)
// or its leader node (Kafka's controller) refuses in one line before it
// creates anything: the election keeps its candidates, the command never
// runs.
func TestRunRefusesNotALock(t *testing.T) {
	root := testPath(t)
	conns := []*zk.Conn{testConn(t), testConn(t)}
	plantSolr(t, root+"/solr", conns, 0)
	plantKafka(t, root+"/kafka", conns, 1)
	election := root + "/solr/overseer_elect/election"
	before, _, err := conns[0].Children(election)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, says string }{
		{election, "is solr overseer (solr), not a lock"},
		{root + "/kafka/controller", "is kafka controller (kafka), not a lock"},
	} {
		ran := t.TempDir() + "/ran"
		_, stderr, code := runBinary(t, nil, "run", serversFlag(t), c.path, "--", "touch", ran)
		assertOneLineFailure(t, stderr, code, c.says)
		if _, err := os.Stat(ran); err == nil {
			t.Errorf("run on %s ran the command", c.path)
		}
		if code != 1 {
			t.Errorf("run on %s: exit %d, want 1", c.path, code)
		}
	}
	after, _, err := conns[0].Children(election)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("the election had %d candidates, now %d: %v", len(before), len(after), after)
	}
}
