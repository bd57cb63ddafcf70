// Changes applied as changes: a persistent watch names each child created
// and deleted, so a busy queue is updated from those names alone, in time
// that does not grow with the queue where it can be (ordering.Ordering.Change),
// and through the whole-listing merge (Tracker.Apply, merge.go) where it cannot.

package queue

import (
	"slices"

	"github.com/zklock/zklock/lockops/ordering"
)

// Prior is what a change needs to know of the order before it, read
// before ChangeOwned reuses that order's array: the entries that leave,
// the nodes that waited on each, and the predecessor of each entry that
// followed one that leaves (the only ones whose predecessor can change,
// besides the nodes that join).
type Prior struct {
	departed []ordering.Entry
	wakers   map[string][]string // by departed name
	pred     map[string]string   // by name of the entry after a departed one
}

// PriorOf is what a change removing removed needs to know of prev, the
// order before it.
func PriorOf(prev ordering.Ordering, removed []string) Prior {
	var p Prior // nil maps read as empty: a change with no leaver makes none
	if len(removed) > 0 {
		p.wakers, p.pred = make(map[string][]string, len(removed)), make(map[string]string, len(removed))
	}
	for _, name := range removed {
		i := prev.Index(name)
		if i < 0 || slices.ContainsFunc(p.departed, func(d ordering.Entry) bool { return d.Name == name }) {
			continue
		}
		p.departed = append(p.departed, prev.Entries[i])
		p.wakers[name] = wakersIn(prev, i)
		if i+1 < len(prev.Entries) {
			p.pred[prev.Entries[i+1].Name] = prev.Entries[i+1].Predecessor
		}
	}
	return p
}
