package verdict

import (
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// Next is what happens when the lock moves on, by the one ordering
// (ordering.Order on the queue less its holders): when Gone go, Holds
// hold.
type Next struct {
	// Gone are the nodes that hold by sequence order: their going moves
	// the queue. Empty for a semaphore (any lease returned will do).
	Gone []*model.Node
	// Holds are the nodes that hold then, in queue order; empty when
	// nobody waits (the lock is free then).
	Holds []*model.Node
	// Lease: a semaphore; the first waiter takes the next lease returned.
	Lease bool
	// Race: the plain ephemeral-node lock; its waiters all race to create
	// the node again, and which wins is not known.
	Race bool
}

// nextOf works out q's Next.
func nextOf(q *model.Queue) Next {
	var nx Next
	if q.Type == model.TypeSemaphore {
		nx.Lease = true
		for _, n := range q.Nodes.All() {
			if !holds(q, n) {
				nx.Holds = append(nx.Holds, n)
				break
			}
		}
		return nx
	}
	var rest []string
	byName := map[string]*model.Node{}
	for _, n := range q.Nodes.All() {
		switch {
		case n.Part() != "":
		case n.Role == ordering.RoleHolder:
			nx.Gone = append(nx.Gone, n)
			nx.Race = nx.Race || n.Recipe == ordering.RecipeEphemeral
		case nx.Race || n.Name == "":
			nx.Holds = append(nx.Holds, n) // the ephemeral lock's waiters: all of them race
		default:
			rest = append(rest, n.Name)
			byName[n.Name] = n
		}
	}
	if nx.Race || len(rest) == 0 {
		return nx
	}
	for _, e := range ordering.Order(rest).Holders() {
		if n := byName[e.Name]; n != nil {
			nx.Holds = append(nx.Holds, n)
		}
	}
	return nx
}
