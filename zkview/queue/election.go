// Leader elections: which watched parents are elections, and the words
// the views use for their roles.
//
// An election is a queue whose holder is its leader. Curator's
// LeaderLatch is told by its node names (lockops reads
// "_c_<uuid>-latch-<seq>" as a latch participant, a mutex on the wire);
// Curator's LeaderSelector and Kazoo's Election are plain mutexes on the
// wire, so only the user can say that one is an election, by naming its
// path in zkview.Options.Elections (the context's `elections:`). Either way the
// ordering, the links and the warnings are a mutex's; only Queue.Type
// and the words change: the console and `ls` say leader and follower
// where a lock says holder and waiting. `ls --json` keeps "role"
// holder/waiting (scripts rely on it) and says "type": "election".

package queue

import (
	"slices"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// electionType is q's type once elections are told apart: election for a
// parent whose lock nodes are all LeaderLatch participants, or for one
// the config names an election whose nodes are mutex nodes (or that has
// no child at all: an election nobody runs for now); else q.Type as it
// is. A config name does not turn a read/write lock or a semaphore into
// an election: the nodes on the wire win.
func electionType(q *model.Queue, qm *Tracker, order ordering.Ordering) model.QueueType {
	if q.State != model.PathPresent {
		if qm.Election {
			return model.TypeElection
		}
		return q.Type
	}
	if es := order.Entries; len(es) > 0 && !slices.ContainsFunc(es, func(e ordering.Entry) bool { return !e.Latch }) {
		return model.TypeElection
	}
	switch {
	case !qm.Election:
	case q.Type == model.TypeMutex, q.Type == model.TypeUnknown && q.Nodes.Len() == 0 && len(q.Other()) == 0:
		return model.TypeElection
	}
	return q.Type
}
