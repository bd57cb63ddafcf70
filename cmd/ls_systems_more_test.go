package cmd

import (
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
)

// sysWant is what `ls --json` must say of one system's path: its
// system, label and type, and each node as "identity:role" in order.
type sysWant struct {
	system, label, typ string
	nodes              []string
}

// nodeRoles lists a path's nodes as "identity:role".
func nodeRoles(p model.JSONPath) []string {
	var out []string
	for _, n := range p.Queue {
		out = append(out, n.Identity+":"+n.Role)
	}
	return out
}

// checkSystems compares got's paths under root with want (keyed by the
// path below root) and says which differ; no path may warn.
func checkSystems(t *testing.T, got map[string]model.JSONPath, root string, want map[string]sysWant) {
	t.Helper()
	for rel, w := range want {
		p, ok := got[root+rel]
		if !ok {
			t.Errorf("%s: not in ls --json", rel)
			continue
		}
		if p.System != w.system || p.Label != w.label || p.Type != w.typ {
			t.Errorf("%s: system %q label %q type %q, want %q %q %q", rel, p.System, p.Label, p.Type, w.system, w.label, w.typ)
		}
		if n := nodeRoles(p); !slices.Equal(n, w.nodes) {
			t.Errorf("%s: nodes %q, want %q", rel, n, w.nodes)
		}
		if len(p.Warnings) != 0 {
			t.Errorf("%s: warnings %+v", rel, p.Warnings)
		}
	}
}

// TestLsSystemsMore plants HBase, ClickHouse (its election in
// multi-leader mode, its DDL queue and shard lock, a zero-copy lock),
// YARN (both electors), Druid, Storm, Flink, NiFi, Pulsar, Helix, Mesos
// and Marathon under one root; one `ls --check --json` names each
// system, label, type, role and identity, with no warning and exit 0.
func TestLsSystemsMore(t *testing.T) {
	root := testPath(t)
	conns := []*zk.Conn{testConn(t), testConn(t), testConn(t)}
	plantHBase(t, root+"/hbase", conns)
	entries := plantClickHouse(t, root+"/clickhouse", conns)
	plantOthers(t, root, conns)
	// Past the missing-watch grace (a second after a node is made), so
	// that the check judges every wait in one read, as on a cluster whose
	// nodes are older than that. Without it the run raced the grace: CI
	// under load once got past it and caught HBase's readers judged by the
	// recipe's order (read-1 "waiting" on read-0) instead of HBase's.
	time.Sleep(1500 * time.Millisecond)

	got := lsSystemsJSON(t, "--check", "--root", root)
	q1, q2 := path.Base(entries[0]), path.Base(entries[1])
	const hbaseOwner = "hm1.example,16000,1700000000000 alter"
	checkSystems(t, got, root, map[string]sysWant{
		"/hbase/master": {"hbase", "hbase master", "election",
			[]string{"hm1.example,16000,1700000000001:holder", "hm2.example,16000,1700000000002:waiting"}},
		"/hbase/table-lock/orders": {"hbase", "hbase table orders", "rwlock",
			[]string{"rs1.example,16000,1700000000000 scan:holder", "rs2.example,16000,1700000000000 scan:holder", hbaseOwner + ":waiting"}},
		"/clickhouse/tables/01/hits/leader_election": {"clickhouse", "clickhouse hits", "election",
			[]string{"replica1:holder", "replica2:holder"}},
		"/clickhouse/task_queue/ddl": {"clickhouse", "clickhouse ddl queue", "queue",
			[]string{"0 active, 2/2 finished:waiting", "1 active, 0/2 finished: ch1:9000:holder"}},
		"/clickhouse/task_queue/ddl/" + q2 + "/shards/ch1:9000,ch2:9000/lock": {"clickhouse", "clickhouse ddl " + q2 + " shard", "mutex",
			[]string{"ch1:9000:holder"}},
		"/clickhouse/zero_copy/zero_copy_s3/4f1e9a52-6c1b-4b49-9f5e-3a1c0d2b7e61/all_0_5_1/part_exclusive_lock": {"clickhouse",
			"clickhouse zero-copy all_0_5_1", "mutex", []string{"replica2:holder"}},
		"/yarn-leader-election/yc1":       {"hadoop-ha", "yarn yc1", "election", []string{"rm1:holder"}},
		"/yarn2/yarn-leader-election/yc2": {"hadoop-ha", "yarn yc2", "election", []string{"rm1:holder", "rm2:waiting"}},
		"/druid/coordinator/_COORDINATOR": {"druid", "druid coordinator", "election",
			[]string{"http://c1.example:8081:holder", "http://c2.example:8081:waiting"}},
		"/druid/overlord/_OVERLORD": {"druid", "druid overlord", "election", []string{"http://o1.example:8090:holder"}},
		"/storm/leader-lock": {"storm", "storm nimbus", "election",
			[]string{"nimbus1.example:6627:holder", "nimbus2.example:6627:waiting"}},
		"/flink/fc1/leader/latch": {"flink", "flink fc1", "election", []string{"http://jm1.example:8081:holder", ":waiting"}},
		"/nifi/leaders/Cluster Coordinator": {"nifi", "nifi cluster coordinator", "election",
			[]string{"nifi1.example:11443:holder", "nifi2.example:11443:waiting"}},
		"/nifi/leaders/Primary Node":   {"nifi", "nifi primary node", "election", []string{"nifi1.example:11443:holder"}},
		"/pulsar/loadbalance/leader":   {"pulsar", "pulsar load balancer", "election", []string{"b1.example:8080:holder"}},
		"/helix/cl1/CONTROLLER/LEADER": {"helix", "helix controller cl1", "election", []string{"ctrl1.example_9000:holder"}},
		"/mesos":                       {"mesos", "mesos master", "election", []string{"m1.example:5050:holder", "m2.example:5050:waiting"}},
		"/marathon/leader-curator": {"marathon", "marathon leader", "election",
			[]string{"marathon1.example:8080:holder", "marathon2.example:8080:waiting"}},
	})
	if t.Failed() {
		t.Logf("entries %s %s", q1, q2)
	}
}

