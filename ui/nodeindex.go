package ui

import (
	"sort"
	"sync"

	"github.com/zklock/zklock/model"
)

// nodeIndex finds one snapshot's queue nodes by name. A map of every name
// would cost a 100,000-node queue ~15 ms per snapshot, so lookups go
// without one where they can: a caller's guess first (a waiter watches
// the node just before it), then a binary search by the sequence number
// in the name, which queues are ordered by. Only names without a
// sequence, or a queue out of order, build the map. What a lookup needs
// is worked out on the first lookup that needs it, once per snapshot;
// the index is shared by the copies of a Model (View has a value
// receiver), so each is built through a sync.Once.
type nodeIndex struct {
	nodes model.Nodes

	seqOnce sync.Once
	// bySeq: nodes are in Seq order and every name with a sequence
	// number carries its node's Seq, so a binary search on the number
	// finds a name or proves it absent.
	bySeq bool

	mapOnce sync.Once
	byName  map[string]int
}

// find is the index of the node named name; guesses are tried first.
// A plain ephemeral lock's waiters own no node: "" is never found.
func (x *nodeIndex) find(name string, guesses ...int) (int, bool) {
	if x == nil || name == "" {
		return 0, false
	}
	for _, i := range guesses {
		if i >= 0 && i < x.nodes.Len() && x.nodes.At(i).Name == name {
			return i, true
		}
	}
	if seq, ok := seqOf(name); ok {
		x.seqOnce.Do(x.checkSeq)
		if x.bySeq {
			i := sort.Search(x.nodes.Len(), func(i int) bool { return x.nodes.At(i).Seq >= seq })
			for ; i < x.nodes.Len() && x.nodes.At(i).Seq == seq; i++ {
				if x.nodes.At(i).Name == name {
					return i, true
				}
			}
			return 0, false
		}
	}
	x.mapOnce.Do(func() {
		x.byName = make(map[string]int, x.nodes.Len())
		for i, n := range x.nodes.All() {
			if _, dup := x.byName[n.Name]; !dup && n.Name != "" {
				x.byName[n.Name] = i // the first, as the searches find
			}
		}
	})
	i, ok := x.byName[name]
	return i, ok
}

func (x *nodeIndex) checkSeq() {
	x.bySeq = true
	var prev *model.Node
	for _, n := range x.nodes.All() {
		if prev != nil && n.Seq < prev.Seq {
			x.bySeq = false
			return
		}
		if seq, ok := seqOf(n.Name); ok && seq != n.Seq {
			x.bySeq = false
			return
		}
		prev = n
	}
}
