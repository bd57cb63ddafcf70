// Package modeltest builds model values for tests: lock nodes of one
// session that hold or wait since a moment before T0, and mutex queues of
// them. Test code only; nothing in the product imports it.
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
