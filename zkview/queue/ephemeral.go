// The plain ephemeral-node lock, the seeds' first scheme: every contender
// tries to create the same ephemeral, non-sequential node; the one that
// succeeds holds; the others set an exists watch on it and try again when
// it goes. There is no queue: every release wakes every contender and
// they all race to create the node again, a herd by construction.
//
// It is read in two shapes:
//
//   - a watched path (zkview.Options.Paths) that is itself an ephemeral node: the
//     node is shown under its last path element;
//   - a lock parent whose only child is an ephemeral node with no sequence
//     (and not named like a Kazoo semaphore lease, 32 hex digits: those
//     belong to the semaphore reading).
//
// The holder is the node's ephemeralOwner, held since the node's ctime.
// The waiters are the sessions the servers list (`wchc`, every member) as
// watching the node, less its owner and the Watcher's own session; they
// own no node, so their Node has Name "", Watches the lock node and Link
// verified (the servers are the only source), sorted by session id: the
// order they will be served in is a race. More than herdExtra of them
// (one watcher is not a crowd) are flagged herd, by construction. Without
// the server view only the holder is known.
//
// Costs: one Get of the lone node at each listing that can show one (a
// child reused by the next holder cannot be cached by name), none
// otherwise. What the servers cannot tell: a contender polling with a
// plain exists (no watch) is not seen, and another monitor watching the
// node itself (a console on the same path) counts as a waiter.

package queue

import (
	"fmt"
	"path"
	"slices"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// LoneNode is what a listing read of a plain ephemeral lock's node.
type LoneNode struct {
	Name string // the child's name; "" when the watched path is the node
	Rec  *Record
}

// LoneCandidate: a child that may be a plain ephemeral lock's node.
func LoneCandidate(name string) bool {
	if _, ok := ordering.ParseName(name); ok {
		return false
	}
	return !ordering.IsHex32(name)
}

// plainEphemeral shows qm's plain ephemeral lock in q, when the last
// listing found one and q has no lock node: the holder, the waiters the
// servers show, the herd warning. Type mutex.
func plainEphemeral(q *model.Queue, qm *Tracker, sv *ServerView) {
	l := qm.Lone()
	if l == nil || q.State != model.PathPresent || q.Nodes.Len() > 0 {
		return
	}
	watched, name := qm.Abs(), path.Base(qm.Path)
	if l.Name != "" {
		if kids := qm.Kids(); len(kids) != 1 || kids[0] != l.Name {
			return // read with an older listing
		}
		watched, name = model.ChildPath(qm.Abs(), l.Name), l.Name
		q.SetOther(slices.DeleteFunc(q.Other(), func(o string) bool { return o == l.Name }))
	} else if len(qm.Kids()) != 0 {
		return
	}
	r := l.Rec
	holder := model.Node{
		Name: name, Kind: ordering.KindMutex, Recipe: ordering.RecipeEphemeral,
		Role: ordering.RoleHolder, Believes: ordering.RoleHolder,
		Session: r.Session, DataLen: r.DataLen,
		Version: r.Version, Czxid: r.Czxid,
		// Created holding: the hold began with the node.
		SinceExact: true,
	}.WithData(r.DataBytes()).WithCtime(r.Ctime()).WithMtime(r.Mtime()).WithSince(r.Ctime())
	nodes := []model.Node{holder}
	if sv != nil {
		nodes[0].SetClient(sv.Clients[r.Session])
		watchers := slices.Clone(sv.Watchers[watched])
		slices.Sort(watchers)
		for _, s := range slices.Compact(watchers) {
			if s == r.Session || s == sv.Self {
				continue
			}
			nodes = append(nodes, model.Node{
				Kind: ordering.KindMutex, Recipe: ordering.RecipeEphemeral,
				Role: ordering.RoleWaiting, Believes: ordering.RoleWaiting,
				Link:    model.LinkVerified,
				Session: s,
			}.WithWatchesPredecessor(name, name).WithClient(sv.Clients[s]))
		}
	}
	waiters := len(nodes) - 1
	if waiters > herdExtra {
		nodes[0].Herd = true
	}
	q.Nodes, q.Type = model.NodesOf(nodes...), model.TypeMutex
	if waiters > herdExtra {
		q.AddWarnings(model.Warning{Code: model.WarnHerd, Nodes: []string{name},
			Message: fmt.Sprintf("plain ephemeral lock: %d sessions watch %s to create it when it goes, a herd by construction: every release wakes them all and they race for it",
				waiters, model.ShortName(name))})
	}
}