// TestLsSystemsFailover: ls --json follows each system's change. HBase:
// the active master's session ends, the backup takes over (its backup
// node deleted, ActiveMasterManager) and the readers' table lock passes
// to the writer. YARN: the active RM's session ends and the standby
// takes the lock while the breadcrumb still names rm1 (a lagging record:
// leader-mismatch with since), until it fences and rewrites it. Flink:
// the latch passes, the new leader is nameless until it publishes its
// connection_info. ClickHouse: the executing host finishes the entry
// (active/ removed, finished/ made in one multi) and frees its lock.
func TestLsSystemsFailover(t *testing.T) {
	root := testPath(t)
	conns := []*zk.Conn{testConn(t), testConn(t), testConn(t)}
	plantHBase(t, root+"/hbase", conns)
	entries := plantClickHouse(t, root+"/clickhouse", conns[1:])
	yarn := root + "/yarn-leader-election/yc1"
	create(t, conns[0], yarn+"/ActiveStandbyElectorLock", activeRMInfo("yc1", "rm1"), zk.FlagEphemeral)
	create(t, conns[0], yarn+"/ActiveBreadCrumb", activeRMInfo("yc1", "rm1"), 0)
	watchNode(t, conns[1], yarn+"/ActiveStandbyElectorLock")
	plantCurator(t, conns, root+"/flink/fc1/leader/latch", "latch", "", "")
	create(t, conns[0], root+"/flink/fc1/leader/rest_server/connection_info", flinkInfo("http://jm1.example:8081"), zk.FlagEphemeral)

	// The failover: conns[0] is hm1, rs1's reader, rm1 and Flink's leader.
	conns[0].Close()
	for _, p := range []string{root + "/hbase/master", yarn + "/ActiveStandbyElectorLock"} {
		waitGone(t, conns[1], p)
	}
	create(t, conns[1], root+"/hbase/master", hbaseMasterData("hm2.example", 1700000000002), zk.FlagEphemeral)
	if err := conns[1].Delete(root+"/hbase/backup-masters/hm2.example,16000,1700000000002", -1); err != nil {
		t.Fatal(err)
	}
	create(t, conns[1], yarn+"/ActiveStandbyElectorLock", activeRMInfo("yc1", "rm2"), zk.FlagEphemeral)
	// The DDL entry finishes on ch1 (conns[1] here), which frees its lock.
	e := entries[1]
	if _, err := conns[1].Multi(&zk.DeleteRequest{Path: e + "/active/ch1:9000", Version: -1},
		&zk.CreateRequest{Path: e + "/finished/ch1:9000", Data: []byte("0\n"), Acl: openACL},
		&zk.CreateRequest{Path: e + "/shards/ch1:9000,ch2:9000/executed", Data: []byte("ch1:9000"), Acl: openACL},
		&zk.DeleteRequest{Path: e + "/shards/ch1:9000,ch2:9000/lock", Version: -1}); err != nil {
		t.Fatal(err)
	}

	got := lsSystemsJSON(t, "--root", root)
	checkSystems(t, got, root, map[string]sysWant{
		"/hbase/master": {"hbase", "hbase master", "election", []string{"hm2.example,16000,1700000000002:holder"}},
		"/hbase/table-lock/orders": {"hbase", "hbase table orders", "rwlock",
			[]string{"rs2.example,16000,1700000000000 scan:holder", "hm1.example,16000,1700000000000 alter:waiting"}},
		"/flink/fc1/leader/latch": {"flink", "flink fc1", "election", []string{":holder"}},
		"/clickhouse/task_queue/ddl": {"clickhouse", "clickhouse ddl queue", "queue",
			[]string{"0 active, 2/2 finished:waiting", "0 active, 1/2 finished:waiting"}},
	})
	if _, ok := got[e+"/shards/ch1:9000,ch2:9000/lock"]; ok {
		t.Errorf("the freed shard lock is still listed")
	}
	ha := got[yarn]
	if h := holders(ha); len(h) != 1 || h[0] != "rm2" || len(ha.Warnings) != 1 || ha.Warnings[0].Code != model.WarnLeaderMismatch ||
		ha.Warnings[0].Since == "" || !strings.Contains(ha.Warnings[0].Message, "rm1") || !strings.Contains(ha.Warnings[0].Message, "rm2") {
		t.Errorf("yarn with a lagging breadcrumb: holders %q warnings %+v", holders(ha), ha.Warnings)
	}

	// rm2 fences rm1 and rewrites the breadcrumb; Flink's new leader
	// publishes its address.
	if _, err := conns[1].Set(yarn+"/ActiveBreadCrumb", activeRMInfo("yc1", "rm2"), -1); err != nil {
		t.Fatal(err)
	}
	create(t, conns[1], root+"/flink/fc1/leader/rest_server/connection_info", flinkInfo("http://jm2.example:8081"), zk.FlagEphemeral)
	got = lsSystemsJSON(t, "--check", "--root", root)
	checkSystems(t, got, root, map[string]sysWant{
		"/yarn-leader-election/yc1": {"hadoop-ha", "yarn yc1", "election", []string{"rm2:holder"}},
		"/flink/fc1/leader/latch":   {"flink", "flink fc1", "election", []string{"http://jm2.example:8081:holder"}},
	})
}

