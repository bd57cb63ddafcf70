package cmd

import (
	"fmt"
	"testing"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
)

// The failovers of the systems that elect through a Curator LeaderLatch
// (Druid, Storm, Marathon), a group of sequential members (Mesos) or one
// ephemeral node (Pulsar, Helix), as each one's source does them:
//
//   - Druid (apache/druid server/.../curator/discovery/
//     CuratorDruidLeaderSelector.java): LeaderLatch(latchPath,
//     scheme://host:port); a node whose session ends is gone, the next
//     latch node leads; the old leader's new latch (recreateLeaderLatch,
//     or a restart) queues at the end.
//   - Storm (apache/storm storm-server/.../zookeeper/LeaderElectorImp.java,
//     Zookeeper.java): LeaderLatch("/leader-lock", host:port) under
//     storm.zookeeper.root; addToLeaderLockQueue after a restart queues at
//     the end. /nimbuses/<host:port> (IStormClusterState.addNimbusHost)
//     is a registration whose NimbusSummary says is_leader false: the
//     leader is read from the latch, never recorded.
//   - Marathon (mesosphere/marathon core/election/
//     CuratorElectionStream.scala): LeaderLatch(zooKeeperLeaderPath +
//     "-curator", hostPort).
//   - Mesos (mesos/mesos src/master/contender, constants.hpp
//     MASTER_INFO_JSON_LABEL): each master joins the group with
//     "json.info_" EPHEMERAL_SEQUENTIAL, JSON MasterInfo; the detector
//     takes the lowest sequence; a master that lost its session contends
//     again with a new membership.
//   - Pulsar (apache/pulsar pulsar-metadata/.../coordination/impl/
//     LeaderElectionImpl.java, pulsar-broker/.../loadbalance/
//     LeaderElectionService.java; extensible/ExtensibleLoadManagerImpl.java
//     elects at /loadbalance/extension/leader the same way): followers read /loadbalance/leader
//     with a watch; on NodeDeleted each calls elect(), the first put
//     (EPHEMERAL, expected version -1) of its LeaderBroker JSON wins.
//   - Helix (apache/helix helix-core/.../manager/zk/
//     DistributedLeaderElection.java, model/LeaderHistory.java,
//     ZNRecordSerializer.java): on the LEADER node's deletion every
//     controller tries to create CONTROLLER/LEADER (EPHEMERAL, the
//     LiveInstance ZNRecord, indented JSON), the winner appends itself to
//     the persistent CONTROLLER/HISTORY.
//
// None of the six keeps a leader record apart from its election: the
// latch or the group is read for the leader (Druid getCurrentLeader,
// Storm getLeader, Marathon getParticipants, the Mesos detector), and
// Pulsar's and Helix's one node is both. So no failover state of theirs
// is a leader-mismatch: the test asserts none is raised at any step.

// pulsarLeader is LeaderBroker as Jackson writes it (brokerId, serviceUrl).
func pulsarLeader(broker string) []byte {
	return fmt.Appendf(nil, `{"brokerId":%q,"serviceUrl":"http://%s"}`, broker, broker)
}

// helixLeader is the LiveInstance ZNRecord DistributedLeaderElection
// .tryCreateController writes, as ZNRecordSerializer (Jackson 1,
// INDENT_OUTPUT) prints it.
func helixLeader(instance string, session int64) []byte {
	return fmt.Appendf(nil, "{\n  \"id\" : %q,\n  \"simpleFields\" : {\n    \"HELIX_VERSION\" : \"1.0.4\",\n"+
		"    \"LIVE_INSTANCE\" : \"4242@%s\",\n    \"SESSION_ID\" : \"%x\"\n  },\n  \"listFields\" : {\n  },\n  \"mapFields\" : {\n  }\n}",
		instance, instance, session)
}

// helixHistory is CONTROLLER/HISTORY after LeaderHistory.updateHistory
// for each of leaders in turn.
func helixHistory(cluster string, leaders ...string) []byte {
	var old, entries string
	for i, l := range leaders {
		sep := ""
		if i > 0 {
			sep = ", "
		}
		old += sep + fmt.Sprintf("%q", l)
		entries += sep + fmt.Sprintf(`"{DATE=2023-11-14-22:13:2%d, CONTROLLER=%s, TIME=170000000%d000}"`, i, l, i)
	}
	return fmt.Appendf(nil, "{\n  \"id\" : \"HISTORY\",\n  \"simpleFields\" : {\n  },\n  \"listFields\" : {\n    %q : [ %s ],\n    \"HISTORY\" : [ %s ]\n  },\n  \"mapFields\" : {\n  }\n}",
		cluster, old, entries)
}

// noMismatch fails on a leader-mismatch anywhere in got.
func noMismatch(t *testing.T, got map[string]model.JSONPath, step string) {
	t.Helper()
	for p, q := range got {
		for _, w := range q.Warnings {
			if w.Code == model.WarnLeaderMismatch {
				t.Errorf("%s: %s raised %s: %s", step, p, w.Code, w.Message)
			}
		}
	}
}

