package systems

import (
	"fmt"
	"path"
	"regexp"

	"github.com/zklock/zklock/lockops"
)

// The systems that elect through a Curator recipe under a name of their
// own, and three that keep a node of their own. Sources (FACTS.md "The
// systems' layouts"; each checked against the code named):
//
//   - Druid DiscoveryModule: LeaderLatch at <coordinatorPath>/_COORDINATOR
//     and <overlordPath>/_OVERLORD, participant id = the node's URL.
//   - Storm: LeaderLatch at <storm.zookeeper.root>/leader-lock, id
//     "host:port" of the nimbus.
//   - Flink ZooKeeperLeaderElectionDriver: LeaderLatch at
//     <root>/<cluster-id>/latch, leader/<component>/connection_info beside.
//   - NiFi CuratorLeaderElectionManager: LeaderSelector (Curator mutex
//     nodes) at <root>/leaders/Cluster Coordinator and .../Primary Node.
//   - Marathon ZookeeperConf.zooKeeperLeaderCuratorUrl: LeaderLatch at
//     <zk path>/leader-curator (marathon's ZookeeperConf.scala).
//   - Helix: <cluster>/CONTROLLER/LEADER, EPHEMERAL, a ZNRecord JSON whose
//     "id" is the controller's "host_port".
//   - Pulsar LeaderElectionService: ELECTION_ROOT "/loadbalance/leader",
//     EPHEMERAL JSON LeaderBroker {"serviceUrl", newer also "brokerId"}.
//   - Mesos (mesos-go detector/zoo: nodePrefix "info_", nodeJSONPrefix
//     "json.info_"): each master joins the group with an
//     EPHEMERAL_SEQUENTIAL node, JSON MasterInfo (or protobuf); the lowest
//     sequence leads.

// latchSystems maps a Curator election's directory name to its system.
var latchSystems = map[string]struct {
	system System
	label  string
}{
	"_COORDINATOR":        {Druid, "druid coordinator"},
	"_OVERLORD":           {Druid, "druid overlord"},
	"leader-lock":         {Storm, "storm nimbus"},
	"leader-curator":      {Marathon, "marathon leader"},
	"Cluster Coordinator": {NiFi, "nifi cluster coordinator"},
	"Primary Node":        {NiFi, "nifi primary node"},
	"latch":               {Flink, "flink"},
}

// latchElection reads p as one of latchSystems' Curator elections: the
// directory's name, and every child a Curator latch (or, for NiFi's
// LeaderSelector, mutex) node.
func latchElection(t Tree, p string) (Recognition, bool) {
	sys, ok := latchSystems[path.Base(p)]
	if !ok {
		return Recognition{}, false
	}
	switch sys.system {
	case NiFi:
		if path.Base(path.Dir(p)) != "leaders" {
			return Recognition{}, false
		}
	case Flink:
		if _, ok := t.Node(path.Join(path.Dir(p), "leader")); !ok {
			return Recognition{}, false
		}
		sys.label = "flink " + clean(path.Base(path.Dir(p)))
	}
	ps := childNodes(t, p)
	if len(ps) == 0 {
		return Recognition{}, false
	}
	for i := range ps {
		n, ok := lockops.ParseName(ps[i].Name)
		if !ok || n.Recipe != lockops.RecipeCurator || n.Kind != lockops.KindMutex || ps[i].Session == 0 {
			return Recognition{}, false
		}
		if n.Latch == (sys.system == NiFi) {
			return Recognition{}, false
		}
		ps[i].Seq, ps[i].HasSeq = int64(n.Seq), true
		data, _ := t.Node(ps[i].Path)
		ps[i].Identity = clean(string(data.Data))
	}
	sortBySeq(ps)
	ps[0].Role = lockops.RoleHolder
	return Recognition{Path: p, System: sys.system, Type: TypeElection, Label: sys.label, Participants: ps}, true
}

// loneLeader reads p as an ephemeral JSON leader node named leaf under a
// parent named parent, whose identity is the first of keys present.
func loneLeader(t Tree, p, parent, leaf string, keys ...string) (Participant, bool) {
	if path.Base(p) != leaf || path.Base(path.Dir(p)) != parent {
		return Participant{}, false
	}
	n, ok := t.Node(p)
	if !ok || !n.Ephemeral() {
		return Participant{}, false
	}
	js, ok := jsonObject(n.Data)
	if !ok {
		return Participant{}, false
	}
	for _, k := range keys {
		if id, ok := jsonString(js, k); ok {
			h := participant(p, n)
			h.Role, h.Identity = lockops.RoleHolder, clean(id)
			return h, true
		}
	}
	return Participant{}, false
}

// helixController reads p as a Helix cluster's controller leader node.
func helixController(t Tree, p string) (Recognition, bool) {
	h, ok := loneLeader(t, p, "CONTROLLER", "LEADER", "id")
	if !ok {
		return Recognition{}, false
	}
	cluster := path.Base(path.Dir(path.Dir(p)))
	return Recognition{Path: p, System: Helix, Type: TypeElection,
		Label: "helix controller " + clean(cluster), Participants: []Participant{h}}, true
}

// pulsarLeader reads p as Pulsar's load-balancer leader node.
func pulsarLeader(t Tree, p string) (Recognition, bool) {
	h, ok := loneLeader(t, p, "loadbalance", "leader", "brokerId", "serviceUrl")
	if !ok {
		return Recognition{}, false
	}
	return Recognition{Path: p, System: Pulsar, Type: TypeElection,
		Label: "pulsar load balancer", Participants: []Participant{h}}, true
}

var mesosName = regexp.MustCompile(`^(json\.)?info_(\d{10})$`)

// mesosGroup reads p as a Mesos masters' group: at least one JSON
// MasterInfo among ephemeral sequential info nodes.
func mesosGroup(t Tree, p string) (Recognition, bool) {
	ps := childNodes(t, p)
	if len(ps) == 0 {
		return Recognition{}, false
	}
	sawJSON := false
	for i := range ps {
		m := mesosName.FindStringSubmatch(ps[i].Name)
		if m == nil || ps[i].Session == 0 {
			return Recognition{}, false
		}
		ps[i].Seq, ps[i].HasSeq = seq10(ps[i].Name)
		if m[1] == "" {
			continue
		}
		n, _ := t.Node(ps[i].Path)
		js, ok := jsonObject(n.Data)
		host, okH := jsonString(js, "hostname")
		port, okP := jsonInt(js, "port")
		if !ok || !okH || !okP {
			return Recognition{}, false
		}
		ps[i].Identity, sawJSON = clean(fmt.Sprintf("%s:%d", host, port)), true
	}
	if !sawJSON {
		return Recognition{}, false
	}
	sortBySeq(ps)
	ps[0].Role = lockops.RoleHolder
	return Recognition{Path: p, System: Mesos, Type: TypeElection, Label: "mesos master", Participants: ps}, true
}
