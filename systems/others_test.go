package systems

import (
	"slices"
	"testing"
)

// curatorLatch is a Curator LeaderLatch node (_c_<uuid>-latch-<seq>,
// participant id as data; FACTS.md), curatorLock a LeaderSelector's mutex
// node.
func curatorLatch(dir, uuid string, owner int, id string) spec {
	return ephSeq(dir+"/_c_"+uuid+"-latch-", owner, []byte(id))
}
func curatorLock(dir, uuid string, owner int, id string) spec {
	return ephSeq(dir+"/_c_"+uuid+"-lock-", owner, []byte(id))
}

const (
	uuid1 = "0f8e7d6c-5b4a-4938-8271-605f4e3d2c1b"
	uuid2 = "1a2b3c4d-5e6f-4a0b-9c8d-7e6f5a4b3c2d"
)

func TestOtherSystems(t *testing.T) {
	tests := []struct {
		name   string
		specs  []spec
		path   string
		system System
		label  string
		want   []string
	}{
		{"druid coordinator", []spec{curatorLatch("/druid/coordinator/_COORDINATOR", uuid1, 0, "http://c1:8081"),
			curatorLatch("/druid/coordinator/_COORDINATOR", uuid2, 1, "http://c2:8081")},
			"/druid/coordinator/_COORDINATOR", Druid, "druid coordinator", []string{"http://c1:8081:holder", "http://c2:8081:waiting"}},
		{"storm", []spec{curatorLatch("/storm/leader-lock", uuid1, 0, "nimbus1:6627")},
			"/storm/leader-lock", Storm, "storm nimbus", []string{"nimbus1:6627:holder"}},
		{"marathon", []spec{curatorLatch("/marathon/leader-curator", uuid1, 0, "m1:8080")},
			"/marathon/leader-curator", Marathon, "marathon leader", []string{"m1:8080:holder"}},
		{"flink: the latch under leader, named by connection_info", []spec{curatorLatch("/flink/c1/leader/latch", uuid1, 0, ""),
			curatorLatch("/flink/c1/leader/latch", uuid2, 1, ""),
			ephemeral("/flink/c1/leader/dispatcher/connection_info", 0, flinkInfo("pekko.tcp://flink@jm1:6123/user/rpc/dispatcher_1")),
			ephemeral("/flink/c1/leader/rest_server/connection_info", 0, flinkInfo("http://jm1:8081"))},
			"/flink/c1/leader/latch", Flink, "flink c1", []string{"http://jm1:8081:holder", ":waiting"}},
		{"yarn: the Curator elector", []spec{curatorLatch("/yarn-leader-election/yc1", uuid1, 0, "rm1"),
			curatorLatch("/yarn-leader-election/yc1", uuid2, 1, "rm2")},
			"/yarn-leader-election/yc1", HadoopHA, "yarn yc1", []string{"rm1:holder", "rm2:waiting"}},
		{"nifi: names with spaces", []spec{curatorLock("/nifi/leaders/Cluster Coordinator", uuid1, 0, "nifi1:8082"),
			curatorLock("/nifi/leaders/Cluster Coordinator", uuid2, 1, "nifi2:8082")},
			"/nifi/leaders/Cluster Coordinator", NiFi, "nifi cluster coordinator", []string{"nifi1:8082:holder", "nifi2:8082:waiting"}},
		{"helix", []spec{ephemeral("/cl1/CONTROLLER/LEADER", 0, []byte(`{"id":"ctrl1_9000","simpleFields":{},"listFields":{},"mapFields":{}}`))},
			"/cl1/CONTROLLER/LEADER", Helix, "helix controller cl1", []string{"ctrl1_9000:holder"}},
		{"pulsar", []spec{ephemeral("/loadbalance/leader", 0, []byte(`{"serviceUrl":"http://b1:8080"}`))},
			"/loadbalance/leader", Pulsar, "pulsar load balancer", []string{"http://b1:8080:holder"}},
		{"pulsar extensible load manager", []spec{ephemeral("/pulsar/loadbalance/extension/leader", 0,
			[]byte(`{"brokerId":"b1:8080","serviceUrl":"http://b1:8080"}`))},
			"/pulsar/loadbalance/extension/leader", Pulsar, "pulsar load balancer (extensible)", []string{"b1:8080:holder"}},
		{"pulsar extension not under loadbalance", []spec{ephemeral("/x/extension/leader", 0, []byte(`{"brokerId":"b1:8080"}`))},
			"/x/extension/leader", "", "", nil},
		{"mesos", []spec{ephSeq("/mesos/json.info_", 0, []byte(`{"hostname":"m1","port":5050,"id":"a"}`)),
			ephSeq("/mesos/json.info_", 1, []byte(`{"hostname":"m2","port":5050,"id":"b"}`))},
			"/mesos", Mesos, "mesos master", []string{"m1:5050:holder", "m2:5050:waiting"}},
		{"druid name, kazoo nodes", []spec{ephSeq("/d/_COORDINATOR/0123456789abcdef0123456789abcdef__lock__", 0, nil)},
			"/d/_COORDINATOR", "", "", nil},
		{"nifi name, latch nodes", []spec{curatorLatch("/nifi/leaders/Primary Node", uuid1, 0, "n")},
			"/nifi/leaders/Primary Node", "", "", nil},
		{"flink latch not under leader", []spec{persistent("/f/leader", nil), curatorLatch("/f/latch", uuid1, 0, "")}, "/f/latch", "", "", nil},
		{"pulsar leader persistent", []spec{persistent("/loadbalance/leader", []byte(`{"serviceUrl":"x"}`))}, "/loadbalance/leader", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ok := Recognize(mem(tt.specs...), tt.path)
			if tt.want == nil {
				if ok {
					t.Fatalf("recognised as %s %q", rec.System, rec.Label)
				}
				return
			}
			if !ok || rec.System != tt.system || rec.Label != tt.label {
				t.Fatalf("got %v %s %q", ok, rec.System, rec.Label)
			}
			if got := roles(rec); !slices.Equal(got, tt.want) {
				t.Errorf("roles %q, want %q", got, tt.want)
			}
		})
	}
}

