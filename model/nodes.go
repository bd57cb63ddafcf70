// A queue's nodes, stored in chunks that consecutive snapshots share.

package model

import (
	"encoding/json"
	"iter"
	"slices"
	"sort"

	"github.com/zklock/zklock/lockops"
)

// nodeChunk is how many nodes a chunk holds when a list is cut into
// chunks: a change copies the chunks it touches (about 55 KB each), a
// lookup by index searches one entry per chunk (about 400 at 100,000
// nodes), so both stay far below a frame's time at any queue length.
const nodeChunk = 256

// Nodes is a queue's nodes in sequence order. Its storage is shared with
// the queues built before and after it: a change copies the chunks it
// touches (a handoff the first, a join at the tail the last), never the
// whole list, so publishing a change costs the same in a 100,000-node
// queue as in a small one. Like every published value it is immutable:
// the pointers At and All return are for reading only. The zero value is
// an empty list.
type Nodes struct {
	chunks [][]Node // each non-empty
	ends   []int    // ends[k]: the nodes in chunks[:k+1]
}

// NodesOf returns the list of nodes, which it keeps (the caller must not
// change nodes afterwards).
func NodesOf(nodes ...Node) Nodes {
	var ns Nodes
	for i := 0; i < len(nodes); i += nodeChunk {
		j := min(i+nodeChunk, len(nodes))
		ns.chunks = append(ns.chunks, nodes[i:j:j])
		ns.ends = append(ns.ends, j)
	}
	return ns
}

// Len is the number of nodes.
func (ns Nodes) Len() int {
	if len(ns.ends) == 0 {
		return 0
	}
	return ns.ends[len(ns.ends)-1]
}

// At is the i-th node (read only). It panics when i is out of range, as
// indexing a slice does.
func (ns Nodes) At(i int) *Node {
	k := ns.chunkOf(i)
	return &ns.chunks[k][i-ns.start(k)]
}

// chunkOf is the chunk holding node i.
func (ns Nodes) chunkOf(i int) int {
	if i < 0 || i >= ns.Len() {
		panic("model: Nodes index out of range")
	}
	// Full chunks are the rule: try the direct guess first.
	if k := i / nodeChunk; k < len(ns.ends) && ns.ends[k] == (k+1)*nodeChunk {
		return k
	}
	k, _ := slices.BinarySearch(ns.ends, i+1)
	return k
}

func (ns Nodes) start(k int) int {
	if k == 0 {
		return 0
	}
	return ns.ends[k-1]
}

// All yields each node's index and the node (read only), in order.
func (ns Nodes) All() iter.Seq2[int, *Node] {
	return func(yield func(int, *Node) bool) {
		i := 0
		for _, c := range ns.chunks {
			for j := range c {
				if !yield(i, &c[j]) {
					return
				}
				i++
			}
		}
	}
}

// From yields the nodes from index i on, with their indexes.
func (ns Nodes) From(i int) iter.Seq2[int, *Node] {
	return func(yield func(int, *Node) bool) {
		if i < 0 {
			i = 0
		}
		if i >= ns.Len() {
			return
		}
		for k := ns.chunkOf(i); k < len(ns.chunks); k++ {
			c := ns.chunks[k]
			for j := i - ns.start(k); j < len(c); j++ {
				if !yield(i, &c[j]) {
					return
				}
				i++
			}
		}
	}
}

// Slice is a copy of the nodes in one slice, for callers that want one.
func (ns Nodes) Slice() []Node {
	out := make([]Node, 0, ns.Len())
	for _, c := range ns.chunks {
		out = append(out, c...)
	}
	return out
}

// Index is the index of the first node for which f is true, or -1.
func (ns Nodes) Index(f func(*Node) bool) int {
	for i, n := range ns.All() {
		if f(n) {
			return i
		}
	}
	return -1
}

// shares says whether ns and o are the very same list (the Watcher hands
// out a queue's Nodes unchanged until the queue changes): a comparison of
// chunk headers, not of nodes.
func (ns Nodes) Shares(o Nodes) bool {
	if len(ns.chunks) != len(o.chunks) {
		return false
	}
	for k := range ns.chunks {
		a, b := ns.chunks[k], o.chunks[k]
		if len(a) != len(b) || &a[0] != &b[0] {
			return false
		}
	}
	return true
}

