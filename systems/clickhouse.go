package systems

import (
	"path"
	"regexp"
	"strings"

	"github.com/zklock/zklock/lockops/ordering"
)

// ClickHouse replica elections (ClickHouse/ClickHouse
// src/Storages/MergeTree/LeaderElection.h, commit 05a96902,
// checkNoOldLeaders):
//
//   - before 21.12 each replica created <table>/leader_election/
//     leader_election- EPHEMERAL_SEQUENTIAL; the lexicographically
//     smallest name led (before 20.6, data = the replica name) or, from
//     20.6, its data "<replica> (multiple leaders Ok)" enabled
//     multi-leader mode: every replica leads.
//   - since 21.12 a PERSISTENT "leader_election-0" with data
//     "all (multiple leaders Ok)" (persistent_multiple_leaders,
//     persistent_identifier) sorts before every sequential node and makes
//     the mode permanent.
//
// In multi-leader mode nobody waits: the nodes are drawn as holders,
// never as a stuck queue.

const (
	chPrefix   = "leader_election-"
	chSuffix   = " (multiple leaders Ok)"
	chAllLeads = "all (multiple leaders Ok)"
)

var chName = regexp.MustCompile(`^leader_election-(\d+)$`)

// clickhouseElection reads p as a replicated table's leader_election.
func clickhouseElection(t Tree, p string) (Recognition, bool) {
	if path.Base(p) != "leader_election" {
		return Recognition{}, false
	}
	ps, fit := fittingChildren(t, p, func(c Participant) bool { return chName.MatchString(c.Name) })
	if !fit || len(ps) == 0 {
		return Recognition{}, false
	}
	multi := false
	for i := range ps {
		if chName.FindStringSubmatch(ps[i].Name) == nil {
			return Recognition{}, false
		}
		n, _ := t.Node(ps[i].Path)
		data := string(n.Data)
		switch {
		case ps[i].Name == chPrefix+"0" && !n.Ephemeral() && data == chAllLeads:
			ps[i].Marker, ps[i].Identity = true, "all"
			multi = true
		case n.Ephemeral() && strings.HasSuffix(data, chSuffix):
			ps[i].Identity = clean(strings.TrimSuffix(data, chSuffix))
			multi = true
		case n.Ephemeral() && len(ps[i].Name) == len(chPrefix)+10:
			ps[i].Identity = clean(data)
		default:
			return Recognition{}, false
		}
		ps[i].Seq, ps[i].HasSeq = seq10(ps[i].Name)
	}
	// The names are compared as strings (::sort in checkNoOldLeaders);
	// childNodes already returns them in that order.
	rec := Recognition{Path: p, System: ClickHouse, Type: TypeElection,
		Label: "clickhouse " + clean(path.Base(path.Dir(p))), Participants: ps}
	if multi {
		rec.MultiLeader = true
		for i := range ps {
			ps[i].Role = ordering.RoleHolder
		}
		return rec, true
	}
	ps[0].Role = ordering.RoleHolder
	return rec, true
}
