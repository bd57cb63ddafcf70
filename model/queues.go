// A snapshot's queues, stored in chunks that consecutive snapshots share.

package model

import (
	"encoding/json"
	"iter"
	"slices"
	"sort"
	"unsafe"
)

// queueChunk is how many queues a chunk holds when a list is cut into
// chunks: a change copies the chunks it touches (32 KB each), and a root
// of 100,000 lock parents is about 300 chunks (341 queues of 96 bytes),
// so publishing a change in one parent copies one chunk and 300 chunk
// headers instead of 100,000 queues. As many as fit in 32 KB, the
// largest small-object size: a chunk a little larger is rounded up to
// whole 8 KB pages (128 queues of 264 bytes, 33 KB, took 40 KB: 20% of a
// root's published queues).
const queueChunk = 32 << 10 / int(unsafe.Sizeof(Queue{}))

// Queues is a snapshot's queues sorted by path. Its storage is shared
// with the snapshots published before and after it: a change copies the
// chunks it touches (Patch), never the whole list, so publishing a change
// in one lock parent costs about the same under a root of 100,000
// parents as under a root of ten. Like every published value it is
// immutable: the pointers At, All and Find hand out are for reading only.
// The zero value is an empty list.
type Queues struct {
	chunks [][]Queue // each non-empty
	ends   []int     // ends[k]: the queues in chunks[:k+1]
}

// QueuesOf returns the list of queues (sorted by path), which it keeps:
// the caller must not change qs afterwards.
func QueuesOf(qs ...Queue) Queues {
	var out Queues
	for i := 0; i < len(qs); i += queueChunk {
		j := min(i+queueChunk, len(qs))
		out.chunks = append(out.chunks, qs[i:j:j])
		out.ends = append(out.ends, j)
	}
	return out
}

// Len is the number of queues.
func (qs Queues) Len() int {
	if len(qs.ends) == 0 {
		return 0
	}
	return qs.ends[len(qs.ends)-1]
}

// At is the i-th queue (read only). It panics when i is out of range, as
// indexing a slice does.
func (qs Queues) At(i int) *Queue {
	if i < 0 || i >= qs.Len() {
		panic("model: Queues index out of range")
	}
	k, _ := slices.BinarySearch(qs.ends, i+1)
	return &qs.chunks[k][i-qs.start(k)]
}

func (qs Queues) start(k int) int {
	if k == 0 {
		return 0
	}
	return qs.ends[k-1]
}

// All yields each queue's index and the queue (read only), in order.
func (qs Queues) All() iter.Seq2[int, *Queue] {
	return func(yield func(int, *Queue) bool) {
		i := 0
		for _, c := range qs.chunks {
			for j := range c {
				if !yield(i, &c[j]) {
					return
				}
				i++
			}
		}
	}
}

// Slice is a copy of the queues in one slice, for callers that want one.
func (qs Queues) Slice() []Queue {
	out := make([]Queue, 0, qs.Len())
	for _, c := range qs.chunks {
		out = append(out, c...)
	}
	return out
}

// chunkFor is the chunk a queue at path belongs in: the last whose first
// path is not after it (the first chunk for a path before them all).
func (qs Queues) chunkFor(path string) int {
	k := sort.Search(len(qs.chunks), func(k int) bool { return qs.chunks[k][0].Path > path })
	return max(k-1, 0)
}

// Find is the index of the queue at path and true, or the index where it
// would be and false, by a binary search (the list must be sorted).
func (qs Queues) Find(path string) (int, bool) {
	if qs.Len() == 0 {
		return 0, false
	}
	k := qs.chunkFor(path)
	c := qs.chunks[k]
	j := sort.Search(len(c), func(j int) bool { return c[j].Path >= path })
	if j < len(c) && c[j].Path == path {
		return qs.start(k) + j, true
	}
	return qs.start(k) + j, false
}

// queueOp is one change Patch makes: q set at its path, or path removed.
type queueOp struct {
	path string
	q    *Queue // nil: remove
}

