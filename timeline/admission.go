package timeline

import (
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// admissions finds the lease that admitted a semaphore contender whose
// admission-lock node left: both recipes create the lease while holding
// that lock, and delete the lock's node once the lease holds (Curator
// also when it gives up, deleting its waiting lease with it). Each lease
// admits one node.
type admissions struct {
	pq      *model.Queue
	prevBy  map[string]*model.Node
	next    model.Nodes
	claimed map[string]bool
}

// leaseOf is the lease that admitted p: a lease of p's session, created
// no earlier than p, that took its hold in this step, else one that held
// already (the lock's and the leases' listings need not show the same
// instant); false when p is no admission-lock node or got no lease. Two
// contenders of one session on one semaphore can be told apart by their
// leases' creation only: one that gives up just after the other got a
// lease may be read admitted.
func (a *admissions) leaseOf(p *model.Node) (string, bool) {
	if a.pq.Type != model.TypeSemaphore || p.Lease || p.Session == 0 {
		return "", false
	}
	fits := func(l *model.Node) bool {
		return l.Lease && l.Role == ordering.RoleHolder && l.Session == p.Session && !a.claimed[l.Name] &&
			(l.Ctime().IsZero() || p.Ctime().IsZero() || !l.Ctime().Before(p.Ctime()))
	}
	claim := func(l *model.Node) (string, bool) {
		if a.claimed == nil {
			a.claimed = map[string]bool{}
		}
		a.claimed[l.Name] = true
		return l.Name, true
	}
	for _, l := range a.next.All() {
		if was := a.prevBy[l.Key()]; fits(l) && (was == nil || was.Role != ordering.RoleHolder) {
			return claim(l)
		}
	}
	for _, l := range a.pq.Nodes.All() {
		if fits(l) {
			return claim(l)
		}
	}
	return "", false
}
