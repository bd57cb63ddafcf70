package narration

import (
	"strings"
	"testing"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// TestNarrationTellsHowANodeWent: a node gone with its session is told
// "expired" or "closed" when the change's cause says so, never
// "released"; a split holder is told by what it believes.
func TestNarrationTellsHowANodeWent(t *testing.T) {
	const name = "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000044"
	before := &model.Snapshot{}
	node := model.Node{Name: name, Role: ordering.RoleHolder}
	for _, tc := range []struct {
		ev      model.Change
		want    string
		notWant string
	}{
		{model.Change{Kind: model.ChangeSessionLost, Cause: model.CauseExpired, Node: node}, "#44 was deleted (its session expired)", "released"},
		{model.Change{Kind: model.ChangeSessionLost, Cause: model.CauseClosed, Node: node}, "#44 was deleted (its client closed its session)", "released"},
		{model.Change{Kind: model.ChangeSessionLost, Node: node}, "#44 was deleted (its session ended)", "released"},
		{model.Change{Kind: model.ChangeReleased, Node: node}, "#44 was deleted (released, or its session ended)", "expired"},
		{model.Change{Kind: model.ChangeReleased, Node: model.Node{Name: name, Believes: ordering.RoleHolder}}, "#44 was deleted (it believed it held", "expired"},
	} {
		got := Narrate(tc.ev, before, before)
		if !strings.HasPrefix(got, tc.want) || strings.Contains(got, tc.notWant) {
			t.Errorf("%s (%s): %q, want %q... without %q", tc.ev.Kind, tc.ev.Cause, got, tc.want, tc.notWant)
		}
	}
	split := model.Node{Name: name, Role: ordering.RoleWaiting, Believes: ordering.RoleHolder}.WithWatches("")
	after := &model.Snapshot{Queues: model.QueuesOf(model.Queue{Path: "/locks/a", State: model.PathPresent, Nodes: model.NodesOf(split)})}
	got := Narrate(model.Change{Kind: model.ChangeJoined, Path: "/locks/a", Node: split}, before, after)
	if !strings.Contains(got, "believes it holds") || strings.Contains(got, "and waits") {
		t.Errorf("split holder joined: %q", got)
	}
}
