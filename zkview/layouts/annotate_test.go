package layouts

import (
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/systems"
	"github.com/zklock/zklock/zkview/queue"
)

// TestAnnotateRejudgesOnSystemRoles: HBase's table lock read by the
// recipe's order is a plain queue (read-1 waits on read-0, write-2 on
// read-1); by HBase's, both readers hold and the writer waits. The
// warnings that name waiters or holders are judged again on HBase's roles:
// a reader that holds is no missing wait, the writer with no watch still
// is; a silent reader holds, so it is a silent holder, and a silent
// writer, which waits, is none (even where the recipe's order had it
// holding, as an order that put it first would).
func TestAnnotateRejudgesOnSystemRoles(t *testing.T) {
	const p = "/hbase/table-lock/orders"
	at := time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)
	sv := &queue.ServerView{Start: at.Add(-time.Millisecond), At: at}
	silent := model.Health{Member: "127.0.0.1:2181", Heard: at.Add(-8 * time.Second), Timeout: 10 * time.Second, At: at}
	node := func(name string, role ordering.Role, watches string, link model.LinkStatus, h model.Health) model.Node {
		n := model.Node{Name: name, Role: role, Believes: role, Link: link}
		n.SetWatchesPredecessor(watches, watches)
		n.SetHealth(h)
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
		name         string
		writer       model.LinkStatus // the writer's link, as the servers told
		reader       model.Health     // read-1's
		writerHealth model.Health
		writerRole   ordering.Role // by the recipe's order (the zero Role waits)
		missing      []string      // the missing-watch warning's nodes
		silent       []string      // the silent-holder warning's
	}{
		{name: "the writer watches its predecessor", writer: model.LinkVerified},
		{name: "the writer has no watch", writer: model.LinkMissing, missing: []string{"write-0000000002"}},
		{name: "the second reader is silent", writer: model.LinkVerified, reader: silent, silent: []string{"read-0000000001"}},
		{name: "the writer is silent", writer: model.LinkVerified, writerHealth: silent},
		{name: "the writer is silent, read as holding", writer: model.LinkNone, writerHealth: silent, writerRole: ordering.RoleHolder},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := model.Queue{Path: p, State: model.PathPresent, Nodes: model.NodesOf(
				node("read-0000000000", ordering.RoleHolder, "", model.LinkNone, model.Health{}),
				node("read-0000000001", ordering.RoleWaiting, "read-0000000000", model.LinkMissing, tc.reader),
				node("write-0000000002", tc.writerRole, "read-0000000001", tc.writer, tc.writerHealth),
			)}
			// what the recipe's order raised: read-1 missing a watch, the
			// silent writer (after a reader the names say waits) none
			var ws []model.Warning
			for _, judge := range []func(model.Nodes, *queue.ServerView) (model.Warning, bool){func(n model.Nodes, _ *queue.ServerView) (model.Warning, bool) { return queue.MissingWatch(n) }, queue.SilentHolders} {
				if w, ok := judge(q.Nodes, sv); ok {
					ws = append(ws, w)
				}
			}
			if len(ws) == 0 || !slices.Contains(ws[0].Nodes, "read-0000000001") {
				t.Fatalf("the recipe's order: %+v", ws)
			}
			q.SetWarnings(ws)
			got := annotate(q, sr, &systemsState{}, sv)
			named := map[string][]string{}
			for _, w := range got.Warnings() {
				if _, twice := named[w.Code]; twice {
					t.Errorf("two %s warnings: %+v", w.Code, got.Warnings())
				}
				named[w.Code] = w.Nodes
			}
			if m := named[model.WarnMissingWatch]; !slices.Equal(m, tc.missing) {
				t.Errorf("missing-watch names %q, want %q (warnings %+v)", m, tc.missing, got.Warnings())
			}
			if s := named[model.WarnSilentHolder]; !slices.Equal(s, tc.silent) {
				t.Errorf("silent-holder names %q, want %q (warnings %+v)", s, tc.silent, got.Warnings())
			}
			if n := got.Nodes.At(1); n.Role != ordering.RoleHolder || n.Link != model.LinkNone {
				t.Errorf("read-1 after HBase's order: role %v link %v", n.Role, n.Link)
			}
		})
	}
}