// MarshalJSON writes the nodes as one JSON array, as a []Node would be.
func (ns Nodes) MarshalJSON() ([]byte, error) {
	if ns.Len() == 0 {
		return []byte("[]"), nil
	}
	return json.Marshal(ns.Slice())
}

// UnmarshalJSON reads a JSON array of nodes.
func (ns *Nodes) UnmarshalJSON(b []byte) error {
	var nodes []Node
	if err := json.Unmarshal(b, &nodes); err != nil {
		return err
	}
	*ns = NodesOf(nodes...)
	return nil
}

// nodesBuilder makes a Nodes from an older one, reusing its chunks: the
// chunks appended whole are shared, nodes added one by one go into new
// chunks (or into the room of a last chunk taken by extend).
type nodesBuilder struct {
	chunks [][]Node
	ends   []int
	open   []Node // the chunk being filled, not yet in chunks
}

// extend takes c, the last chunk of the list being extended, as the chunk
// the next nodes go into while it has room: in its array when that has
// spare capacity. Only the newest build of a queue is ever extended, and
// the lists before it end before that room (see buildQueueChanged), so
// no published list shows what goes there.
func (b *nodesBuilder) extend(c []Node) {
	if len(c) >= nodeChunk {
		b.keep(c)
		return
	}
	b.flush()
	b.open = c
}

// keep appends chunk c as it is, shared with the list it came from.
func (b *nodesBuilder) keep(c []Node) {
	b.flush()
	b.chunks = append(b.chunks, c)
	b.ends = append(b.ends, b.len()+len(c))
}

// add appends one node.
func (b *nodesBuilder) add(n Node) {
	if b.open == nil {
		b.open = make([]Node, 0, nodeChunk)
	}
	b.open = append(b.open, n)
	if len(b.open) == nodeChunk {
		b.flush()
	}
}

func (b *nodesBuilder) flush() {
	if len(b.open) == 0 {
		return
	}
	n := len(b.open)
	b.chunks = append(b.chunks, b.open[:n:n])
	b.ends = append(b.ends, b.len()+n)
	b.open = nil
}

func (b *nodesBuilder) len() int {
	if len(b.ends) == 0 {
		return 0
	}
	return b.ends[len(b.ends)-1]
}

// done is the list built. A list that has grown fragmented (many chunks
// left small by nodes leaving from the middle) is cut again into full
// chunks, a copy whose cost is spread over the changes that fragmented it.
func (b *nodesBuilder) done() Nodes {
	if n := len(b.open); n > 0 {
		// The last chunk keeps its spare room for the joins to come.
		b.chunks = append(b.chunks, b.open)
		b.ends = append(b.ends, b.len()+n)
		b.open = nil
	}
	ns := Nodes{chunks: b.chunks, ends: b.ends}
	if n := ns.Len(); len(ns.chunks) > 8 && len(ns.chunks) > 2*(n/nodeChunk+1) {
		return NodesOf(ns.Slice()...)
	}
	return ns
}

// prefix is the first m nodes (0 < m <= Len), sharing ns's chunks; the
// last one's capacity ends with it, so that a later join cannot write
// over nodes ns still shows.
func (ns Nodes) Prefix(m int) Nodes {
	k := ns.chunkOf(m - 1)
	r := m - ns.start(k)
	out := Nodes{chunks: make([][]Node, k+1), ends: make([]int, k+1)}
	copy(out.chunks, ns.chunks[:k])
	copy(out.ends, ns.ends[:k])
	out.chunks[k], out.ends[k] = ns.chunks[k][:r:r], m
	return out
}

// Extend is ns with more after its last node, in its last chunk while it
// has room. Only the newest of a line of lists may be extended: an older
// list's view ends before the new nodes (its length), but a list extended
// twice would have its second extension write over the first's.
func (ns Nodes) Extend(more ...Node) Nodes {
	b := ns.builderForTail()
	for _, n := range more {
		b.add(n)
	}
	return b.done()
}

