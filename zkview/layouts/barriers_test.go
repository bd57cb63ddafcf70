package layouts

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/systems"
	"github.com/zklock/zklock/zkview/queue"
)

// TestSingleBarrierWaiters: a named single barrier in the snapshot: set
// with its node and the sessions the servers show watching it (less the
// Watcher's own, named by another recognition's identity where it gives
// one), open once gone (live state of a watched path wins over an older
// read), waiters unknown without the server view; no lock warning, no
// wait, and the read's facts are never altered.
func TestSingleBarrierWaiters(t *testing.T) {
	const self, w1, w2, member = 0x100, 0x201, 0x202, 0x203
	tree := systems.NewMemTree()
	tree.Put("/chroot/b", systems.NodeInfo{Data: []byte("127.0.0.1"), Ctime: 1000, Czxid: 7})
	tree.Put("/chroot/p/"+strings.Repeat("a", 32)+"__party__", systems.NodeInfo{Data: []byte("party-w2"), EphemeralOwner: w2, Ctime: 900})
	tree.Put("/chroot/p/"+strings.Repeat("b", 32)+"__party__", systems.NodeInfo{Data: []byte("party-m"), EphemeralOwner: member, Ctime: 901})
	recs := func(t *testing.T) []sysRec {
		var out []sysRec
		for _, get := range []func() (systems.Recognition, bool){
			func() (systems.Recognition, bool) { return systems.Barrier(tree, "/chroot/b") },
			func() (systems.Recognition, bool) { return systems.RecognizeRecipe(tree, "/chroot/p") },
		} {
			rec, ok := get()
			if !ok {
				t.Fatal("not recognised")
			}
			out = append(out, sysRec{rec: rec, nodes: participantNodes(tree, rec)})
		}
		return out
	}
	sv := &queue.ServerView{OK: true, Self: self,
		Clients: map[int64]string{w1: "10.0.0.1:1", w2: "10.0.0.2:2"},
		Watchers: map[string][]int64{
			"/chroot/b":     {w2, self, w1, w2}, // listed by two members
			"/chroot/other": {member},
		}}
	abs := func(p string) string { return p } // the test's paths are the servers'
	at := time.UnixMilli(5000)
	summary := func(q *model.Queue) string {
		parts := []string{string(q.State.String()), model.RecipeSummary(q)}
		for _, n := range q.Nodes.All() {
			parts = append(parts, fmt.Sprintf("%s/%s/%x/%s/%s/%s", n.Name, n.Part(), n.Session, n.Identity(), n.Watches(), n.Recipe))
		}
		return strings.Join(parts, " ")
	}
	for _, c := range []struct {
		name string
		base []model.Queue // the Watcher's own queues (a watched path)
		sv   *queue.ServerView
		gone bool // the node deleted before the read
		want string
	}{
		{"under a root", nil, sv, false,
			"present barrier, set, 2 waiters b/barrier/0///curator /waiter/201//b/curator /waiter/202/party-w2/b/curator"},
		{"no server view", nil, nil, false, "present barrier, set, waiters unknown (no server view) b/barrier/0///curator"},
		{"gone before the read", nil, sv, true, "absent barrier, open"},
		{"watched path, gone since the read", []model.Queue{model.Queue{Path: "/chroot/b", State: model.PathAbsent}.WithRare(model.QueueRare{
			Warnings: []model.Warning{{Code: model.WarnHerd}},
		})}, sv, false, "absent barrier, open"},
		{"watched path, set", []model.Queue{model.Queue{Path: "/chroot/b", State: model.PathPresent}.WithRare(model.QueueRare{
			Warnings: []model.Warning{{Code: model.WarnMissingWatch}},
		})}, sv, false,
			"present barrier, set, 2 waiters b/barrier/0///curator /waiter/201//b/curator /waiter/202/party-w2/b/curator"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.gone {
				saved, _ := tree.Node("/chroot/b")
				tree.Delete("/chroot/b")
				defer tree.Put("/chroot/b", saved)
			}
			st := &systemsState{recs: recs(t), complete: true, at: at}
			read := *st.recs[0].rec.Facts.Set
			queues, _, _ := applySystems(model.QueuesOf(c.base...), st, barrierView{sv: c.sv, abs: abs})
			i, ok := queues.Find("/chroot/b")
			if !ok {
				t.Fatal("no queue for the barrier")
			}
			q := queues.At(i)
			if got := summary(q); got != c.want {
				t.Errorf("\n got %s\nwant %s", got, c.want)
			}
			if q.Type != model.TypeBarrier || len(q.Warnings()) > 0 {
				t.Errorf("type %v, warnings %+v", q.Type, q.Warnings())
			}
			model.QueueWaits(q, nil, func(_ int, a, b *model.Node) { t.Errorf("a wait: %x on %x", a.Session, b.Session) })
			if *st.recs[0].rec.Facts.Set != read || st.recs[0].rec.Facts.Waiters != nil {
				t.Error("the read's facts were altered")
			}
			for _, n := range q.Nodes.All() {
				if n.Part() == model.PartWaiter && (n.Role != ordering.RoleWaiting || n.Link != model.LinkVerified || n.Name != "") {
					t.Errorf("waiter %+v", n)
				}
			}
		})
	}
}
