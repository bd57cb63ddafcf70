// The duplicate-participant warning: one participant of an election with
// nodes from two sessions. A client that reconnects with a new session
// while its old one lives on (Curator's LeaderLatch after a connection
// loss, Druid's leader after a long pause) joins again beside its old
// node, and the old node may still lead: two processes that both believe
// they lead, or one that leads by a node it no longer watches.
//
// Only what a participant states about itself is judged: the Identity a
// system's layout gives (a Kafka broker id, a Solr core node name), or,
// in an election, the node's data, which LeaderLatch, LeaderSelector
// with an id and Kazoo's Election write as the participant's id. Data
// that is a bare IP address is no identity: it is Curator's default data
// (the client's local IP) for a LeaderSelector without an id, and every
// process on one host writes the same. Mutexes, read/write locks and
// semaphores are not judged: Curator's mutex data is that IP too, and
// Kazoo's identifier is often the host name, shared by its workers.
// Nodes whose clients the servers place on two hosts are not one
// participant either (an id set to the service's name on every host): a
// reconnect stays on its host, and the old session's connection is gone
// (its client is unknown), so a host can refute a duplicate, never prove
// one.

package queue

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/zklock/zklock/model"
)

// DuplicateParticipants sets q's duplicate-participant warnings afresh
// (a system's identities arrive after the recipe's warnings are built,
// so it may run twice): one per identity with nodes from two sessions or
// more, its nodes in queue order. q.Warnings is replaced, never altered.
func DuplicateParticipants(q *model.Queue) {
	ws := slices.DeleteFunc(slices.Clone(q.Warnings()), func(w model.Warning) bool { return w.Code == model.WarnDuplicateParticipant })
	if q.Type == model.TypeElection {
		ws = append(ws, duplicateWarnings(q.Nodes)...)
	}
	if len(ws) == 0 && q.Warnings() == nil {
		return
	}
	q.SetWarnings(ws)
}

// duplicateWarnings is one warning per identity stated by nodes of two
// sessions or more, in the order of each identity's first node.
func duplicateWarnings(nodes model.Nodes) []model.Warning {
	type group struct {
		id       string
		names    []string
		sessions []int64
		hosts    []string // the clients' hosts the servers tell
	}
	var groups []*group
	byID := map[string]*group{}
	for _, n := range nodes.All() {
		id := participantID(n)
		if id == "" || n.Session == 0 {
			continue
		}
		g := byID[id]
		if g == nil {
			g = &group{id: id}
			byID[id] = g
			groups = append(groups, g)
		}
		g.names = append(g.names, n.Name)
		if !slices.Contains(g.sessions, n.Session) {
			g.sessions = append(g.sessions, n.Session)
		}
		if h := clientHost(n.Client()); h != "" && !slices.Contains(g.hosts, h) {
			g.hosts = append(g.hosts, h)
		}
	}
	var ws []model.Warning
	for _, g := range groups {
		if len(g.sessions) < 2 || len(g.hosts) > 1 {
			continue
		}
		ws = append(ws, model.Warning{Code: model.WarnDuplicateParticipant, Nodes: g.names,
			Message: fmt.Sprintf("participant %q has %d nodes from %d sessions (a reconnect left the old one?): %s",
				model.SanitizeString(g.id, 40), len(g.names), len(g.sessions), listNames(g.names, ", ", 3))})
	}
	return ws
}

// participantID is the identity n states as an election's participant:
// its system's Identity, else its data unless empty or a bare IP
// address; "" when it states none. Data cut short is told apart by its
// full length.
func participantID(n *model.Node) string {
	if n.Identity() != "" {
		return n.Identity()
	}
	if n.Lease || len(n.Data()) == 0 {
		return ""
	}
	data := string(n.Data())
	if net.ParseIP(strings.TrimSpace(data)) != nil {
		return ""
	}
	if int(n.DataLen) > len(n.Data()) {
		return fmt.Sprintf("%s… (%d bytes)", data, n.DataLen)
	}
	return data
}

// clientHost is the host of a client's "ip:port", "" when unknown.
func clientHost(client string) string {
	if h, _, err := net.SplitHostPort(client); err == nil {
		return h
	}
	return client
}