// builderForTail is a builder holding ns, ready to take nodes after its
// last (extend).
func (ns Nodes) builderForTail() *nodesBuilder {
	b := &nodesBuilder{}
	if len(ns.chunks) == 0 {
		return b
	}
	last := len(ns.chunks) - 1
	b.chunks = append(make([][]Node, 0, len(ns.chunks)+1), ns.chunks[:last]...)
	b.ends = append(make([]int, 0, len(ns.ends)+1), ns.ends[:last]...)
	b.extend(ns.chunks[last])
	return b
}

// search is the index of the first node whose sequence is not before seq
// (Len when there is none); the nodes are in sequence order.
func (ns Nodes) Search(seq int32) int {
	return sort.Search(ns.Len(), func(i int) bool { return !lockops.SeqLess(ns.At(i).Seq, seq) })
}

// equalBy says whether ns and o hold as many nodes and eq holds for each
// pair at the same index; chunks the two share are not looked into.
func (ns Nodes) EqualBy(o Nodes, eq func(a, b *Node) bool) bool {
	if ns.Len() != o.Len() {
		return false
	}
	if slices.Equal(ns.ends, o.ends) {
		for k, a := range ns.chunks {
			b := o.chunks[k]
			if &a[0] == &b[0] {
				continue
			}
			for j := range a {
				if !eq(&a[j], &b[j]) {
					return false
				}
			}
		}
		return true
	}
	for i, a := range ns.All() {
		if !eq(a, o.At(i)) {
			return false
		}
	}
	return true
}

// mergeChanged is prev's nodes brought to entries, the order after the
// changes whose touched nodes are changed (sorted by sequence, then
// name): a chunk of prev none of whose nodes changed or left is kept as
// it is; the others are made again, a touched node by fresh and every
// other one copied from prev. ok is false when fresh says a node leaves
// the change shape.
func MergeChanged(prev Nodes, entries []lockops.Entry, changed []lockops.ParsedName, fresh func(*lockops.Entry) (Node, bool)) (Nodes, bool) {
	// Nodes and entries are compared by their names' order (ChangeOrder).
	key := func(n *Node) lockops.ParsedName { return lockops.ParsedName{Seq: n.Seq, Name: n.Name} }
	// changedWithin: a touched name lies between nodes a and z.
	changedWithin := func(a, z *Node) bool {
		c, _ := slices.BinarySearchFunc(changed, key(a), lockops.ChangeOrder)
		return c < len(changed) && lockops.ChangeOrder(changed[c], key(z)) <= 0
	}
	isChanged := func(e *lockops.Entry) bool {
		_, found := slices.BinarySearchFunc(changed, e.ParsedName, lockops.ChangeOrder)
		return found
	}
	var b nodesBuilder
	i := 0 // in entries
	for k, c := range prev.chunks {
		if l := len(c); i+l <= len(entries) && entries[i].Name == c[0].Name && entries[i+l-1].Name == c[l-1].Name &&
			!changedWithin(&c[0], &c[l-1]) {
			// The same l nodes, none touched: none left.
			if k == len(prev.chunks)-1 && i+l < len(entries) {
				// Nodes joined after it: into its room, as at a join,
				// not into a small chunk of their own.
				b.extend(c)
			} else {
				b.keep(c)
			}
			i += l
			continue
		}
		// The entries up to the next chunk's first node: this chunk's
		// nodes that stayed, and the nodes that joined among them.
		var next *Node
		if k+1 < len(prev.chunks) {
			next = &prev.chunks[k+1][0]
		}
		j := 0 // in c
		for ; i < len(entries) && (next == nil || lockops.ChangeOrder(entries[i].ParsedName, key(next)) < 0); i++ {
			e := &entries[i]
			for j < len(c) && lockops.ChangeOrder(key(&c[j]), e.ParsedName) < 0 {
				j++
			}
			if j < len(c) && c[j].Name == e.Name && !isChanged(e) {
				b.add(c[j])
				continue
			}
			nd, ok := fresh(e)
			if !ok {
				return Nodes{}, false
			}
			b.add(nd)
		}
	}
	for ; i < len(entries); i++ { // joined after prev's last node
		nd, ok := fresh(&entries[i])
		if !ok {
			return Nodes{}, false
		}
		b.add(nd)
	}
	return b.done(), true
}
