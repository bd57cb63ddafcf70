package cmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/third_party/zk"
)

// One tree holding every system's layout, each participant in a session of
// its own, as the systems' sources write them (the files are cited by the
// plant helpers and in systems/*.go): what `sessions` and the console
// must name.

// sysSession is one participant's session and the identity its system
// gives it ("" where the system names none: a Flink follower).
type sysSession struct {
	conn     *zk.Conn
	identity string
}

// allSystems is a planted tree: root, the participants' sessions, and
// per lock path below root the system's label and its participants'
// identities in queue order.
type allSystems struct {
	root     string
	sessions []sysSession
	labels   map[string]string
	idents   map[string][]string
}

// conns opens n sessions on the shared server.
func conns(t *testing.T, n int) []*zk.Conn {
	t.Helper()
	cs := make([]*zk.Conn, n)
	for i := range cs {
		cs[i] = testConn(t)
	}
	return cs
}

// plantAllSystems plants Solr, Kafka, HDFS, YARN (both electors), HBase,
// ClickHouse, Druid, Storm, Flink, NiFi, Pulsar, Helix, Mesos and Marathon
// under one root, each participant in a session of its own (HBase's and
// ClickHouse's plants give one session several nodes, as their servers
// do: the session is named by its first, in path order).
func plantAllSystems(t *testing.T) *allSystems {
	t.Helper()
	a := &allSystems{root: testPath(t), labels: map[string]string{}, idents: map[string][]string{}}
	add := func(rel, label string, cs []*zk.Conn, ids ...string) {
		a.labels[rel], a.idents[rel] = label, ids
		for i, c := range cs {
			a.sessions = append(a.sessions, sysSession{c, ids[i]})
		}
	}
	r := a.root
	solr := conns(t, 3)
	plantSolr(t, r+"/solr", solr, 0)
	add("/solr/overseer_elect/election", "solr overseer", solr, "10.0.0.1:8983_solr", "10.0.0.2:8983_solr", "10.0.0.3:8983_solr")
	kafka := conns(t, 3)
	plantKafka(t, r+"/kafka", kafka, 1) // broker 1's session made /controller
	add("/kafka/controller", "kafka controller", kafka[:1], "broker 1")
	hdfs := conns(t, 1)
	plantHadoop(t, r+"/hadoop-ha/ns1", hdfs[0], "nn1", "nn1")
	add("/hadoop-ha/ns1", "hdfs ns1", hdfs, "nn1 nn1.example:8020")
	yarn := conns(t, 1)
	create(t, yarn[0], r+"/yarn-leader-election/yc1/ActiveStandbyElectorLock", activeRMInfo("yc1", "rm1"), zk.FlagEphemeral)
	create(t, yarn[0], r+"/yarn-leader-election/yc1/ActiveBreadCrumb", activeRMInfo("yc1", "rm1"), 0)
	add("/yarn-leader-election/yc1", "yarn yc1", yarn, "rm1")
	yarn2 := conns(t, 2)
	plantCurator(t, yarn2, r+"/yarn2/yarn-leader-election/yc2", "latch", "rm3", "rm4")
	add("/yarn2/yarn-leader-election/yc2", "yarn yc2", yarn2, "rm3", "rm4")
	hbase := conns(t, 3)
	plantHBase(t, r+"/hbase", hbase)
	add("/hbase/master", "hbase master", hbase[:2], "hm1.example,16000,1700000000001", "hm2.example,16000,1700000000002")
	a.sessions = append(a.sessions, sysSession{hbase[2], "hm1.example,16000,1700000000000 alter"})
	a.labels["/hbase/table-lock/orders"] = "hbase table orders"
	a.idents["/hbase/table-lock/orders"] = []string{"rs1.example,16000,1700000000000 scan",
		"rs2.example,16000,1700000000000 scan", "hm1.example,16000,1700000000000 alter"}
	ch := conns(t, 2)
	plantClickHouse(t, r+"/clickhouse", ch)
	add("/clickhouse/tables/01/hits/leader_election", "clickhouse hits", ch, "replica1", "replica2")
	plantOwnSessions(t, a, add)
	return a
}

