// Single barriers (Options.Barriers; systems/barrier.go reads the node),
// read with the systems' layouts and again at once when the root watch
// tells that a named barrier's node was made or deleted. The sessions
// waiting on one are the servers' to tell. Each holds a data
// watch on the barrier's node (Curator's checkExists with a watcher,
// Kazoo's exists with a watch), which `wchc` lists; the Watcher's own
// session is no waiter. Without the server view the waiters are unknown
// (Facts.Waiters nil), not none.
//
// What the servers cannot tell: a session whose wait timed out (Kazoo's
// wait(timeout)) keeps its watch until the node changes and is counted;
// a cache or another monitor watching the node counts as a waiter. Once
// the node is gone the barrier is open and nobody waits on it, whoever
// still watches the absent path (a Curator waiter that woke checks again
// and leaves an exists watch there).

package layouts

import (
	"context"
	"errors"
	"slices"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/systems"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview/queue"
)

// barrierView is what a single barrier's reading needs besides the
// systems' read: the server view (nil when the servers do not tell) and
// the servers' path of a user's path (the chroot applied).
type barrierView struct {
	sv  *queue.ServerView
	abs func(string) string
}

// isSingleBarrier: rec is a path the config names a single barrier.
func isSingleBarrier(rec *systems.Recognition) bool {
	return rec.Type == systems.TypeBarrier && rec.Facts != nil && rec.Facts.Set != nil
}

// singleBarrier states q, annotated as sr's single barrier, as it is
// now: set or open by q.State (live where the path is watched: the
// systems' read may be older), its node, and its waiters from the server
// view, named by the identities other recognitions give their sessions
// (ids). q's Facts become its own.
func singleBarrier(q *model.Queue, sr *sysRec, bv barrierView, ids map[int64]string) {
	set := q.State == model.PathPresent
	f := *sr.rec.Facts
	f.Set, f.Waiters = &set, nil
	q.SetFacts(&f)
	if !set {
		q.Nodes = model.Nodes{}
		return
	}
	var nodes []model.Node
	for _, n := range q.Nodes.All() {
		if n.Part() == model.PartBarrier {
			nb := *n
			nb.Recipe = sr.rec.Library // participantNodes calls a node with no sequence ephemeral
			nodes = append(nodes, nb)
		}
	}
	if bv.sv != nil {
		waiters := waitersOf(bv.sv, bv.abs(q.Path), sr.rec.Library, ids)
		for i := range waiters {
			if len(nodes) > 0 {
				waiters[i].SetWatches(nodes[0].Name)
			}
		}
		nodes = append(nodes, waiters...)
		n := len(waiters)
		f.Waiters = &n
	}
	q.Nodes = model.NodesOf(nodes...)
}

// waitersOf are the sessions sv shows with a data watch on the servers'
// path abs, less the Watcher's own, in session order (the order they
// wake in is the servers'), as nodes: a waiter owns no node (Name ""),
// and its recipe is the barrier's (lib).
func waitersOf(sv *queue.ServerView, abs string, lib ordering.Recipe, ids map[int64]string) []model.Node {
	sessions := slices.Clone(sv.Watchers[abs])
	slices.Sort(sessions)
	var out []model.Node
	for _, s := range slices.Compact(sessions) {
		if s == 0 || s == sv.Self {
			continue
		}
		out = append(out, model.Node{
			Kind: ordering.KindMutex, Recipe: lib, Role: ordering.RoleWaiting, Believes: ordering.RoleWaiting,
			Link:    model.LinkVerified,
			Session: s,
		}.WithPart(model.PartWaiter).WithClient(sv.Clients[s]).WithIdentity(ids[s]))
	}
	return out
}

// sessionIdentities maps each session to the identity a recognition gives
// one of its nodes (the first met); nil when no single barrier is read.
func sessionIdentities(recs []sysRec) map[int64]string {
	if !slices.ContainsFunc(recs, func(sr sysRec) bool { return isSingleBarrier(&sr.rec) }) {
		return nil
	}
	ids := map[int64]string{}
	for _, sr := range recs {
		for _, n := range sr.nodes {
			if _, ok := ids[n.Session]; !ok && n.Session != 0 && n.Identity() != "" {
				ids[n.Session] = n.Identity()
			}
		}
	}
	return ids
}

// readBarrier reads the named barrier p with one Get: its recognition
// (nil when p is no single barrier now: ephemeral, or with children),
// and read false when the server did not answer.
func readBarrier(ctx context.Context, r systems.Reader, p string) (*sysRec, bool) {
	tree := systems.NewMemTree()
	data, st, err := r.Get(p)
	switch {
	case errors.Is(err, zk.ErrNoNode):
	case err != nil || ctx.Err() != nil:
		return nil, false
	default:
		tree.Put(p, systems.NodeInfo{Data: data[:min(len(data), systems.DataLimit)], EphemeralOwner: st.EphemeralOwner,
			Czxid: st.Czxid, Ctime: st.Ctime})
		if st.NumChildren > 0 {
			tree.Put(p+"/child", systems.NodeInfo{}) // a child, whatever its name: no single barrier
		}
	}
	rec, ok := systems.Barrier(tree, p)
	if !ok {
		return nil, true
	}
	return &sysRec{rec: rec, nodes: participantNodes(tree, rec)}, true
}
