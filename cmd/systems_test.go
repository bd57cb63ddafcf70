package cmd

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
)

// The systems' layouts, planted as each system's source writes them
// (names, modes, data bytes; the sources are cited in systems/*.go and
// systems/layouts_test.go): what `ls` must name and check.

var openACL = zk.WorldACL(zk.PermAll)

// plantSolr is the overseer election under root (LeaderElector.joinElection:
// <sessionId>-<nodeName>-n_ EPHEMERAL_SEQUENTIAL, no data) with one
// candidate per conn, and the leader record
// (OverseerElectionContext: EPHEMERAL /overseer_elect/leader, {"id": name})
// naming candidate recordFor. It returns the election nodes' names.
func plantSolr(t *testing.T, root string, conns []*zk.Conn, recordFor int) []string {
	t.Helper()
	mkdirs(t, conns[0], root+"/overseer_elect/election", nil)
	var names []string
	for i, c := range conns {
		prefix := fmt.Sprintf("%d-10.0.0.%d:8983_solr-n_", c.SessionID(), i+1)
		names = append(names, createNode(t, c, root+"/overseer_elect/election", prefix, ""))
	}
	rec := fmt.Appendf(nil, "{\n  \"id\":%q}", names[recordFor])
	if _, err := conns[recordFor].Create(root+"/overseer_elect/leader", rec, zk.FlagEphemeral, openACL); err != nil {
		t.Fatal(err)
	}
	return names
}

// plantKafka is brokers registering (ephemeral JSON v5) and the controller
// (ephemeral JSON, in a multi with the epoch; KafkaZkClient.scala:103-160).
func plantKafka(t *testing.T, root string, conns []*zk.Conn, controller int) {
	t.Helper()
	mkdirs(t, conns[0], root+"/brokers/ids", nil)
	if _, err := conns[0].Create(root+"/controller_epoch", []byte("7"), 0, openACL); err != nil {
		t.Fatal(err)
	}
	for i, c := range conns {
		id := i + 1
		data := fmt.Appendf(nil, `{"features":{},"endpoints":["PLAINTEXT://kafka%d.example:9092"],"jmx_port":-1,"port":9092,"host":"kafka%d.example","version":5,"timestamp":"1700000000000"}`, id, id)
		if _, err := c.Create(fmt.Sprintf("%s/brokers/ids/%d", root, id), data, zk.FlagEphemeral, openACL); err != nil {
			t.Fatal(err)
		}
	}
	data := fmt.Appendf(nil, `{"version":2,"brokerid":%d,"timestamp":"1700000000000","kraftControllerEpoch":-1}`, controller)
	if _, err := conns[0].Create(root+"/controller", data, zk.FlagEphemeral, openACL); err != nil {
		t.Fatal(err)
	}
}

