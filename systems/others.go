package systems

import (
	"fmt"
	"path"
	"regexp"
	"slices"

	"github.com/zklock/zklock/lockops/ordering"
)

// The systems that elect through a Curator recipe under a name of their
// own, and three that keep a node of their own. Sources (FACTS.md "The
// systems' layouts"; each checked against the code named):
//
//   - Druid DiscoveryModule: LeaderLatch at <coordinatorPath>/_COORDINATOR
//     and <overlordPath>/_OVERLORD, participant id = the node's URL.
//   - Storm: LeaderLatch at <storm.zookeeper.root>/leader-lock, id
//     "host:port" of the nimbus.
//   - Flink (apache/flink flink-runtime, ZooKeeperLeaderElectionHaServices
//     at 10c92d16, ZooKeeperLeaderElectionDriver at 0f0c75ab, ZooKeeperUtils):
//     one LeaderLatch per process at <root>/<cluster-id>/leader/latch,
//     created with no id (empty data); the leader writes
//     leader/<component>/connection_info EPHEMERAL, a Java
//     ObjectOutputStream of writeUTF(address) then the session UUID. The
//     participant's identity is the address its session published
//     (rest_server's first), "" for a follower.
//   - YARN ResourceManager with the Curator elector
//     (CuratorBasedElectorService): LeaderLatch at
//     <yarn.resourcemanager.ha.automatic-failover.zk-base-path, default
//     /yarn-leader-election>/<cluster-id>, id the rmId.
//   - NiFi CuratorLeaderElectionManager: LeaderSelector (Curator mutex
//     nodes) at <root>/leaders/Cluster Coordinator and .../Primary Node.
//   - Marathon ZookeeperConf.zooKeeperLeaderCuratorUrl: LeaderLatch at
//     <zk path>/leader-curator (marathon's ZookeeperConf.scala).
//   - Helix: <cluster>/CONTROLLER/LEADER, EPHEMERAL, a ZNRecord JSON whose
//     "id" is the controller's "host_port".
//   - Pulsar LeaderElectionService (pulsar-broker loadbalance/, over
//     pulsar-metadata's LeaderElectionImpl: a put with CreateOption.Ephemeral
//     and expected version -1): ELECTION_ROOT "/loadbalance/leader", and
//     "/loadbalance/extension/leader" for the extensible load manager;
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

// yarnBase is the default parent of the YARN ResourceManager's election.
const yarnBase = "yarn-leader-election"

// latchElection reads p as one of latchSystems' Curator elections: the
// directory's name, and every child a Curator latch (or, for NiFi's
// LeaderSelector, mutex) node.
func latchElection(t Tree, p string) (Recognition, bool) {
	sys, ok := latchSystems[path.Base(p)]
	if !ok && path.Base(path.Dir(p)) == yarnBase {
		sys, ok = struct {
			system System
			label  string
		}{HadoopHA, "yarn " + clean(path.Base(p))}, true
	}
	if !ok {
		return Recognition{}, false
	}
	switch sys.system {
	case NiFi:
		if path.Base(path.Dir(p)) != "leaders" {
			return Recognition{}, false
		}
	case Flink:
		if path.Base(path.Dir(p)) != "leader" {
			return Recognition{}, false
		}
		sys.label = "flink " + clean(path.Base(path.Dir(path.Dir(p))))
	}
	ps, fit := fittingChildren(t, p, curatorMutexNode)
	if !fit || len(ps) == 0 {
		return Recognition{}, false
	}
	for i := range ps {
		n, ok := ordering.ParseName(ps[i].Name)
		if !ok || n.Recipe != ordering.RecipeCurator || n.Kind != ordering.KindMutex || ps[i].Session == 0 {
			return Recognition{}, false
		}
		if n.Latch == (sys.system == NiFi) {
			return Recognition{}, false
		}
		ps[i].Seq, ps[i].HasSeq = int64(n.Seq), true
		data, _ := t.Node(ps[i].Path)
		ps[i].Identity = clean(string(data.Data))
	}
	if sys.system == Flink {
		flinkIdentities(t, path.Dir(p), ps)
	}
	sortBySeq(ps)
	ps[0].Role = ordering.RoleHolder
	return Recognition{Path: p, System: sys.system, Type: TypeElection, Label: sys.label, Participants: ps}, true
}

// flinkIdentities names each latch participant by the address its
// session published in a component's connection_info under leader (the
// rest_server's first, then the components in name order).
func flinkIdentities(t Tree, leader string, ps []Participant) {
	comps, _ := t.Children(leader)
	comps = slices.Clone(comps)
	slices.SortStableFunc(comps, func(a, b string) int {
		return cmpBool(b == "rest_server", a == "rest_server")
	})
	for _, c := range comps {
		n, ok := t.Node(path.Join(leader, c, "connection_info"))
		if !ok || !n.Ephemeral() {
			continue
		}
		addr, ok := javaUTF(n.Data)
		if !ok {
			continue
		}
		for i := range ps {
			if ps[i].Session == n.EphemeralOwner && ps[i].Identity == "" {
				ps[i].Identity = clean(addr)
			}
		}
	}
}

// cmpBool orders true before false when used as cmpBool(b, a).
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// javaUTF reads the first writeUTF of a Java ObjectOutputStream: the
// stream magic and version (AC ED 00 05), a short block-data record
// (0x77, its length), then the string's two-byte length and its bytes.
func javaUTF(b []byte) (string, bool) {
	if len(b) < 8 || b[0] != 0xAC || b[1] != 0xED || b[2] != 0x00 || b[3] != 0x05 || b[4] != 0x77 {
		return "", false
	}
	block := int(b[5])
	n := int(b[6])<<8 | int(b[7])
	if n+2 > block || 8+n > len(b) {
		return "", false
	}
	return string(b[8 : 8+n]), true
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
			h.Role, h.Identity = ordering.RoleHolder, clean(id)
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

// pulsarLeader reads p as Pulsar's load-balancer leader node: the
// modular load manager's /loadbalance/leader, or the extensible one's
// /loadbalance/extension/leader (ExtensibleLoadManagerImpl.ELECTION_ROOT,
// the same LeaderElectionService and LeaderBroker JSON).
func pulsarLeader(t Tree, p string) (Recognition, bool) {
	label := "pulsar load balancer"
	parent := "loadbalance"
	if path.Base(path.Dir(p)) == "extension" && path.Base(path.Dir(path.Dir(p))) == "loadbalance" {
		label, parent = "pulsar load balancer (extensible)", "extension"
	}
	h, ok := loneLeader(t, p, parent, "leader", "brokerId", "serviceUrl")
	if !ok {
		return Recognition{}, false
	}
	return Recognition{Path: p, System: Pulsar, Type: TypeElection,
		Label: label, Participants: []Participant{h}}, true
}

var mesosName = regexp.MustCompile(`^(json\.)?info_(\d{10})$`)

// mesosGroup reads p as a Mesos masters' group: at least one JSON
// MasterInfo among ephemeral sequential info nodes.
func mesosGroup(t Tree, p string) (Recognition, bool) {
	ps, fit := fittingChildren(t, p, func(c Participant) bool { return c.Session != 0 && mesosName.MatchString(c.Name) })
	if !fit || len(ps) == 0 {
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
	ps[0].Role = ordering.RoleHolder
	return Recognition{Path: p, System: Mesos, Type: TypeElection, Label: "mesos master", Participants: ps}, true
}
