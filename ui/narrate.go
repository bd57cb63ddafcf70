package ui

import (
	"strings"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
)

// narrate tells, in one sentence for a room watching the demo, which step of
// the lock recipe an event shows: node created, children listed, watch set
// on the predecessor, predecessor deleted, successor notified, re-check,
// holds. before is the snapshot the event happened after, after the one
// that shows its result. "" when the event is not a recipe step.
func narrate(ev model.Event, before, after *model.Snapshot) string {
	path := cleanLeft(ev.Path, 40)
	me := nodeRef(ev.Node)
	switch ev.Kind {
	case model.EventCreated:
		n := findNode(after, ev.Path, ev.Node)
		switch {
		case n == nil:
			return me + " created its ephemeral sequential node under " + path + "."
		case n.Role == lockops.RoleHolder:
			return me + " created its ephemeral sequential node and listed the children of " + path +
				": it is the lowest, so it holds the lock at once."
		case n.Watches != "":
			return me + " created its ephemeral sequential node and listed the children of " + path +
				": it is not the lowest, so it sets a watch on " + nodeRef(n.Watches) + " and waits."
		}
		return me + " created its node under " + path + " and waits."
	case model.EventDeleted:
		var watchers []string
		if q := before.Queue(ev.Path); q != nil {
			for _, n := range q.Nodes.All() {
				if n.Watches == ev.Node {
					watchers = append(watchers, nodeRef(n.Name))
				}
			}
		}
		s := me + " was deleted (released, or its session ended)"
		if len(watchers) == 0 {
			return s + "; nobody was watching it."
		}
		return s + ": ZooKeeper notifies its watcher " + strings.Join(watchers, ", ") + "."
	case model.EventHandoff:
		// The console sees the deletion and the new holder, not the
		// holder's reads: a classic client lists the children again here,
		// zklock's lock core may already know the deleted node was the last
		// one in its way.
		return me + " was notified: no node it must wait for is left in " + path +
			", so it holds the lock (the recipe re-checks by listing the children again)."
	}
	return ""
}

// findNode is the node called name in the queue at path, nil when s has
// no such node.
func findNode(s *model.Snapshot, path, name string) *model.Node {
	q := s.Queue(path)
	if q == nil {
		return nil
	}
	for _, n := range q.Nodes.All() {
		if n.Name == name {
			return n
		}
	}
	return nil
}
