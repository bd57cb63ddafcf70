package systems

import (
	"fmt"
	"path"
	"regexp"
	"strconv"

	"github.com/zklock/zklock/lockops/ordering"
)

// Solr's elections (apache/solr solr/core/src/java/org/apache/solr/cloud,
// read at commit 02c81f8a for LeaderElector.java, 509e7245 for
// OverseerElectionContext.java, 07286c09 for
// ShardLeaderElectionContextBase.java):
//
//   - LeaderElector.joinElection: each candidate creates
//     <electionPath>/election/<sessionId>-<id>-n_ EPHEMERAL_SEQUENTIAL, no
//     data, sessionId in decimal; with joinAtHead it creates a plain
//     EPHEMERAL node reusing the sequence of the node second in line, so
//     two nodes can share a sequence.
//   - LeaderElector.sortSeqs: order by sequence (getSeq, LEADER_SEQ
//     ".*?/?.*?-n_(\d+)"), then by name; the first leads (checkIfIamLeader)
//     and each other candidate watches the one before it.
//   - getNodeName (NODE_NAME ".*?/?(.*?-)(.*?)-n_\d+"): the id after the
//     session: the node name ("127.0.0.1:8983_solr") for the overseer, the
//     core node name ("core_node3") for a shard.
//   - OverseerElectionContext: electionPath "/overseer_elect", leader
//     record "/overseer_elect/leader", EPHEMERAL, Utils.toJSON of
//     {"id": <the leader's election node name>}.
//   - ShardLeaderElectionContextBase: electionPath
//     "/collections/<c>/leader_elect/<shard>", record
//     "/collections/<c>/leaders/<shard>/leader", EPHEMERAL, created in a
//     multi with a check of the leader's election node; its JSON holds
//     "core", "node_name", "base_url" and "core_node_name" (ZkController's
//     joinElection puts those four).
//
// Evidence: a node named "election" whose children all read as Solr
// names and whose session part is each node's own ephemeralOwner (no
// other recipe writes its session id in decimal into its name).

// solrName is LeaderElector's grammar, anchored: session, id, sequence.
var solrName = regexp.MustCompile(`^(-?\d+)-(.*?)-n_(\d+)$`)

// solrElection reads p as a Solr election directory.
func solrElection(t Tree, p string) (Recognition, bool) {
	if path.Base(p) != "election" {
		return Recognition{}, false
	}
	ps, fit := fittingChildren(t, p, func(c Participant) bool { return solrName.MatchString(c.Name) })
	switch {
	case !fit:
		return Recognition{}, false
	case len(ps) == 0:
		return solrEmpty(t, p)
	}
	for i := range ps {
		m := solrName.FindStringSubmatch(ps[i].Name)
		if m == nil {
			return Recognition{}, false
		}
		session, err1 := strconv.ParseInt(m[1], 10, 64)
		seq, err2 := strconv.ParseInt(m[3], 10, 64)
		if err1 != nil || err2 != nil || session != ps[i].Session {
			return Recognition{}, false
		}
		ps[i].Seq, ps[i].HasSeq, ps[i].Identity = seq, true, clean(m[2])
	}
	SolrOrder(ps)
	ps[0].Role = ordering.RoleHolder
	rec := Recognition{Path: p, System: Solr, Type: TypeElection, Participants: ps}
	parent := path.Dir(p)
	switch {
	case path.Base(parent) == "overseer_elect":
		rec.Label = "solr overseer"
		rec.Record = path.Join(parent, "leader")
		rec.Findings = solrOverseerCheck(t, rec.Record, ps[0])
	case path.Base(path.Dir(parent)) == "leader_elect":
		shard, coll := path.Base(parent), path.Dir(path.Dir(parent))
		rec.Label = "solr " + path.Base(coll) + "/" + shard
		rec.Record = path.Join(coll, "leaders", shard, "leader")
		rec.Findings = solrShardCheck(t, rec.Record, ps[0])
	default:
		rec.Label = "solr election"
	}
	return rec, true
}

// SolrOrder sorts an election's participants as LeaderElector.sortSeqs
// does: by sequence, then by name. Two nodes with one sequence (joinAtHead)
// are an order, not a split: only the first leads.
func SolrOrder(ps []Participant) { sortBySeq(ps) }

// solrOverseerCheck compares the overseer's leader record, {"id": name},
// with the election's head.
func solrOverseerCheck(t Tree, record string, head Participant) []Finding {
	n, ok := t.Node(record)
	if !ok {
		return []Finding{solrMismatch(record, "", head)}
	}
	js, _ := jsonObject(n.Data)
	id, _ := jsonString(js, "id")
	if id == head.Name {
		return nil
	}
	return []Finding{solrMismatch(record, id, head)}
}

// solrShardCheck compares a shard's leader record with the shard
// election's head: its core_node_name names the head's core node when
// Solr wrote one; otherwise the record must belong to the head's session
// (Solr creates it from the leader's session, in a multi that checks the
// head's node).
func solrShardCheck(t Tree, record string, head Participant) []Finding {
	n, ok := t.Node(record)
	if !ok {
		return []Finding{solrMismatch(record, "", head)}
	}
	js, _ := jsonObject(n.Data)
	if core, ok := jsonString(js, "core_node_name"); ok {
		if core == head.Identity && n.EphemeralOwner == head.Session {
			return nil
		}
		node, _ := jsonString(js, "node_name")
		return []Finding{solrMismatch(record, fmt.Sprintf("%s on %s (session 0x%x)", core, node, n.EphemeralOwner), head)}
	}
	if n.EphemeralOwner == head.Session {
		return nil
	}
	return []Finding{solrMismatch(record, fmt.Sprintf("session 0x%x", n.EphemeralOwner), head)}
}

func solrMismatch(record, says string, head Participant) Finding {
	return leaderMismatch(record, says, head.Name, head.Path)
}

// solrEmpty reads p, an election directory with no candidate, as Solr's
// when its place says so (the overseer's, or a shard's under
// leader_elect): a leader record naming somebody is a leader-mismatch
// (nobody stands to lead); no record either is an election with no
// leader, which the label says ("solr overseer, no leader").
func solrEmpty(t Tree, p string) (Recognition, bool) {
	parent := path.Dir(p)
	rec := Recognition{Path: p, System: Solr, Type: TypeElection}
	switch {
	case path.Base(parent) == "overseer_elect":
		rec.Label, rec.Record = "solr overseer", path.Join(parent, "leader")
	case path.Base(path.Dir(parent)) == "leader_elect":
		shard, coll := path.Base(parent), path.Dir(path.Dir(parent))
		rec.Label = "solr " + clean(path.Base(coll)) + "/" + clean(shard)
		rec.Record = path.Join(coll, "leaders", shard, "leader")
	default:
		return Recognition{}, false
	}
	n, ok := t.Node(rec.Record)
	if !ok {
		rec.Label += ", no leader"
		return rec, true
	}
	js, _ := jsonObject(n.Data)
	says, _ := jsonString(js, "id")
	if core, ok := jsonString(js, "core_node_name"); ok {
		node, _ := jsonString(js, "node_name")
		says = fmt.Sprintf("%s on %s", core, node)
	}
	if says == "" {
		says = fmt.Sprintf("session 0x%x", n.EphemeralOwner)
	}
	rec.Findings = []Finding{leaderMismatch(rec.Record, says, "", "")}
	return rec, true
}
