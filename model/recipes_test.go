package model

import (
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// TestRecipeSummary: the heading of each recipe that is no lock says
// what it is, in ls and the queue pane; a lock's heading is not made here.
func TestRecipeSummary(t *testing.T) {
	yes, no, v, depth, one, two := true, false, 42.0, 3, 1, 2
	item := Node{Name: "queue-0000000000"}.WithPart(PartItem)
	taken := Node{Name: "entry-005-0000000001"}.WithPart(PartTaken)
	member := Node{Name: "m"}.WithPart(PartMember)
	cases := []struct {
		q    Queue
		want string
	}{
		{Queue{Type: TypeQueue, Nodes: NodesOf(taken, item, item)}.WithRare(QueueRare{Facts: &RecipeFacts{Depth: &depth}}), "queue, 2 items, 1 taken"},
		{Queue{Type: TypeBarrier, Nodes: NodesOf(member)}.WithRare(QueueRare{Facts: &RecipeFacts{Entered: 2, Ready: &no}}), "barrier, 2 entered, not ready"},
		{Queue{Type: TypeBarrier}.WithRare(QueueRare{Facts: &RecipeFacts{Entered: 3, Ready: &yes}}), "barrier, 3 entered, ready"},
		{Queue{Type: TypeBarrier}.WithRare(QueueRare{Facts: &RecipeFacts{Set: &yes, Waiters: &two}}), "barrier, set, 2 waiters"},
		{Queue{Type: TypeBarrier}.WithRare(QueueRare{Facts: &RecipeFacts{Set: &yes, Waiters: &one}}), "barrier, set, 1 waiter"},
		{Queue{Type: TypeBarrier}.WithRare(QueueRare{Facts: &RecipeFacts{Set: &yes}}), "barrier, set, waiters unknown (no server view)"},
		{Queue{Type: TypeBarrier}.WithRare(QueueRare{Facts: &RecipeFacts{Set: &no}}), "barrier, open"},
		{Queue{Type: TypeMembership, Nodes: NodesOf(member)}, "membership, 1 member"},
		{Queue{Type: TypeCounter}.WithRare(QueueRare{Facts: &RecipeFacts{Value: &v}}), "counter, value 42"},
		{Queue{Type: TypeLease}.WithRare(QueueRare{Facts: &RecipeFacts{Holder: "w\x1b[2J", Expires: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}),
			`lease, held by w\x1b[2J until 2026-01-02 03:04:05Z`},
		{Queue{Type: TypeMutex, Nodes: NodesOf(Node{Name: "lock-0000000000", Role: ordering.RoleHolder})}, ""},
		{Queue{Type: TypeElection}, ""},
	}
	for _, c := range cases {
		if got := RecipeSummary(&c.q); got != c.want {
			t.Errorf("%v: %q, want %q", c.q.Type, got, c.want)
		}
	}
	if TypeQueue.Waits() || !TypeSemaphore.Waits() || TypeLease.String() != "lease" {
		t.Error("Waits/String of the recipe types")
	}
}

// TestRecipeNoWaits: nodes of a recipe that is no lock bring no wait to
// the sessions graph, whatever their roles; the same nodes in a mutex do.
func TestRecipeNoWaits(t *testing.T) {
	nodes := NodesOf(Node{Name: "a", Session: 1, Role: ordering.RoleHolder, Believes: ordering.RoleHolder, Kind: ordering.KindMutex},
		Node{Name: "b", Session: 2, Kind: ordering.KindMutex})
	for _, c := range []struct {
		typ   QueueType
		waits int
	}{{TypeMutex, 1}, {TypeQueue, 0}, {TypeBarrier, 0}, {TypeMembership, 0}} {
		n := 0
		QueueWaits(&Queue{Type: c.typ, Nodes: nodes}, nil, func(int, *Node, *Node) { n++ })
		if n != c.waits {
			t.Errorf("%v: %d waits, want %d", c.typ, n, c.waits)
		}
	}
}
