package queue

import (
	"slices"
	"testing"

	"github.com/zklock/zklock/model"
)

// TestDuplicateWarnings: an identity with nodes of two sessions in an
// election is warned of, with its nodes; one session's two nodes, empty
// data, Curator's default IP data, persistent nodes and non-elections
// are not.
func TestDuplicateWarnings(t *testing.T) {
	n := func(name string, session int64, data string) model.Node {
		return model.Node{Name: name, Session: session, DataLen: int32(len(data))}.WithData([]byte(data))
	}
	sys := func(name string, session int64, id string) model.Node {
		x := n(name, session, "")
		x.SetIdentity(id)
		return x
	}
	at := func(x model.Node, client string) model.Node {
		x.SetClient(client)
		return x
	}
	cut := n("d", 2, "long-id")
	cut.DataLen = 900
	tests := []struct {
		name  string
		typ   model.QueueType
		nodes []model.Node
		want  [][]string // nodes of each warning
	}{
		{"two sessions", model.TypeElection, []model.Node{n("a", 1, "w1"), n("b", 2, "w2"), n("c", 3, "w1")}, [][]string{{"a", "c"}}},
		{"three nodes two sessions", model.TypeElection, []model.Node{n("a", 1, "w1"), n("b", 2, "w1"), n("c", 2, "w1")}, [][]string{{"a", "b", "c"}}},
		{"two identities", model.TypeElection, []model.Node{n("a", 1, "w1"), n("b", 1, "w2"), n("c", 2, "w2"), n("d", 2, "w1")}, [][]string{{"a", "d"}, {"b", "c"}}},
		{"one session", model.TypeElection, []model.Node{n("a", 1, "w1"), n("b", 1, "w1")}, nil},
		{"empty data", model.TypeElection, []model.Node{n("a", 1, ""), n("b", 2, "")}, nil},
		{"curator default IP", model.TypeElection, []model.Node{n("a", 1, "10.1.2.3"), n("b", 2, "10.1.2.3")}, nil},
		{"IPv6", model.TypeElection, []model.Node{n("a", 1, "fe80::1"), n("b", 2, "fe80::1")}, nil},
		{"persistent", model.TypeElection, []model.Node{n("a", 0, "w1"), n("b", 2, "w1")}, nil},
		{"mutex by data", model.TypeMutex, []model.Node{n("a", 1, "w1"), n("b", 2, "w1")}, nil},
		{"system identity", model.TypeElection, []model.Node{sys("a", 1, "broker 1"), sys("b", 2, "broker 1")}, [][]string{{"a", "b"}}},
		{"data cut short differs", model.TypeElection, []model.Node{cut, n("e", 3, "long-id")}, nil},
		{"two hosts: not one participant", model.TypeElection, []model.Node{at(n("a", 1, "svc"), "10.0.0.1:4000"), at(n("b", 2, "svc"), "10.0.0.2:4000")}, nil},
		{"one host", model.TypeElection, []model.Node{at(n("a", 1, "svc"), "10.0.0.1:4000"), at(n("b", 2, "svc"), "10.0.0.1:4100")}, [][]string{{"a", "b"}}},
		{"old session's client gone", model.TypeElection, []model.Node{n("a", 1, "svc"), at(n("b", 2, "svc"), "10.0.0.1:4100")}, [][]string{{"a", "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := []model.Warning{{Code: model.WarnDuplicateParticipant, Nodes: []string{"gone"}}, {Code: model.WarnHerd}}
			q := model.Queue{Type: tt.typ, Nodes: model.NodesOf(tt.nodes...)}.WithRare(model.QueueRare{Warnings: old})
			DuplicateParticipants(&q)
			var got [][]string
			for _, w := range q.Warnings() {
				if w.Code == model.WarnDuplicateParticipant {
					got = append(got, w.Nodes)
				}
			}
			if !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("duplicate-participant nodes %v, want %v", got, tt.want)
			}
			if !slices.ContainsFunc(q.Warnings(), func(w model.Warning) bool { return w.Code == model.WarnHerd }) {
				t.Errorf("other warnings lost: %v", q.Warnings())
			}
			if old[0].Code != model.WarnDuplicateParticipant || len(old) != 2 {
				t.Errorf("the queue's old warnings were altered: %v", old)
			}
		})
	}
}