// plantOwnSessions plants the Curator elections, Pulsar, Helix and Mesos
// of plantAllSystems, each participant in a session of its own.
func plantOwnSessions(t *testing.T, a *allSystems, add func(rel, label string, cs []*zk.Conn, ids ...string)) {
	t.Helper()
	r := a.root
	for _, e := range []struct {
		rel, label, marker string
		ids                []string
	}{
		{"/druid/coordinator/_COORDINATOR", "druid coordinator", "latch", []string{"http://c1.example:8081", "http://c2.example:8081"}},
		{"/druid/overlord/_OVERLORD", "druid overlord", "latch", []string{"http://o1.example:8090"}},
		{"/storm/leader-lock", "storm nimbus", "latch", []string{"nimbus1.example:6627", "nimbus2.example:6627"}},
		{"/nifi/leaders/Cluster Coordinator", "nifi cluster coordinator", "lock", []string{"nifi1.example:11443", "nifi2.example:11443"}},
		{"/marathon/leader-curator", "marathon leader", "latch", []string{"marathon1.example:8080", "marathon2.example:8080"}},
	} {
		cs := conns(t, len(e.ids))
		plantCurator(t, cs, r+e.rel, e.marker, e.ids...)
		add(e.rel, e.label, cs, e.ids...)
	}
	flink := conns(t, 2)
	plantCurator(t, flink, r+"/flink/fc1/leader/latch", "latch", "", "")
	create(t, flink[0], r+"/flink/fc1/leader/rest_server/connection_info", flinkInfo("http://jm1.example:8081"), zk.FlagEphemeral)
	add("/flink/fc1/leader/latch", "flink fc1", flink, "http://jm1.example:8081", "")
	pulsar := conns(t, 1)
	create(t, pulsar[0], r+"/pulsar/loadbalance/leader", pulsarLeader("b1.example:8080"), zk.FlagEphemeral)
	add("/pulsar/loadbalance/leader", "pulsar load balancer", pulsar, "b1.example:8080")
	helix := conns(t, 1)
	create(t, helix[0], r+"/helix/cl1/CONTROLLER/LEADER", helixLeader("ctrl1.example_9000", helix[0].SessionID()), zk.FlagEphemeral)
	add("/helix/cl1/CONTROLLER/LEADER", "helix controller cl1", helix, "ctrl1.example_9000")
	mesos := conns(t, 2)
	for i, h := range []string{"m1.example", "m2.example"} {
		create(t, mesos[i], r+"/mesos/json.info_", mesosMaster(h), zk.FlagEphemeral|zk.FlagSequence)
	}
	add("/mesos", "mesos master", mesos, "m1.example:5050", "m2.example:5050")
}

// TestSessionsSystems: over one root holding every system's layout,
// `sessions --json` names each participant's session by the identity its
// system gives it (a Flink follower, which publishes nothing, by none),
// and each of its nodes likewise; the text names them in its CLIENT
// column.
func TestSessionsSystems(t *testing.T) {
	a := plantAllSystems(t)
	js, errOut, code := sessionsJSON(t, "--root", a.root)
	if code != 0 {
		t.Fatalf("sessions --json: code %d, stderr %q", code, errOut)
	}
	got := map[string]sessions.JSONSession{}
	for _, s := range js.Sessions {
		got[s.Session] = s
	}
	for _, s := range a.sessions {
		id := model.SessionHex(s.conn.SessionID())
		js, ok := got[id]
		if !ok {
			t.Errorf("session %s (%q) not listed", id, s.identity)
			continue
		}
		if js.Identity != s.identity {
			t.Errorf("session %s: identity %q, want %q", id, js.Identity, s.identity)
		}
		nodes := append(js.Holds, js.Waits...)
		if len(nodes) == 0 {
			t.Errorf("session %s (%q) holds and waits on nothing", id, s.identity)
		}
		// Its node in that system says the same.
		if s.identity != "" && !slices.ContainsFunc(nodes, func(n sessions.JSONSessionNode) bool { return n.Identity == s.identity }) {
			t.Errorf("session %s: no node with identity %q: %+v", id, s.identity, nodes)
		}
	}
	if t.Failed() {
		for id, s := range got {
			t.Logf("%s %q holds %+v waits %+v", id, s.Identity, s.Holds, s.Waits)
		}
	}

	out, errOut, code := runBinary(t, nil, serversFlag(t), "sessions", "--root", a.root)
	if code != 0 {
		t.Fatalf("sessions: code %d, stderr %q", code, errOut)
	}
	for _, s := range a.sessions {
		id := model.SessionHex(s.conn.SessionID())
		if s.identity != "" && !hasLine(out, id, s.identity) {
			t.Errorf("sessions text: no line names %s %q:\n%s", id, s.identity, out)
		}
	}
}

// hasLine reports whether one line of text holds every part.
func hasLine(text string, parts ...string) bool {
	for _, l := range strings.Split(text, "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}
