package zkview

import (
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview/queue"
)

// TestWarningEventsOncePerIncident: a mixed queue whose nodes come and go
// stays one incident (raised once, cleared once); split holders naming
// another pair of nodes is a new incident.
func TestWarningEventsOncePerIncident(t *testing.T) {
	now := time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)
	w := &Watcher{cfg: Options{Now: func() time.Time { return now }}}
	qm := &queue.Tracker{Path: "/locks/a"}
	var prev *model.Queue
	step := func(ws ...model.Warning) []string {
		w.pending = nil
		nq := model.Queue{Path: qm.Path}.WithRare(model.QueueRare{Warnings: ws})
		w.warningChangesLocked(prev, nq, now)
		prev = &nq
		var texts []string
		for _, e := range w.pending {
			texts = append(texts, e.Text())
		}
		return texts
	}
	mixed := func(nodes ...string) model.Warning {
		return model.Warning{Code: model.WarnMixedRecipes, Message: "curator and kazoo", Nodes: nodes}
	}
	split := func(nodes ...string) model.Warning {
		return model.Warning{Code: model.WarnSplitHolders, Message: "both hold", Nodes: nodes}
	}
	for i, tc := range []struct {
		ws   []model.Warning
		want []string // substrings, one per event
	}{
		{[]model.Warning{mixed("a1", "b2")}, []string{"mixed-recipes: "}},
		{[]model.Warning{mixed("a1", "b2", "a3")}, nil},
		{[]model.Warning{mixed("b2", "a3")}, nil},
		{[]model.Warning{mixed("b2", "a3"), split("b2", "a3")}, []string{"split-holders: "}},
		{[]model.Warning{mixed("b2", "a3", "a4"), split("a3", "a4")}, []string{"split-holders: ", "split-holders cleared"}},
		{nil, []string{"split-holders cleared", "mixed-recipes cleared"}},
	} {
		got := step(tc.ws...)
		if len(got) != len(tc.want) {
			t.Fatalf("step %d: events %q, want %d like %q", i, got, len(tc.want), tc.want)
		}
		for _, want := range tc.want {
			found := false
			for _, g := range got {
				found = found || strings.Contains(g, want)
			}
			if !found {
				t.Errorf("step %d: no event like %q in %q", i, want, got)
			}
		}
	}
}