// TestLsSolrNoCandidates: a Solr election with no candidate is named;
// a leader record naming a gone candidate is a leader-mismatch (nobody
// holds), and with no record the label says there is no leader.
func TestLsSolrNoCandidates(t *testing.T) {
	root := testPath(t)
	c := testConn(t)
	mkdirs(t, c, root+"/overseer_elect/election", nil)
	mkdirs(t, c, root+"/collections/c1/leader_elect/shard1/election", nil)
	create(t, c, root+"/collections/c1/leaders/shard1/leader",
		[]byte(`{"core":"c1_shard1_replica_n1","node_name":"10.0.0.2:8983_solr","base_url":"http://10.0.0.2:8983/solr","core_node_name":"core_node3"}`),
		zk.FlagEphemeral)

	got := lsSystemsJSON(t, "--root", root)
	over, shard := got[root+"/overseer_elect/election"], got[root+"/collections/c1/leader_elect/shard1/election"]
	if over.System != "solr" || over.Label != "solr overseer, no leader" || over.Type != "election" || len(over.Queue) != 0 || len(over.Warnings) != 0 {
		t.Errorf("overseer with no candidate and no record: %+v", over)
	}
	if shard.Label != "solr c1/shard1" || len(shard.Queue) != 0 || len(shard.Warnings) != 1 ||
		shard.Warnings[0].Code != model.WarnLeaderMismatch || !strings.Contains(shard.Warnings[0].Message, "core_node3") ||
		!strings.Contains(shard.Warnings[0].Message, "nobody") {
		t.Errorf("shard with a record and no candidate: %+v", shard)
	}
}