// sixLeaders is the layout TestLsSystemsFailoverMore plants: the latch
// nodes by election directory, and the lone leader nodes.
type sixLeaders struct {
	latches                  map[string][]string
	pulsar, pulsarExt, helix string
}

// plantSixLeaders plants Druid's, Storm's and Marathon's latches, Mesos's
// group, Pulsar's two elections and Helix's controller under root, conns[0]
// leading each and conns[1] next.
func plantSixLeaders(t *testing.T, root string, conns []*zk.Conn) sixLeaders {
	t.Helper()
	latches := map[string][]string{}
	for dir, ids := range map[string][]string{
		"/druid/coordinator/_COORDINATOR": {"http://c1.example:8081", "http://c2.example:8081"},
		"/storm/leader-lock":              {"nimbus1.example:6627", "nimbus2.example:6627"},
		"/marathon/leader-curator":        {"marathon1.example:8080", "marathon2.example:8080"},
	} {
		latches[dir] = plantCurator(t, conns, root+dir, "latch", ids...)
	}
	for i, h := range []string{"nimbus1.example:6627", "nimbus2.example:6627"} {
		create(t, conns[i], root+"/storm/nimbuses/"+h, []byte{0x0b, 0x00, 0x01}, zk.FlagEphemeral) // a Thrift NimbusSummary
	}
	for i, h := range []string{"m1.example", "m2.example"} {
		create(t, conns[i], root+"/mesos/json.info_", mesosMaster(h), zk.FlagEphemeral|zk.FlagSequence)
	}
	pulsar, helix := root+"/pulsar/loadbalance/leader", root+"/helix/cl1/CONTROLLER/LEADER"
	pulsarExt := root + "/pulsar/loadbalance/extension/leader" // ExtensibleLoadManagerImpl.ELECTION_ROOT
	create(t, conns[0], pulsar, pulsarLeader("b1.example:8080"), zk.FlagEphemeral)
	create(t, conns[0], pulsarExt, pulsarLeader("b1.example:8080"), zk.FlagEphemeral)
	create(t, conns[0], helix, helixLeader("ctrl1.example_9000", conns[0].SessionID()), zk.FlagEphemeral)
	create(t, conns[0], root+"/helix/cl1/CONTROLLER/HISTORY", helixHistory("cl1", "ctrl1.example_9000"), 0)
	for _, p := range []string{pulsar, pulsarExt, helix} {
		watchNode(t, conns[1], p) // the followers' watch on the leader node
	}
	return sixLeaders{latches, pulsar, pulsarExt, helix}
}

// takeOverSix is the failover's end: conns[1] creates Pulsar's and
// Helix's leader nodes (and Helix's history), conns[2], the old leaders'
// processes back with a new session, queue behind.
func takeOverSix(t *testing.T, root string, conns []*zk.Conn, six sixLeaders) {
	t.Helper()
	pulsar, pulsarExt, helix, latches := six.pulsar, six.pulsarExt, six.helix, six.latches
	create(t, conns[1], pulsar, pulsarLeader("b2.example:8080"), zk.FlagEphemeral)
	create(t, conns[1], pulsarExt, pulsarLeader("b2.example:8080"), zk.FlagEphemeral)
	create(t, conns[1], helix, helixLeader("ctrl2.example_9000", conns[1].SessionID()), zk.FlagEphemeral)
	if _, err := conns[1].Set(root+"/helix/cl1/CONTROLLER/HISTORY", helixHistory("cl1", "ctrl1.example_9000", "ctrl2.example_9000"), -1); err != nil {
		t.Fatal(err)
	}
	watchNode(t, conns[2], pulsar)
	watchNode(t, conns[2], helix)
	for dir, id := range map[string]string{
		"/druid/coordinator/_COORDINATOR": "http://c1.example:8081",
		"/storm/leader-lock":              "nimbus1.example:6627",
		"/marathon/leader-curator":        "marathon1.example:8080",
	} {
		create(t, conns[2], root+dir+"/"+curatorNames[2]+"latch-", []byte(id), zk.FlagEphemeral|zk.FlagSequence)
		watchNode(t, conns[2], latches[dir][1])
	}
	create(t, conns[2], root+"/storm/nimbuses/nimbus1.example:6627", []byte{0x0b, 0x00, 0x01}, zk.FlagEphemeral)
	create(t, conns[2], root+"/mesos/json.info_", mesosMaster("m1.example"), zk.FlagEphemeral|zk.FlagSequence)
}