// pbString appends protobuf field n as a string; pbUint as a varint.
func pbString(b []byte, n int, s string) []byte {
	b = binary.AppendUvarint(b, uint64(n)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func pbUint(b []byte, n int, v uint64) []byte {
	return binary.AppendUvarint(binary.AppendUvarint(b, uint64(n)<<3), v)
}

// activeNodeInfo is HAZKInfo.proto ActiveNodeInfo as the HDFS ZKFC writes it.
func activeNodeInfo(ns, nn, host string) []byte {
	b := pbString(pbString(pbString(nil, 1, ns), 2, nn), 3, host)
	return pbUint(pbUint(b, 4, 8020), 5, 8019)
}

// plantHadoop is ActiveStandbyElector's lock (EPHEMERAL, appData) held by
// conn and its breadcrumb (PERSISTENT) naming crumb.
func plantHadoop(t *testing.T, dir string, c *zk.Conn, active, crumb string) {
	t.Helper()
	mkdirs(t, c, dir, nil)
	if _, err := c.Create(dir+"/ActiveStandbyElectorLock", activeNodeInfo("ns1", active, active+".example"), zk.FlagEphemeral, openACL); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(dir+"/ActiveBreadCrumb", activeNodeInfo("ns1", crumb, crumb+".example"), 0, openACL); err != nil {
		t.Fatal(err)
	}
}

// lsSystemsJSON runs `ls --json` with args and decodes it.
func lsSystemsJSON(t *testing.T, args ...string) map[string]model.JSONPath {
	t.Helper()
	out, errOut, code := runBinary(t, nil, append([]string{serversFlag(t), "ls", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("ls --json %v: code %d, stderr %q\n%s", args, code, errOut, out)
	}
	return decodeLsJSON(t, out)
}

// holders lists the identities of a path's nodes with role holder.
func holders(p model.JSONPath) []string {
	var out []string
	for _, n := range p.Queue {
		if n.Role == "holder" {
			out = append(out, n.Identity)
		}
	}
	return out
}

// TestLsSystems: one `ls --root` finds a Solr overseer election, a Kafka
// controller and an HDFS failover controller, names each system, its
// holder and every participant's identity, with no warning while the
// records agree; `ls --check` is 0.
func TestLsSystems(t *testing.T) {
	root := testPath(t)
	conns := []*zk.Conn{testConn(t), testConn(t), testConn(t)}
	names := plantSolr(t, root+"/solr", conns, 0)
	plantKafka(t, root+"/kafka", conns, 2)
	plantHadoop(t, root+"/hadoop-ha/ns1", conns[1], "nn2", "nn2")

	got := lsSystemsJSON(t, "--check", "--root", root)
	solr, kafka, hdfs := got[root+"/solr/overseer_elect/election"], got[root+"/kafka/controller"], got[root+"/hadoop-ha/ns1"]
	if solr.System != "solr" || solr.Label != "solr overseer" || solr.Type != "election" || len(solr.Queue) != 3 {
		t.Fatalf("solr: %+v", solr)
	}
	for i, n := range solr.Queue {
		if n.Node != names[i] || n.Identity != fmt.Sprintf("10.0.0.%d:8983_solr", i+1) {
			t.Errorf("solr node %d: %s %q", i, n.Node, n.Identity)
		}
	}
	if h := holders(solr); len(h) != 1 || h[0] != "10.0.0.1:8983_solr" {
		t.Errorf("solr holders %q", h)
	}
	if kafka.System != "kafka" || kafka.Label != "kafka controller" || kafka.Type != "election" {
		t.Errorf("kafka: %+v", kafka)
	}
	if h := holders(kafka); len(h) != 1 || h[0] != "broker 2" {
		t.Errorf("kafka holders %q", h)
	}
	if hdfs.System != "hadoop-ha" || hdfs.Label != "hdfs ns1" {
		t.Errorf("hdfs: %+v", hdfs)
	}
	if h := holders(hdfs); len(h) != 1 || h[0] != "nn2 nn2.example:8020" {
		t.Errorf("hdfs holders %q", h)
	}
	for _, p := range []model.JSONPath{solr, kafka, hdfs} {
		if len(p.Warnings) != 0 {
			t.Errorf("%s: warnings %+v", p.Path, p.Warnings)
		}
	}

	// sessions names each participant's session by its identity.
	out, errOut, code := runBinary(t, nil, serversFlag(t), "sessions", "--json", "--root", root)
	if code != 0 {
		t.Fatalf("sessions --json: code %d, stderr %q", code, errOut)
	}
	var ss struct {
		Sessions []struct{ Session, Identity string }
	}
	if err := json.Unmarshal([]byte(out), &ss); err != nil {
		t.Fatal(err)
	}
	idents := map[string]string{}
	for _, s := range ss.Sessions {
		idents[s.Session] = s.Identity
	}
	if got := idents[fmt.Sprintf("0x%x", conns[2].SessionID())]; got != "10.0.0.3:8983_solr" {
		t.Errorf("sessions: identity of the third candidate %q (all %v)", got, idents)
	}

	// The text names the system and the identities.
	text, _, code := runBinary(t, nil, serversFlag(t), "ls", "--root", root)
	if code != 0 || !strings.Contains(text, "(solr overseer)") || !strings.Contains(text, "IDENTITY") || !strings.Contains(text, "broker 2") {
		t.Errorf("ls text, code %d:\n%s", code, text)
	}
}

// TestLsCheckLeaderMismatch: a record that lags (Solr's names a
// candidate that is not the head; the HDFS breadcrumb names the old
// active) is a leader-mismatch naming both sides; `ls --check` reads
// again once it would have lasted 10 s and fails with 2.
func TestLsCheckLeaderMismatch(t *testing.T) {
	root := testPath(t)
	conns := []*zk.Conn{testConn(t), testConn(t)}
	names := plantSolr(t, root+"/solr", conns, 1)
	plantHadoop(t, root+"/hadoop-ha/ns1", conns[0], "nn2", "nn1")

	got := lsSystemsJSON(t, "--root", root)
	solr, hdfs := got[root+"/solr/overseer_elect/election"], got[root+"/hadoop-ha/ns1"]
	if len(solr.Warnings) != 1 || solr.Warnings[0].Code != model.WarnLeaderMismatch || solr.Warnings[0].Since == "" {
		t.Fatalf("solr warnings %+v", solr.Warnings)
	}
	w := solr.Warnings[0]
	if !strings.Contains(w.Message, names[1]) || !strings.Contains(w.Message, names[0]) {
		t.Errorf("solr mismatch names not both sides: %q", w.Message)
	}
	if len(w.Nodes) != 2 || w.Nodes[0] != root+"/solr/overseer_elect/leader" || w.Nodes[1] != path.Join(root, "solr/overseer_elect/election", names[0]) {
		t.Errorf("solr mismatch nodes %q", w.Nodes)
	}
	if len(hdfs.Warnings) != 1 || !strings.Contains(hdfs.Warnings[0].Message, "nn1") || !strings.Contains(hdfs.Warnings[0].Message, "nn2") {
		t.Errorf("hdfs warnings %+v", hdfs.Warnings)
	}

	out, errOut, code := runBinary(t, nil, serversFlag(t), "ls", "--check", "--root", root)
	if code != exitCheck || !strings.Contains(errOut, model.WarnLeaderMismatch) {
		t.Fatalf("ls --check: code %d, stderr %q\n%s", code, errOut, out)
	}
}
