package systems

import (
	"fmt"
	"path"
	"slices"
	"testing"

	"github.com/zklock/zklock/third_party/zk"
)

// TestRealKafka builds a Kafka cluster's layout under a chroot on the
// server (KafkaZkClient.scala:103-160: brokers register ephemeral, the
// controller is created in a multi with the epoch's setData), then fails
// the controller over and plants a controller naming a gone broker.
func TestRealKafka(t *testing.T) {
	conns := connect(t, 4)
	const root = "/kafka1"
	zkBuild(t, conns, kafkaLayout(root, []int{1, 2, 3}, -1, 0)...)
	kafkaElect(t, conns[1], root, 2)
	rec := readRecognize(t, conns[0], root, root+"/controller")
	if got, want := roles(rec), []string{"broker 2:holder"}; !slices.Equal(got, want) || rec.Findings != nil {
		t.Fatalf("roles %q findings %q", got, findings(rec))
	}
	if rec.Participants[0].Session != conns[1].SessionID() {
		t.Errorf("holder session 0x%x, want 0x%x", rec.Participants[0].Session, conns[1].SessionID())
	}

	// Failover: broker 2's session ends (its registration and the
	// controller go with it), broker 1 wins the next election.
	conns[1].Close()
	waitGone(t, conns[0], root+"/controller")
	kafkaElect(t, conns[0], root, 1)
	rec = readRecognize(t, conns[0], root, root+"/controller")
	if got, want := roles(rec), []string{"broker 1:holder"}; !slices.Equal(got, want) || rec.Findings != nil {
		t.Fatalf("after failover: roles %q findings %q", got, findings(rec))
	}

	// A controller naming a broker that is not registered.
	if err := conns[0].Delete(root+"/controller", -1); err != nil {
		t.Fatal(err)
	}
	kafkaElect(t, conns[3], root, 9)
	rec = readRecognize(t, conns[0], root, root+"/controller")
	if got, want := findings(rec), []string{"leader-mismatch: broker 9 / registered brokers 1,3"}; !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// kafkaElect is registerControllerAndIncrementControllerEpoch's multi.
func kafkaElect(t *testing.T, c *zk.Conn, root string, broker int) {
	t.Helper()
	_, st, err := c.Get(root + "/controller_epoch")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Multi(
		&zk.CreateRequest{Path: root + "/controller", Data: kafkaControllerJSON(broker, -1), Acl: openACL, Flags: zk.FlagEphemeral},
		&zk.SetDataRequest{Path: root + "/controller_epoch", Data: fmt.Appendf(nil, "%d", st.Version+8), Version: st.Version})
	if err != nil {
		t.Fatalf("elect broker %d: %v", broker, err)
	}
}

// TestRealSolr builds the overseer election with the sessions' real ids
// in the names (LeaderElector.joinElection), the leader record
// (OverseerElectionContext), a joinAtHead node, a failover and a record
// that lags.
func TestRealSolr(t *testing.T) {
	conns := connect(t, 4)
	sessions := sessionsOf(conns)
	specs, nodes := solrOverseer(sessions)
	made := zkBuild(t, conns, specs...)
	zkBuild(t, conns, solrOverseerRecord("/solr", 0, path.Base(made[0])))
	const p = "/solr/overseer_elect/election"
	rec := readRecognize(t, conns[3], "/solr", p)
	want := []string{nodes[0] + ":holder", nodes[1] + ":waiting", nodes[2] + ":waiting"}
	if got := roles(rec); !slices.Equal(got, want) || rec.Findings != nil || rec.Label != "solr overseer" {
		t.Fatalf("roles %q findings %q label %q", got, findings(rec), rec.Label)
	}

	// joinAtHead: a plain ephemeral node with the sequence of the node
	// second in line; still one leader.
	zkBuild(t, conns, ephemeral(fmt.Sprintf("%s/%d-10.0.0.4:8983_solr-n_%s", p, sessions[3], made[1][len(made[1])-10:]), 3, nil))
	rec = readRecognize(t, conns[3], "/solr", p)
	if len(rec.Holders()) != 1 || len(rec.Participants) != 4 || rec.Findings != nil {
		t.Fatalf("joinAtHead: roles %q findings %q", roles(rec), findings(rec))
	}

	// Failover: the leader's session ends; its node and record go. Until
	// the next leader writes its record, the check says so.
	conns[0].Close()
	waitGone(t, conns[3], "/solr/overseer_elect/leader")
	rec = readRecognize(t, conns[3], "/solr", p)
	next := rec.Participants[0]
	if next.Identity != nodes[1] {
		t.Fatalf("after failover the head is %q, want %q", next.Identity, nodes[1])
	}
	if got, want := findings(rec), []string{"leader-mismatch:  / " + next.Name}; !slices.Equal(got, want) {
		t.Errorf("missing record: %q, want %q", got, want)
	}
	zkBuild(t, conns, solrOverseerRecord("/solr", 1, next.Name))
	if rec = readRecognize(t, conns[3], "/solr", p); rec.Findings != nil {
		t.Errorf("after the new record: %q", findings(rec))
	}

	// A lagging record: the leader leaves the election (its node deleted)
	// but its session, and so its record, lives on.
	if err := conns[1].Delete(made[1], -1); err != nil {
		t.Fatal(err)
	}
	rec = readRecognize(t, conns[3], "/solr", p)
	if len(rec.Findings) != 1 || rec.Findings[0].RecordSays != path.Base(made[1]) ||
		rec.Findings[0].ElectionSays != rec.Participants[0].Name {
		t.Errorf("lagging record: %q", findings(rec))
	}
}

// TestRealHadoop builds an HDFS ZKFC pair's layout
// (ActiveStandbyElector.java, HAZKInfo.proto) through a failover whose
// breadcrumb lags until the new active fences.
func TestRealHadoop(t *testing.T) {
	conns := connect(t, 3)
	const dir = "/hadoop-ha/ns1"
	nn1 := hadoopNN("ns1", "nn1", "nn1.example", 8020, 8019)
	nn2 := hadoopNN("ns1", "nn2", "nn2.example", 8020, 8019)
	zkBuild(t, conns, ephemeral(dir+"/ActiveStandbyElectorLock", 0, nn1), persistent(dir+"/ActiveBreadCrumb", nn1))
	rec := readRecognize(t, conns[2], "/hadoop-ha", dir)
	if got, want := roles(rec), []string{"nn1 nn1.example:8020:holder"}; !slices.Equal(got, want) || rec.Findings != nil || rec.Label != "hdfs ns1" {
		t.Fatalf("roles %q findings %q label %q", got, findings(rec), rec.Label)
	}
	conns[0].Close()
	waitGone(t, conns[2], dir+"/ActiveStandbyElectorLock")
	zkBuild(t, conns, ephemeral(dir+"/ActiveStandbyElectorLock", 1, nn2))
	rec = readRecognize(t, conns[2], "/hadoop-ha", dir)
	if got, want := findings(rec), []string{"leader-mismatch: nn1 nn1.example:8020 / nn2 nn2.example:8020"}; !slices.Equal(got, want) {
		t.Errorf("before fencing: findings %q, want %q", got, want)
	}
	// writeBreadCrumbNode: setData with the version read while fencing.
	_, st, err := conns[1].Get(dir + "/ActiveBreadCrumb")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conns[1].Set(dir+"/ActiveBreadCrumb", nn2, st.Version); err != nil {
		t.Fatal(err)
	}
	if rec = readRecognize(t, conns[2], "/hadoop-ha", dir); rec.Findings != nil {
		t.Errorf("after fencing: findings %q", findings(rec))
	}
}

// TestRealHBase builds the master and a backup (ZNodePaths,
// MasterAddressTracker), fails over to the backup, and a table lock.
func TestRealHBase(t *testing.T) {
	conns := connect(t, 3)
	backup := "/hbase/backup-masters/hm2.example,16000,2"
	zkBuild(t, conns, ephemeral("/hbase/master", 0, hbaseMasterData("hm1.example", 16000, 1)),
		ephemeral(backup, 1, hbaseMasterData("hm2.example", 16000, 2)))
	rec := readRecognize(t, conns[2], "/hbase", "/hbase/master")
	if got, want := roles(rec), []string{"hm1.example,16000,1:holder", "hm2.example,16000,2:waiting"}; !slices.Equal(got, want) {
		t.Fatalf("roles %q, want %q", got, want)
	}
	conns[0].Close()
	waitGone(t, conns[2], "/hbase/master")
	if err := conns[1].Delete(backup, -1); err != nil {
		t.Fatal(err)
	}
	zkBuild(t, conns, ephemeral("/hbase/master", 1, hbaseMasterData("hm2.example", 16000, 2)))
	rec = readRecognize(t, conns[2], "/hbase", "/hbase/master")
	if got, want := roles(rec), []string{"hm2.example,16000,2:holder"}; !slices.Equal(got, want) {
		t.Errorf("after failover: roles %q, want %q", got, want)
	}

	zkBuild(t, conns,
		ephSeq("/hbase/table-lock/orders/write-", 1, hbaseTableLockData("orders", "rs1.example", false, "alter")),
		ephSeq("/hbase/table-lock/orders/read-", 2, hbaseTableLockData("orders", "rs2.example", true, "scan")))
	rec = readRecognize(t, conns[2], "/hbase", "/hbase/table-lock/orders")
	if got, want := roles(rec), []string{"rs1.example,16020,1700000000000 alter:holder", "rs2.example,16020,1700000000000 scan:waiting"}; !slices.Equal(got, want) {
		t.Errorf("table lock: roles %q, want %q", got, want)
	}
}

// TestRealClickHouse builds a table's leader_election in the 20.6-21.12
// mode and with the 21.12 persistent marker (LeaderElection.h): every
// replica leads, nobody waits.
func TestRealClickHouse(t *testing.T) {
	conns := connect(t, 2)
	const p = "/clickhouse/tables/01/hits/leader_election"
	zkBuild(t, conns,
		ephSeq(p+"/leader_election-", 0, []byte("replica1"+chSuffix)),
		ephSeq(p+"/leader_election-", 1, []byte("replica2"+chSuffix)))
	rec := readRecognize(t, conns[0], "/clickhouse", p)
	if got, want := roles(rec), []string{"replica1:holder", "replica2:holder"}; !slices.Equal(got, want) || !rec.MultiLeader {
		t.Fatalf("roles %q multi %v", got, rec.MultiLeader)
	}
	zkBuild(t, conns, persistent(p+"/leader_election-0", []byte(chAllLeads)))
	conns[0].Close()
	waitGone(t, conns[1], rec.Participants[0].Path)
	rec = readRecognize(t, conns[1], "/clickhouse", p)
	if got, want := roles(rec), []string{"all:holder", "replica2:holder"}; !slices.Equal(got, want) || !rec.MultiLeader {
		t.Errorf("with the marker: roles %q multi %v", got, rec.MultiLeader)
	}
}