// TestLsSystemsFailoverMore: Druid, Storm, Marathon, Mesos, Pulsar and
// Helix lose their leader's session (its ephemeral nodes go); ls --json
// follows each system through it: the next latch node or member leads at
// once, Pulsar's and Helix's leader node is gone (the path with it) until
// the next candidate creates its own, and the old leader, back with a new
// session, queues behind. Identities follow, no step raises a
// leader-mismatch, and ls --check passes before and after.
func TestLsSystemsFailoverMore(t *testing.T) {
	root := testPath(t)
	// conns[0] leads everywhere; conns[1] is the next candidate; conns[2]
	// is conns[0]'s process back with a new session.
	conns := []*zk.Conn{testConn(t), testConn(t), testConn(t)}
	six := plantSixLeaders(t, root, conns)
	pulsar, pulsarExt, helix := six.pulsar, six.pulsarExt, six.helix

	got := lsSystemsJSON(t, "--check", "--root", root)
	checkSystems(t, got, root, map[string]sysWant{
		"/druid/coordinator/_COORDINATOR": {"druid", "druid coordinator", "election",
			[]string{"http://c1.example:8081:holder", "http://c2.example:8081:waiting"}},
		"/storm/leader-lock": {"storm", "storm nimbus", "election",
			[]string{"nimbus1.example:6627:holder", "nimbus2.example:6627:waiting"}},
		"/marathon/leader-curator": {"marathon", "marathon leader", "election",
			[]string{"marathon1.example:8080:holder", "marathon2.example:8080:waiting"}},
		"/mesos":                     {"mesos", "mesos master", "election", []string{"m1.example:5050:holder", "m2.example:5050:waiting"}},
		"/pulsar/loadbalance/leader": {"pulsar", "pulsar load balancer", "election", []string{"b1.example:8080:holder"}},
		"/pulsar/loadbalance/extension/leader": {"pulsar", "pulsar load balancer (extensible)", "election",
			[]string{"b1.example:8080:holder"}},
		"/helix/cl1/CONTROLLER/LEADER": {"helix", "helix controller cl1", "election", []string{"ctrl1.example_9000:holder"}},
	})

	// The leader's session ends: its nodes go with it.
	conns[0].Close()
	for _, p := range []string{pulsar, pulsarExt, helix, six.latches["/storm/leader-lock"][0]} {
		waitGone(t, conns[1], p)
	}
	got = lsSystemsJSON(t, "--root", root)
	noMismatch(t, got, "leader gone")
	checkSystems(t, got, root, map[string]sysWant{
		"/druid/coordinator/_COORDINATOR": {"druid", "druid coordinator", "election", []string{"http://c2.example:8081:holder"}},
		"/storm/leader-lock":              {"storm", "storm nimbus", "election", []string{"nimbus2.example:6627:holder"}},
		"/marathon/leader-curator":        {"marathon", "marathon leader", "election", []string{"marathon2.example:8080:holder"}},
		"/mesos":                          {"mesos", "mesos master", "election", []string{"m2.example:5050:holder"}},
	})
	for _, p := range []string{pulsar, pulsarExt, helix} {
		if q, ok := got[p]; ok {
			t.Errorf("%s is gone but ls lists it: %+v", p, q)
		}
	}

	// The next candidates take over the lone nodes; the old leaders come
	// back with a new session and queue behind.
	takeOverSix(t, root, conns, six)
	got = lsSystemsJSON(t, "--check", "--root", root)
	checkSystems(t, got, root, map[string]sysWant{
		"/druid/coordinator/_COORDINATOR": {"druid", "druid coordinator", "election",
			[]string{"http://c2.example:8081:holder", "http://c1.example:8081:waiting"}},
		"/storm/leader-lock": {"storm", "storm nimbus", "election",
			[]string{"nimbus2.example:6627:holder", "nimbus1.example:6627:waiting"}},
		"/marathon/leader-curator": {"marathon", "marathon leader", "election",
			[]string{"marathon2.example:8080:holder", "marathon1.example:8080:waiting"}},
		"/mesos":                     {"mesos", "mesos master", "election", []string{"m2.example:5050:holder", "m1.example:5050:waiting"}},
		"/pulsar/loadbalance/leader": {"pulsar", "pulsar load balancer", "election", []string{"b2.example:8080:holder"}},
		"/pulsar/loadbalance/extension/leader": {"pulsar", "pulsar load balancer (extensible)", "election",
			[]string{"b2.example:8080:holder"}},
		"/helix/cl1/CONTROLLER/LEADER": {"helix", "helix controller cl1", "election", []string{"ctrl2.example_9000:holder"}},
		// Storm's registrations: a group of its nimbuses, no leader in it.
		"/storm/nimbuses": {"", "", "membership", []string{"nimbus2.example:6627:member", "nimbus1.example:6627:member"}},
	})
	noMismatch(t, got, "taken over")
	if t.Failed() {
		for p, q := range got {
			t.Logf("%s: %s %q %s %q", p, q.System, q.Label, q.Type, nodeRoles(q))
		}
	}
}
