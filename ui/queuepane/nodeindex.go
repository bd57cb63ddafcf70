package queuepane

import (
	"sort"
	"sync"

	"github.com/zklock/zklock/model"
)

// NodeIndex finds one snapshot's queue nodes by name. A map of every name
// would cost a 100,000-node queue ~15 ms per snapshot, so lookups go
// without one where they can: a caller's guess first (a waiter watches
// the node just before it), then a binary search by the sequence number
// in the name, which queues are ordered by. Only names without a
// sequence, or a queue out of order, build the map. What a lookup needs
// is worked out on the first lookup that needs it, once per snapshot;
// the index is shared by the copies of a Console (View has a value
// receiver), so each is built through a sync.Once.
type NodeIndex struct {
	Nodes model.Nodes

	seqOnce sync.Once
	// bySeq: nodes are in Seq order and every name with a sequence
	// number carries its node's Seq, so a binary search on the number
	// finds a name or proves it absent.
	bySeq bool

	mapOnce sync.Once
	ByName  map[string]int
}

// Find is the index of the node named name; guesses are tried first.
// A plain ephemeral lock's waiters own no node: "" is never found.
func (x *NodeIndex) Find(name string, guesses ...int) (int, bool) {
	if x == nil || name == "" {
		return 0, false
	}
	for _, i := range guesses {
		if i >= 0 && i < x.Nodes.Len() && x.Nodes.At(i).Name == name {
			return i, true
		}
	}
	if seq, ok := seqOf(name); ok {
		x.seqOnce.Do(x.checkSeq)
		if x.bySeq {
			i := sort.Search(x.Nodes.Len(), func(i int) bool { return x.Nodes.At(i).Seq >= seq })
			for ; i < x.Nodes.Len() && x.Nodes.At(i).Seq == seq; i++ {
				if x.Nodes.At(i).Name == name {
					return i, true
				}
			}
			return 0, false
		}
	}
	x.mapOnce.Do(func() {
		x.ByName = make(map[string]int, x.Nodes.Len())
		for i, n := range x.Nodes.All() {
			if _, dup := x.ByName[n.Name]; !dup && n.Name != "" {
				x.ByName[n.Name] = i // the first, as the searches find
			}
		}
	})
	i, ok := x.ByName[name]
	return i, ok
}

func (x *NodeIndex) checkSeq() {
	x.bySeq = true
	var prev *model.Node
	for _, n := range x.Nodes.All() {
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
