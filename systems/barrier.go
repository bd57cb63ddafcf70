// Single barriers: Curator's DistributedBarrier and Kazoo's Barrier. Both
// are one node, read here only at a path the user names (the context's
// `barriers:`), never found under a root.
//
// On the wire (stock Curator 5.4 jars and Kazoo 2.8 against a 3.8.0
// server, a dump of the tree and `wchc`/`wchp` beside it):
//
//   - Curator DistributedBarrier.setBarrier creates the node persistent
//     with the client's default data, its local IP address ("127.0.0.1");
//     waitOnBarrier calls checkExists with a watcher: a data watch on the
//     node, listed by wchc for each waiting session; removeBarrier deletes
//     it. A waiter that wakes checks again: its exists watch on the now
//     absent path stays listed after the barrier opened.
//   - Kazoo Barrier.create is ensure_path (persistent, empty data); wait()
//     is exists with a watch (a data watch, listed by wchc); remove()
//     deletes the node. A wait(timeout) that times out leaves its watch.
//   - The setter holds no watch; nobody owns the node (persistent).
//
// Why not found without the config: the same shape, a persistent leaf
// with empty data or a client's address watched by other sessions, is
// what a Curator NodeCache or TreeCache, a Kazoo DataWatch or TreeCache,
// or another monitor leaves on any such leaf (an empty flag node, a node
// Curator created without data); wchc says who watches, not why. Named,
// the path is a barrier whatever its data, unless the wire says otherwise:
// an ephemeral node or one with children is not a single barrier.

package systems

import (
	"net"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// Barrier reads p, a path the user names a single barrier: set while the
// node exists (its one participant is the node, Part model.PartBarrier),
// open once it is gone. Library is Curator when the data is an IP address
// (Curator's default data), else unknown (Kazoo's is empty, as is any
// node made without data). False when p is ephemeral or has children:
// the nodes on the wire win over the name. The waiters are the servers'
// to tell (the Watcher adds them from wchc).
func Barrier(t Tree, p string) (Recognition, bool) {
	n, ok := t.Node(p)
	if !ok {
		set := false
		return Recognition{Path: p, Type: TypeBarrier, Facts: &model.RecipeFacts{Set: &set}}, true
	}
	if kids, listed := t.Children(p); !listed || len(kids) > 0 || n.Ephemeral() {
		return Recognition{}, false
	}
	lib := ordering.RecipeUnknown
	if len(n.Data) > 0 && net.ParseIP(string(n.Data)) != nil {
		lib = ordering.RecipeCurator
	}
	pt := participant(p, n)
	pt.Part, pt.Role = model.PartBarrier, ordering.RoleHolder
	set := true
	return Recognition{Path: p, Type: TypeBarrier, Library: lib, Participants: []Participant{pt},
		Facts: &model.RecipeFacts{Set: &set}}, true
}
