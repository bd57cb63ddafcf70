package cmd

import (
	"encoding/binary"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/third_party/zk"
)

// The rest of the systems' layouts, planted on the server as each
// system's source writes them (the files read are cited per system in
// systems/*.go): names, modes, data bytes, and the watches a waiter
// sets on the node before it.

// create makes one node or fails the test; it returns the path made.
func create(t *testing.T, c *zk.Conn, p string, data []byte, flags int32) string {
	t.Helper()
	mkdirs(t, c, path.Dir(p), nil)
	made, err := c.Create(p, data, flags, openACL)
	if err != nil {
		t.Fatalf("create %s: %v", p, err)
	}
	return made
}

// watchNode sets the exists watch a waiter keeps on the node it waits
// for (Curator's LeaderLatch and InterProcessMutex, HBase's
// ZKInterProcessLockBase).
func watchNode(t *testing.T, c *zk.Conn, p string) {
	t.Helper()
	if _, _, _, err := c.ExistsW(p); err != nil {
		t.Fatalf("watch %s: %v", p, err)
	}
}

// curatorNames are the protected-mode prefixes of one Curator recipe
// instance per session.
var curatorNames = []string{
	"_c_0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b-", "_c_1a2b3c4d-5e6f-4a0b-9c8d-7e6f5a4b3c2d-",
	"_c_2b3c4d5e-6f70-4b1c-8d9e-0f1a2b3c4d5e-",
}

// plantCurator is one Curator LeaderLatch ("latch-") or LeaderSelector
// ("lock-") participant per conn, in order, each with its id as data,
// each waiter watching the node before it. It returns the nodes' paths.
func plantCurator(t *testing.T, conns []*zk.Conn, dir, marker string, ids ...string) []string {
	t.Helper()
	var made []string
	for i, id := range ids {
		made = append(made, create(t, conns[i], dir+"/"+curatorNames[i]+marker+"-", []byte(id), zk.FlagEphemeral|zk.FlagSequence))
		if i > 0 {
			watchNode(t, conns[i], made[i-1])
		}
	}
	return made
}

// hbaseServerName is HBase.proto ServerName {1 host_name, 2 port,
// 3 start_code}.
func hbaseServerName(host string, start uint64) []byte {
	return pbUint(pbUint(pbString(nil, 1, host), 2, 16000), 3, start)
}

// hbaseMeta is RecoverableZooKeeper's ZKMetadata.appendMetaData (0xFF,
// the id's length, the id and an 8-byte salt) before "PBUF" and msg.
func hbaseMeta(host string, msg []byte) []byte {
	id := "4242@" + host
	b := binary.BigEndian.AppendUint32([]byte{0xFF}, uint32(len(id)+8))
	b = append(append(b, id...), 1, 2, 3, 4, 5, 6, 7, 8)
	return append(append(b, "PBUF"...), msg...)
}

// hbaseMasterData is MasterAddressTracker.toByteArray: Master
// {1 master ServerName, 2 rpc_version, 3 info_port}.
func hbaseMasterData(host string, start uint64) []byte {
	return hbaseMeta(host, pbUint(pbUint(pbString(nil, 1, string(hbaseServerName(host, start))), 2, 0), 3, 16010))
}

// hbaseTableLockData is ZooKeeper.proto TableLock {1 table_name, 2
// lock_owner, 3 thread_id, 4 is_shared, 5 purpose, 6 create_time}.
func hbaseTableLockData(table, host string, shared bool, purpose string) []byte {
	tn := pbString(pbString(nil, 1, "default"), 2, table)
	m := pbString(nil, 1, string(tn))
	m = pbString(m, 2, string(hbaseServerName(host, 1700000000000)))
	m = pbUint(m, 3, 77)
	s := uint64(0)
	if shared {
		s = 1
	}
	return hbaseMeta(host, pbUint(pbString(pbUint(m, 4, s), 5, purpose), 6, 1700000000000))
}