// TestScan reads every layout from one tree, as `ls --root /` does, and
// leaves plain recipes and unknown trees unknown.
func TestScan(t *testing.T) {
	specs, _ := solrOverseer(fakeSessions)
	specs = append(specs, kafkaLayout("/kafka1", []int{1}, 1, 0)...)
	specs = append(specs,
		ephemeral("/hadoop-ha/ns1/ActiveStandbyElectorLock", 0, hadoopNN("ns1", "nn1", "h", 1, 2)),
		persistent("/hadoop-ha/ns1/ActiveBreadCrumb", hadoopNN("ns1", "nn1", "h", 1, 2)),
		ephemeral("/hbase/master", 0, hbaseMasterData("hm1", 16000, 1)),
		persistent("/ch/t1/leader_election/leader_election-0", []byte(chAllLeads)),
		curatorLatch("/app/latch", uuid1, 0, "plain latch"),
		ephSeq("/app/lock/_c_"+uuid1+"-lock-", 0, nil),
		persistent("/misc/controller", []byte(`{"brokerid":1}`)))
	var got []string
	for _, r := range Scan(mem(specs...), "/") {
		got = append(got, r.Path+" "+string(r.System))
	}
	want := []string{
		"/ch/t1/leader_election clickhouse",
		"/hadoop-ha/ns1 hadoop-ha",
		"/hbase/master hbase",
		"/kafka1/controller kafka",
		"/solr/overseer_elect/election solr",
	}
	if !slices.Equal(got, want) {
		t.Errorf("scan:\n got %q\nwant %q", got, want)
	}
}

// flinkInfo is ZooKeeperUtils.writeLeaderInformationToZooKeeper's bytes:
// an ObjectOutputStream with writeUTF(address), then the session UUID
// (its object bytes cut here: only the address is read).
func flinkInfo(addr string) []byte {
	b := []byte{0xAC, 0xED, 0x00, 0x05, 0x77, byte(len(addr) + 2), byte(len(addr) >> 8), byte(len(addr))}
	return append(append(b, addr...), 0x73, 0x72, 0x00, 0x0e)
}
