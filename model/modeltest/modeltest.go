// Package modeltest builds model values for tests: lock nodes of one
// session that hold or wait since a moment before T0, mutex queues of
// them, and whole snapshots of many lock parents (Parents, WideRoot) that
// ls's and the exporter's tests and benchmarks share. Test code only; nothing in the product imports it.
package modeltest

import (
	"fmt"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// T0 is the moment the nodes' ages are counted back from.
var T0 = time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)

// Node is a plain mutex lock node of session s with role, holding or
// waiting since d before T0.
func Node(seq int32, s int64, role ordering.Role, d time.Duration) model.Node {
	return model.Node{Name: fmt.Sprintf("lock-%010d", seq), Seq: seq, Kind: ordering.KindMutex, Recipe: ordering.RecipePlain,
		Role: role, Believes: role, Session: s, SinceExact: true}.WithClient(fmt.Sprintf("10.0.0.%d:4000", s%250)).WithSince(T0.Add(-d))
}

// Hold is a node of session s holding since d before T0.
func Hold(seq int32, s int64, d time.Duration) model.Node {
	return Node(seq, s, ordering.RoleHolder, d)
}

// Wait is a node of session s waiting since d before T0.
func Wait(seq int32, s int64, d time.Duration) model.Node {
	return Node(seq, s, ordering.RoleWaiting, d)
}

// MutexQ is a present mutex queue at path holding nodes in order.
func MutexQ(path string, nodes ...model.Node) model.Queue {
	return model.Queue{Path: path, State: model.PathPresent, Type: model.TypeMutex, Nodes: model.NodesOf(nodes...)}
}

// Names lists q's node names in queue order (nil for a nil queue).
func Names(q *model.Queue) []string {
	if q == nil {
		return nil
	}
	out := make([]string, q.Nodes.Len())
	for i, n := range q.Nodes.All() {
		out[i] = n.Name
	}
	return out
}

// Warning is q's warning of code, or nil.
func Warning(q *model.Queue, code string) *model.Warning {
	if q == nil {
		return nil
	}
	ws := q.Warnings()
	for i := range ws {
		if ws[i].Code == code {
			return &ws[i]
		}
	}
	return nil
}

// Parents is parents lock parents of nodes nodes each, a holder
// and waiters, a warning on every tenth.
func Parents(parents, nodes int, at time.Time) *model.Snapshot {
	snap := &model.Snapshot{At: at, Conn: model.Conn{State: model.StateConnected}, ServerView: true, ServerViewAt: at}
	qs := make([]model.Queue, 0, parents)
	for i := range parents {
		q := model.Queue{Path: fmt.Sprintf("/locks/service-%04d/job", i), State: model.PathPresent, Type: model.TypeMutex}
		list := make([]model.Node, 0, nodes)
		for k := range nodes {
			n := model.Node{
				Name: fmt.Sprintf("_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-lock-%010d", k), Seq: int32(k),
				Kind: ordering.KindMutex, Recipe: ordering.RecipeCurator, Role: ordering.RoleWaiting,
				Session: int64(0x100000 + i*nodes + k), Czxid: int64(1<<32 + i*nodes + k + 1),
			}.WithCtime(at.Add(-time.Duration(nodes-k) * time.Second))
			n.SinceExact = true
			n.SetSince(n.Ctime())
			if k == 0 {
				n.Role = ordering.RoleHolder
			}
			list = append(list, n)
		}
		q.Nodes = model.NodesOf(list...)
		if i%10 == 0 {
			q.SetWarnings([]model.Warning{{Code: model.WarnHerd, Message: "herd"}})
		}
		qs = append(qs, q)
	}
	snap.Queues = model.QueuesOf(qs...)
	return snap
}

// WideRoot is a root of parents lock parents (a lock per entity):
// every tenth with a holder, every hundredth with two waiters behind it,
// a warning on every fiftieth, strays and hostile bytes here and there.
// A waiter's session is the holder of a parent further on (a worker
// holding one entity waits on another): parents/10 sessions in all,
// waiting for each other in chains.
func WideRoot(parents int, at time.Time) *model.Snapshot {
	snap := &model.Snapshot{At: at, Conn: model.Conn{State: model.StateConnected}}
	qs := make([]model.Queue, 0, parents)
	for i := range parents {
		q := model.Queue{Path: fmt.Sprintf("/locks/orders/order-%07d", i), State: model.PathPresent, Type: model.TypeMutex}
		if i%10 == 0 {
			var nodes []model.Node
			for k := range 1 + 2*boolInt(i%100 == 0) {
				n := model.Node{
					Name: fmt.Sprintf("_c_0f6e4c9a-1d2b-4c3d-8e9f-%012d-lock-%010d", i, k), Seq: int32(k),
					Kind: ordering.KindMutex, Recipe: ordering.RecipeCurator, Role: ordering.RoleWaiting, Believes: ordering.RoleWaiting,
					Session: int64(0x100000 + (i+10*k)*3),
				}.WithCtime(at.Add(-time.Duration(i%3600+k) * time.Second)).WithData([]byte(fmt.Sprintf("worker-%d <pid %d>", i, k)))
				n.SinceExact = true
				n.SetSince(n.Ctime())
				if k == 0 {
					n.Role, n.Believes = ordering.RoleHolder, ordering.RoleHolder
				} else {
					n.Link = model.LinkVerified
					n.SetWatches(nodes[k-1].Name)
				}
				nodes = append(nodes, n)
			}
			q.Nodes = model.NodesOf(nodes...)
		}
		if i%50 == 0 {
			q.SetWarnings([]model.Warning{{Code: model.WarnHerd, Message: "herd on \x1b[31m" + q.Path, Nodes: []string{"a&b"}}})
		}
		if i%70 == 0 {
			q.SetOther([]string{"stray\x07", "leases"})
		}
		if i%333 == 0 {
			q.State = model.PathAbsent
		}
		qs = append(qs, q)
	}
	snap.Queues = model.QueuesOf(qs...)
	return snap
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