// Patch returns the list with set's queues in place of those at their
// paths (or added) and the queues at del's paths removed; set and del are
// sorted by path, and a path in both is removed. qs is not changed: the
// chunks the changes touch are copied, the others shared.
func (qs Queues) Patch(set []Queue, del []string) Queues {
	ops := mergeOps(set, del)
	if len(ops) == 0 {
		return qs
	}
	out := Queues{chunks: make([][]Queue, 0, len(qs.chunks)+1)}
	k, oi := 0, 0
	for oi < len(ops) {
		kk := qs.chunkFor(ops[oi].path)
		out.chunks = append(out.chunks, qs.chunks[k:kk]...)
		j := len(ops)
		if kk+1 < len(qs.chunks) {
			lim := qs.chunks[kk+1][0].Path
			j = oi + sort.Search(len(ops)-oi, func(x int) bool { return ops[oi+x].path >= lim })
		}
		var c []Queue
		if kk < len(qs.chunks) {
			c = qs.chunks[kk]
		}
		out.addMerged(mergeChunk(c, ops[oi:j]))
		oi, k = j, kk+1
	}
	if k < len(qs.chunks) {
		out.chunks = append(out.chunks, qs.chunks[k:]...)
	}
	out.ends = make([]int, len(out.chunks))
	n := 0
	for k, c := range out.chunks {
		n += len(c)
		out.ends[k] = n
	}
	return out
}

// mergeOps merges set and del into one list of changes sorted by path.
func mergeOps(set []Queue, del []string) []queueOp {
	ops := make([]queueOp, 0, len(set)+len(del))
	i, j := 0, 0
	for i < len(set) || j < len(del) {
		switch {
		case j == len(del) || i < len(set) && set[i].Path < del[j]:
			ops = append(ops, queueOp{path: set[i].Path, q: &set[i]})
			i++
		case i < len(set) && set[i].Path == del[j]:
			i++ // removed wins
		default:
			ops = append(ops, queueOp{path: del[j]})
			j++
		}
	}
	return ops
}

// mergeChunk is c with ops (sorted, in c's range) applied, in a new slice
// of the exact length: a chunk lives as long as the snapshots sharing it,
// and room for a replaced queue would be kept with it (while a root is
// discovered, most chunks' last merge replaces queues: ~20% of a queue's
// memory at 100,000 parents).
func mergeChunk(c []Queue, ops []queueOp) []Queue {
	n, i := len(c), 0
	for _, op := range ops {
		for i < len(c) && c[i].Path < op.path {
			i++
		}
		if i < len(c) && c[i].Path == op.path {
			n--
			i++
		}
		if op.q != nil {
			n++
		}
	}
	out := make([]Queue, 0, n)
	i = 0
	for _, op := range ops {
		for i < len(c) && c[i].Path < op.path {
			out = append(out, c[i])
			i++
		}
		if i < len(c) && c[i].Path == op.path {
			i++ // replaced or removed
		}
		if op.q != nil {
			out = append(out, *op.q)
		}
	}
	return append(out, c[i:]...)
}

// addMerged appends a chunk the merge made: cut in two or more when it
// grew past two chunks' worth, joined to the chunk before when both are
// small (many removals would otherwise leave many tiny chunks), dropped
// when empty.
func (qs *Queues) addMerged(c []Queue) {
	if n := len(qs.chunks); n > 0 && len(c) < queueChunk/4 && len(qs.chunks[n-1])+len(c) <= queueChunk {
		qs.chunks[n-1] = slices.Concat(qs.chunks[n-1], c) // no room to spare: see mergeChunk
		return
	}
	// Each piece in an array of its own: a piece replaced later frees
	// its memory, which an array shared with pieces still in use would
	// keep (the last piece too when c was cut: it would keep the
	// pieces before).
	cut := false
	for len(c) > 2*queueChunk {
		qs.chunks = append(qs.chunks, slices.Clone(c[:queueChunk]))
		c, cut = c[queueChunk:], true
	}
	if len(c) > 0 {
		if cut || cap(c) > len(c)+len(c)/8 {
			c = slices.Clone(c)
		}
		qs.chunks = append(qs.chunks, c[:len(c):len(c)])
	}
}

// MarshalJSON writes the queues as one JSON array, as a []Queue would be
// (null when empty, as a nil slice).
func (qs Queues) MarshalJSON() ([]byte, error) {
	if qs.Len() == 0 {
		return []byte("null"), nil
	}
	wire := make([]queueJSON, 0, qs.Len()) // one encoding pass, not a Queue.MarshalJSON per queue
	for _, q := range qs.All() {
		wire = append(wire, q.wire())
	}
	return json.Marshal(wire)
}

// UnmarshalJSON reads a JSON array of queues.
func (qs *Queues) UnmarshalJSON(b []byte) error {
	var wire []queueJSON
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	queues := make([]Queue, len(wire))
	for i := range wire {
		queues[i] = wire[i].queue()
	}
	*qs = QueuesOf(queues...)
	return nil
}
