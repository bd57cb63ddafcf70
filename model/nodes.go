// A queue's nodes, stored in chunks that consecutive snapshots share.

package model

import (
	"encoding/json"
	"iter"
	"slices"
	"sort"

	"github.com/zklock/zklock/lockops/ordering"
)

// nodeChunk is how many nodes a chunk holds when a list is cut into
// chunks: a change copies the chunks it touches (about 55 KB each), a
// lookup by index searches one entry per chunk (about 400 at 100,000
// nodes), so both stay far below a frame's time at any queue length.
const nodeChunk = 256

// A change inside a chunk shares the chunk's untouched tail instead of
// copying it when the tail holds shareTail nodes or more and at most
// shareAfter nodes come before it in the chunk being made (so that a
// change near a chunk's head, a handoff, costs those few nodes, while
// changes in the middle, which would leave two small chunks each, copy
// the chunk as before and do not fragment the list).
const (
	shareTail  = 32
	shareAfter = 16
)

// Nodes is a queue's nodes in sequence order. Its storage is shared with
// the queues built before and after it: a change copies the chunks it
// touches (a join at the tail the last; a handoff only the nodes before
// the first chunk's untouched tail, see shareTail), never the whole
// list, so publishing a change costs the same in a 100,000-node
// queue as in a small one. Like every published value it is immutable:
// the pointers At and All return are for reading only. The zero value is
// an empty list.
//
// A list of one chunk (nodeChunk nodes or fewer: nearly every queue) is
// held in place, with no index: a root of 100,000 lock parents keeps a
// Queue for each, and the two small slices of an index cost each 32
// bytes and two allocations.
type Nodes struct {
	one  []Node      // the only chunk, when many is nil (empty: no node)
	many *nodeChunks // two chunks or more
}

// nodeChunks is a list of two chunks or more.
type nodeChunks struct {
	chunks [][]Node // each non-empty
	ends   []int    // ends[k]: the nodes in chunks[:k+1]
}

// nodesFrom is the list of chunks (each non-empty) with their ends.
func nodesFrom(chunks [][]Node, ends []int) Nodes {
	switch len(chunks) {
	case 0:
		return Nodes{}
	case 1:
		return Nodes{one: chunks[0]}
	}
	return Nodes{many: &nodeChunks{chunks: chunks, ends: ends}}
}

// numChunks is the number of chunks.
func (ns Nodes) numChunks() int {
	if ns.many != nil {
		return len(ns.many.chunks)
	}
	if len(ns.one) > 0 {
		return 1
	}
	return 0
}

// chunk is the k-th chunk.
func (ns Nodes) chunk(k int) []Node {
	if ns.many != nil {
		return ns.many.chunks[k]
	}
	return ns.one
}

// NodesOf returns the list of nodes, which it keeps (the caller must not
// change nodes afterwards).
func NodesOf(nodes ...Node) Nodes {
	if len(nodes) == 0 {
		return Nodes{}
	}
	if len(nodes) <= nodeChunk {
		return Nodes{one: nodes[:len(nodes):len(nodes)]}
	}
	var chunks [][]Node
	var ends []int
	for i := 0; i < len(nodes); i += nodeChunk {
		j := min(i+nodeChunk, len(nodes))
		chunks = append(chunks, nodes[i:j:j])
		ends = append(ends, j)
	}
	return nodesFrom(chunks, ends)
}

// Len is the number of nodes.
func (ns Nodes) Len() int {
	if ns.many != nil {
		return ns.many.ends[len(ns.many.ends)-1]
	}
	return len(ns.one)
}

// At is the i-th node (read only). It panics when i is out of range, as
// indexing a slice does.
func (ns Nodes) At(i int) *Node {
	if ns.many == nil {
		return &ns.one[i]
	}
	k := ns.chunkOf(i)
	return &ns.many.chunks[k][i-ns.start(k)]
}

// chunkOf is the chunk holding node i.
func (ns Nodes) chunkOf(i int) int {
	if i < 0 || i >= ns.Len() {
		panic("model: Nodes index out of range")
	}
	if ns.many == nil {
		return 0
	}
	// Full chunks are the rule: try the direct guess first.
	ends := ns.many.ends
	if k := i / nodeChunk; k < len(ends) && ends[k] == (k+1)*nodeChunk {
		return k
	}
	k, _ := slices.BinarySearch(ends, i+1)
	return k
}

