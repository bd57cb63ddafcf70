package layouts

import (
	"slices"
	"testing"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/systems"
	"github.com/zklock/zklock/zkview/queue"
)

// TestAnnotateJudgesMissingWatchOnSystemRoles: HBase's table lock read by
// the recipe's order is a plain queue (read-1 waits on read-0, write-2 on
// read-1); by HBase's, both readers hold and the writer waits. The
// missing-watch warning the recipe's order raised is judged again on
// HBase's roles: a reader that holds is no missing wait, the writer with
// no watch still is.
func TestAnnotateJudgesMissingWatchOnSystemRoles(t *testing.T) {
	const p = "/hbase/table-lock/orders"
	node := func(name string, role ordering.Role, watches string, link model.LinkStatus) model.Node {
		n := model.Node{Name: name, Role: role, Believes: role, Link: link}
		n.SetWatchesPredecessor(watches, watches)
		return n
	}
	part := func(name string, kind ordering.Kind, role ordering.Role) systems.Participant {
		return systems.Participant{Path: p + "/" + name, Name: name, Kind: kind, Role: role}
	}
	sr := &sysRec{rec: systems.Recognition{Path: p, System: systems.HBase, Type: systems.TypeRWLock, Label: "hbase table orders",
		Participants: []systems.Participant{
			part("read-0000000000", ordering.KindRead, ordering.RoleHolder),
			part("read-0000000001", ordering.KindRead, ordering.RoleHolder),
			part("write-0000000002", ordering.KindWrite, ordering.RoleWaiting),
		}}}
	tests := []struct {
		name   string
		writer model.LinkStatus // the writer's link, as the servers told
		want   []string         // the missing-watch warning's nodes
	}{
		{"the writer watches its predecessor", model.LinkVerified, nil},
		{"the writer has no watch", model.LinkMissing, []string{"write-0000000002"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := model.Queue{Path: p, State: model.PathPresent, Nodes: model.NodesOf(
				node("read-0000000000", ordering.RoleHolder, "", model.LinkNone),
				node("read-0000000001", ordering.RoleWaiting, "read-0000000000", model.LinkMissing),
				node("write-0000000002", ordering.RoleWaiting, "read-0000000001", tc.writer),
			)}
			w, ok := queue.MissingWatch(q.Nodes) // what the recipe's order raised
			if !ok || !slices.Contains(w.Nodes, "read-0000000001") {
				t.Fatalf("the recipe's order: %+v %v", w, ok)
			}
			q.SetWarnings([]model.Warning{w})
			got := annotate(q, sr, &systemsState{})
			var missing []string
			for _, w := range got.Warnings() {
				if w.Code == model.WarnMissingWatch {
					if missing != nil {
						t.Errorf("two missing-watch warnings: %+v", got.Warnings())
					}
					missing = w.Nodes
				}
			}
			if !slices.Equal(missing, tc.want) {
				t.Errorf("missing-watch names %q, want %q (warnings %+v)", missing, tc.want, got.Warnings())
			}
			if n := got.Nodes.At(1); n.Role != ordering.RoleHolder || n.Link != model.LinkNone {
				t.Errorf("read-1 after HBase's order: role %v link %v", n.Role, n.Link)
			}
		})
	}
}