// plantHBase is the active master (conns[0]), one backup (conns[1]),
// and a table lock held by two readers with a writer waiting behind the
// last of them (ZKInterProcessLockBase: read-/write- EPHEMERAL_SEQUENTIAL).
func plantHBase(t *testing.T, root string, conns []*zk.Conn) {
	t.Helper()
	create(t, conns[0], root+"/master", hbaseMasterData("hm1.example", 1700000000001), zk.FlagEphemeral)
	create(t, conns[1], root+"/backup-masters/hm2.example,16000,1700000000002", hbaseMasterData("hm2.example", 1700000000002), zk.FlagEphemeral)
	lock := root + "/table-lock/orders"
	create(t, conns[0], lock+"/read-", hbaseTableLockData("orders", "rs1.example", true, "scan"), zk.FlagEphemeral|zk.FlagSequence)
	r2 := create(t, conns[1], lock+"/read-", hbaseTableLockData("orders", "rs2.example", true, "scan"), zk.FlagEphemeral|zk.FlagSequence)
	create(t, conns[2], lock+"/write-", hbaseTableLockData("orders", "hm1.example", false, "alter"), zk.FlagEphemeral|zk.FlagSequence)
	watchNode(t, conns[2], r2)
}

// activeRMInfo is ActiveRMInfoProto {1 clusterId, 2 rmId}.
func activeRMInfo(cluster, rm string) []byte {
	return pbString(pbString(nil, 1, cluster), 2, rm)
}

// chMulti is LeaderElection.h's 20.6-21.12 data: every replica leads.
const chMulti = " (multiple leaders Ok)"

// ddlEntry is DDLLogEntry::toString, version 1.
func ddlEntry(query string) []byte {
	return []byte("version: 1\nquery: " + query + "\nhosts: ['ch1:9000','ch2:9000']\ninitiator: ch1:9000\n")
}

// plantClickHouse is a replicated table's election in multi-leader mode
// (two replicas, both leading), the DDL queue with an entry done and an
// entry that ch1 (conns[0]) executes holding its shard's lock, and a
// zero-copy part lock held by replica2 (conns[1]). It returns the DDL
// entries' paths.
func plantClickHouse(t *testing.T, root string, conns []*zk.Conn) []string {
	t.Helper()
	le := root + "/tables/01/hits/leader_election"
	for i, r := range []string{"replica1", "replica2"} {
		create(t, conns[i], le+"/leader_election-", []byte(r+chMulti), zk.FlagEphemeral|zk.FlagSequence)
	}
	q := root + "/task_queue/ddl"
	var entries []string
	for _, query := range []string{"CREATE TABLE t ON CLUSTER c", "ALTER TABLE t ON CLUSTER c DELETE WHERE 1"} {
		e := create(t, conns[0], q+"/query-", ddlEntry(query), zk.FlagSequence)
		create(t, conns[0], e+"/active", nil, 0) // createStatusDirs
		create(t, conns[0], e+"/finished", nil, 0)
		entries = append(entries, e)
	}
	for _, h := range []string{"ch1:9000", "ch2:9000"} {
		create(t, conns[0], entries[0]+"/finished/"+h, []byte("0\n"), 0)
	}
	create(t, conns[0], entries[1]+"/active/ch1:9000", []byte("'a3c1'"), zk.FlagEphemeral)
	shard := entries[1] + "/shards/ch1:9000,ch2:9000"
	create(t, conns[0], shard+"/tries_to_execute", []byte("1"), 0)
	create(t, conns[0], shard+"/lock", []byte("ch1:9000"), zk.FlagEphemeral)
	part := root + "/zero_copy/zero_copy_s3/4f1e9a52-6c1b-4b49-9f5e-3a1c0d2b7e61/all_0_5_1"
	create(t, conns[1], part+"/s3_abc/replica2", nil, 0)
	create(t, conns[1], part+"/part_exclusive_lock", []byte("replica2"), zk.FlagEphemeral)
	return entries
}