func (ns Nodes) start(k int) int {
	if k == 0 {
		return 0
	}
	return ns.many.ends[k-1]
}

// All yields each node's index and the node (read only), in order.
func (ns Nodes) All() iter.Seq2[int, *Node] {
	return func(yield func(int, *Node) bool) {
		i := 0
		for k := range ns.numChunks() {
			c := ns.chunk(k)
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
		for k := ns.chunkOf(i); k < ns.numChunks(); k++ {
			c := ns.chunk(k)
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
	for k := range ns.numChunks() {
		out = append(out, ns.chunk(k)...)
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
	if ns.numChunks() != o.numChunks() {
		return false
	}
	for k := range ns.numChunks() {
		a, b := ns.chunk(k), o.chunk(k)
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
	// room is the capacity of the next chunk opened, nodeChunk when 0:
	// a chunk made again around a change near its head holds the few
	// nodes before the untouched tail it shares (keepTail), and a full
	// chunk's room (about 55 KB, cleared) for them would be most of what
	// such a change allocates. A chunk that outgrows it grows by append.
	room int
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

// keepTail appends the tail of a chunk, shared with the list it came
// from: as extend does when nodes join after it (joins, the tail of the
// list's last chunk), else as keep does.
func (b *nodesBuilder) keepTail(c []Node, joins bool) {
	if joins {
		b.extend(c)
		return
	}
	b.keep(c)
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
		room := nodeChunk
		if b.room > 0 {
			room = min(b.room, nodeChunk)
		}
		b.open = make([]Node, 0, room)
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
	ns := nodesFrom(b.chunks, b.ends)
	if n := ns.Len(); ns.numChunks() > 8 && ns.numChunks() > 2*(n/nodeChunk+1) {
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
	if k == 0 {
		return Nodes{one: ns.chunk(0)[:r:r]}
	}
	chunks, ends := make([][]Node, k+1), make([]int, k+1)
	copy(chunks, ns.many.chunks[:k])
	copy(ends, ns.many.ends[:k])
	chunks[k], ends[k] = ns.many.chunks[k][:r:r], m
	return nodesFrom(chunks, ends)
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
	n := ns.numChunks()
	if n == 0 {
		return b
	}
	last := n - 1
	if last > 0 {
		b.chunks = append(make([][]Node, 0, n+1), ns.many.chunks[:last]...)
		b.ends = append(make([]int, 0, n+1), ns.many.ends[:last]...)
	}
	b.extend(ns.chunk(last))
	return b
}

// Search is the index of the first node whose sequence is not before seq
// (Len when there is none); the nodes are in sequence order. It finds the
// chunk by the chunks' last nodes, then the node in it: no index is
// turned into a chunk at each step.
func (ns Nodes) Search(seq int32) int {
	notBefore := func(n *Node) bool { return !ordering.SeqLess(n.Seq, seq) }
	if ns.many == nil {
		return sort.Search(len(ns.one), func(i int) bool { return notBefore(&ns.one[i]) })
	}
	cs := ns.many.chunks
	k := sort.Search(len(cs), func(k int) bool { return notBefore(&cs[k][len(cs[k])-1]) })
	if k == len(cs) {
		return ns.Len()
	}
	c := cs[k]
	return ns.start(k) + sort.Search(len(c), func(i int) bool { return notBefore(&c[i]) })
}

// equalBy says whether ns and o hold as many nodes and eq holds for each
// pair at the same index; chunks the two share are not looked into.
func (ns Nodes) EqualBy(o Nodes, eq func(a, b *Node) bool) bool {
	if ns.Len() != o.Len() {
		return false
	}
	if ns.numChunks() == o.numChunks() && (ns.many == nil || slices.Equal(ns.many.ends, o.many.ends)) {
		for k := range ns.numChunks() {
			a, b := ns.chunk(k), o.chunk(k)
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
func MergeChanged(prev Nodes, entries []ordering.Entry, changed []ordering.ParsedName, fresh func(*ordering.Entry) (Node, bool)) (Nodes, bool) {
	// Nodes and entries are compared by their names' order (ChangeOrder).
	key := func(n *Node) ordering.ParsedName { return ordering.ParsedName{Seq: n.Seq, Name: n.Name} }
	// changedWithin: a touched name lies between nodes a and z.
	changedWithin := func(a, z *Node) bool {
		c, _ := slices.BinarySearchFunc(changed, key(a), ordering.ChangeOrder)
		return c < len(changed) && ordering.ChangeOrder(changed[c], key(z)) <= 0
	}
	isChanged := func(e *ordering.Entry) bool {
		_, found := slices.BinarySearchFunc(changed, e.ParsedName, ordering.ChangeOrder)
		return found
	}
	var b nodesBuilder
	i := 0 // in entries
	nc := prev.numChunks()
	b.reserve(nc)
	for k := range nc {
		c := prev.chunk(k)
		if l := len(c); i+l <= len(entries) && entries[i].Name == c[0].Name && entries[i+l-1].Name == c[l-1].Name &&
			!changedWithin(&c[0], &c[l-1]) {
			// The same l nodes, none touched: none left.
			if k == nc-1 && i+l < len(entries) {
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
		b.room = len(c) + 1
		if untouchedAfter(c, shareAfter, entries, changedWithin) {
			b.room = shareAfter + 1 // the tail will be shared: room for the nodes before it
		}
		var next *Node
		if k+1 < nc {
			next = &prev.chunk(k + 1)[0]
		}
		j := 0       // in c
		tail := true // the next node that stayed may begin the chunk's untouched tail
		for ; i < len(entries) && (next == nil || ordering.ChangeOrder(entries[i].ParsedName, key(next)) < 0); i++ {
			e := &entries[i]
			for j < len(c) && ordering.ChangeOrder(key(&c[j]), e.ParsedName) < 0 {
				j++
			}
			if j < len(c) && c[j].Name == e.Name && !isChanged(e) {
				if l := len(c) - j; tail && len(b.open) <= shareAfter && l >= shareTail && i+l <= len(entries) &&
					entries[i+l-1].Name == c[len(c)-1].Name && !changedWithin(&c[j], &c[len(c)-1]) {
					// The rest of the chunk is untouched: shared, not
					// copied (a handoff or a departure at the head
					// copies the few nodes before it).
					b.keepTail(c[j:], k == nc-1 && i+l < len(entries))
					i, j = i+l-1, len(c)
					continue
				}
				tail = false
				b.add(c[j])
				continue
			}
			tail = true
			nd, ok := fresh(e)
			if !ok {
				return Nodes{}, false
			}
			b.add(nd)
		}
	}
	if !b.addFresh(entries[i:], fresh) { // joined after prev's last node
		return Nodes{}, false
	}
	return b.done(), true
}

// reserve makes room for n chunks and a few more (a shared tail, joins):
// a long queue's list is not grown chunk by chunk at every change.
func (b *nodesBuilder) reserve(n int) {
	if n > 1 {
		b.chunks, b.ends = make([][]Node, 0, n+2), make([]int, 0, n+2)
	}
}

// addFresh adds a node made by fresh for each of entries; false when
// fresh could not make one.
func (b *nodesBuilder) addFresh(entries []ordering.Entry, fresh func(*ordering.Entry) (Node, bool)) bool {
	for k := range entries {
		nd, ok := fresh(&entries[k])
		if !ok {
			return false
		}
		b.add(nd)
	}
	return true
}

// untouchedAfter says whether c's nodes from index from on (shareTail of
// them at least) are all in entries, in a row, and none is touched: a
// change near c's head then makes again only the nodes before them, and
// the chunk opened for those needs no more room than that (a hint: a
// chunk that outgrows it grows by append).
func untouchedAfter(c []Node, from int, entries []ordering.Entry, changedWithin func(a, z *Node) bool) bool {
	if len(c)-from < shareTail {
		return false
	}
	first, last := &c[from], &c[len(c)-1]
	i, found := slices.BinarySearchFunc(entries, ordering.ParsedName{Seq: first.Seq, Name: first.Name},
		func(e ordering.Entry, k ordering.ParsedName) int { return ordering.ChangeOrder(e.ParsedName, k) })
	end := i + len(c) - from - 1
	return found && end < len(entries) && entries[end].Name == last.Name && !changedWithin(first, last)
}