// flinkInfo is ZooKeeperUtils.writeLeaderInformationToZooKeeper's
// ObjectOutputStream: writeUTF(address), then the session UUID object.
func flinkInfo(addr string) []byte {
	b := []byte{0xAC, 0xED, 0x00, 0x05, 0x77, byte(len(addr) + 2), byte(len(addr) >> 8), byte(len(addr))}
	b = append(b, addr...)
	// TC_OBJECT, TC_CLASSDESC "java.util.UUID" ...: the address is all
	// zklock reads, the rest stands for Java's bytes.
	return append(b, 0x73, 0x72, 0x00, 0x0e)
}

// mesosMaster is a Mesos master's JSON MasterInfo (json.info_ nodes).
func mesosMaster(host string) []byte {
	return fmt.Appendf(nil, `{"address":{"hostname":%q,"ip":"10.0.0.9","port":5050},"hostname":%q,"id":"%s-id","ip":151060490,"pid":"master@10.0.0.9:5050","port":5050,"version":"1.11.0"}`,
		host, host, strings.SplitN(host, ".", 2)[0])
}

// plantOthers plants YARN (both electors), Druid, Storm, Flink, NiFi,
// Pulsar, Helix, Mesos and Marathon under root, conns[0] leading each.
func plantOthers(t *testing.T, root string, conns []*zk.Conn) {
	t.Helper()
	yarn := root + "/yarn-leader-election/yc1"
	create(t, conns[0], yarn+"/ActiveStandbyElectorLock", activeRMInfo("yc1", "rm1"), zk.FlagEphemeral)
	create(t, conns[0], yarn+"/ActiveBreadCrumb", activeRMInfo("yc1", "rm1"), 0)
	plantCurator(t, conns, root+"/yarn2/yarn-leader-election/yc2", "latch", "rm1", "rm2")
	plantCurator(t, conns, root+"/druid/coordinator/_COORDINATOR", "latch", "http://c1.example:8081", "http://c2.example:8081")
	plantCurator(t, conns, root+"/druid/overlord/_OVERLORD", "latch", "http://o1.example:8090")
	plantCurator(t, conns, root+"/storm/leader-lock", "latch", "nimbus1.example:6627", "nimbus2.example:6627")
	plantCurator(t, conns, root+"/flink/fc1/leader/latch", "latch", "", "")
	create(t, conns[0], root+"/flink/fc1/leader/rest_server/connection_info", flinkInfo("http://jm1.example:8081"), zk.FlagEphemeral)
	create(t, conns[0], root+"/flink/fc1/leader/dispatcher/connection_info",
		flinkInfo("pekko.tcp://flink@jm1.example:6123/user/rpc/dispatcher_1"), zk.FlagEphemeral)
	plantCurator(t, conns, root+"/nifi/leaders/Cluster Coordinator", "lock", "nifi1.example:11443", "nifi2.example:11443")
	plantCurator(t, conns, root+"/nifi/leaders/Primary Node", "lock", "nifi1.example:11443")
	create(t, conns[0], root+"/pulsar/loadbalance/leader", []byte(`{"brokerId":"b1.example:8080","serviceUrl":"http://b1.example:8080"}`), zk.FlagEphemeral)
	create(t, conns[0], root+"/helix/cl1/CONTROLLER/LEADER",
		[]byte(`{"id":"ctrl1.example_9000","simpleFields":{"HELIX_VERSION":"1.0.4","LIVE_INSTANCE":"4242@ctrl1","SESSION_ID":"1000a"},"listFields":{},"mapFields":{}}`), zk.FlagEphemeral)
	for i, h := range []string{"m1.example", "m2.example"} {
		create(t, conns[i], root+"/mesos/json.info_", mesosMaster(h), zk.FlagEphemeral|zk.FlagSequence)
	}
	plantCurator(t, conns, root+"/marathon/leader-curator", "latch", "marathon1.example:8080", "marathon2.example:8080")
}

// waitGone waits, on an exists watch, until p no longer exists (a closed
// session's ephemeral nodes).
func waitGone(t *testing.T, c *zk.Conn, p string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		ok, _, ch, err := c.ExistsW(p)
		if err != nil {
			t.Fatalf("exists %s: %v", p, err)
		}
		if !ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s still exists after 20s", p)
		}
	}
}
