package model

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"testing"
	"unsafe"

	"github.com/zklock/zklock/lockops/ordering"
)

func testNode(seq int32, version int32) Node {
	return Node{Name: fmt.Sprintf("lock-%010d", seq), Seq: seq, Kind: ordering.KindMutex, Version: version}
}

// TestNodesBasics: length, index, iteration from any point, JSON as an
// array, on lists of every size around the chunk boundaries.
func TestNodesBasics(t *testing.T) {
	for _, n := range []int{0, 1, nodeChunk - 1, nodeChunk, nodeChunk + 1, 3*nodeChunk + 7} {
		nodes := make([]Node, n)
		for i := range nodes {
			nodes[i] = testNode(int32(i), 0)
		}
		ns := NodesOf(slices.Clone(nodes)...)
		if ns.Len() != n {
			t.Fatalf("%d nodes: Len %d", n, ns.Len())
		}
		for i := range nodes {
			if ns.At(i).Name != nodes[i].Name {
				t.Fatalf("%d nodes: At(%d) = %s", n, i, ns.At(i).Name)
			}
		}
		for _, from := range []int{-1, 0, 1, n / 2, n - 1, n} {
			var got []string
			for i, x := range ns.From(from) {
				if x.Name != nodes[i].Name {
					t.Fatalf("%d nodes: From(%d) yields %d as %s", n, from, i, x.Name)
				}
				got = append(got, x.Name)
			}
			if want := n - max(from, 0); len(got) != max(want, 0) {
				t.Fatalf("%d nodes: From(%d) yields %d nodes, want %d", n, from, len(got), want)
			}
		}
		b, err := json.Marshal(ns)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(nodes)
		if n == 0 {
			want = []byte("[]")
		}
		if string(b) != string(want) {
			t.Fatalf("%d nodes: JSON differs from a []Node's", n)
		}
		var back Nodes
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.Slice(), ns.Slice()) {
			t.Fatalf("%d nodes: JSON round trip: %v", n, err)
		}
		if !ns.Shares(ns) || n > 0 && ns.Shares(NodesOf(slices.Clone(nodes)...)) {
			t.Fatalf("%d nodes: shares", n)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("At out of range did not panic")
		}
	}()
	NodesOf(testNode(1, 0)).At(1)
}

// TestNodesChanges: a list changed at random the three ways a build
// changes one (nodes leaving from the tail, joining at the tail, any
// change through mergeChanged) always holds what a plain slice changed
// the same way holds, and no list handed out before is ever altered.
func TestNodesChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var truth []Node
	next := int32(0)
	for range 3*nodeChunk + 40 {
		truth = append(truth, testNode(next, 0))
		next++
	}
	ns := NodesOf(slices.Clone(truth)...)
	type handed struct {
		ns   Nodes
		copy []Node
	}
	var old []handed
	version := int32(0)
	for step := range 1500 {
		version++
		switch op := r.IntN(10); {
		case op < 2 && len(truth) > 1: // leave from the tail
			m := 1 + r.IntN(len(truth)-1)
			truth = truth[:m:m]
			ns = ns.Prefix(m)
		case op < 5 || len(truth) == 0: // join at the tail
			b := ns.builderForTail()
			for range 1 + r.IntN(3) {
				n := testNode(next, version)
				next++
				truth = append(truth, n)
				b.add(n)
			}
			ns = b.done()
		default: // leave anywhere, join in gaps and at the tail, nodes touched
			var kept, changed []Node
			for i, n := range truth {
				switch x := r.IntN(40); {
				case x == 0 && len(truth) > 2: // leaves
				case x == 1 || i == 0 && r.IntN(2) == 0: // touched (a new holder)
					n.Version = version
					kept = append(kept, n)
					changed = append(changed, n)
				default:
					kept = append(kept, n)
				}
			}
			if r.IntN(3) == 0 {
				n := testNode(next, version)
				next += 2 // a gap for a node to come between
				kept = append(kept, n)
				changed = append(changed, n)
			}
			truth = kept
			entries := make([]ordering.Entry, len(truth))
			for i, n := range truth {
				entries[i] = ordering.Entry{ParsedName: ordering.ParsedName{Name: n.Name, Seq: n.Seq, Kind: n.Kind}}
			}
			names := make([]ordering.ParsedName, len(changed))
			for i, n := range changed {
				names[i] = ordering.ParsedName{Name: n.Name, Seq: n.Seq}
			}
			slices.SortFunc(names, func(a, b ordering.ParsedName) int { return cmp.Compare(a.Seq, b.Seq) })
			byName := map[string]Node{}
			for _, n := range changed {
				byName[n.Name] = n
			}
			var ok bool
			ns, ok = MergeChanged(ns, entries, names, func(e *ordering.Entry) (Node, bool) {
				n, found := byName[e.Name]
				if !found {
					t.Fatalf("step %d: fresh asked for %s, which did not change", step, e.Name)
				}
				return n, true
			})
			if !ok {
				t.Fatalf("step %d: mergeChanged refused", step)
			}
		}
		if got := ns.Slice(); !reflect.DeepEqual(got, truth) && !(len(got) == 0 && len(truth) == 0) {
			t.Fatalf("step %d: list differs from the slice (%d nodes, want %d)", step, len(got), len(truth))
		}
		if len(truth) > 0 {
			i := r.IntN(len(truth))
			if ns.At(i).Name != truth[i].Name {
				t.Fatalf("step %d: At(%d) = %s, want %s", step, i, ns.At(i).Name, truth[i].Name)
			}
		}
		for _, seq := range []int32{r.Int32N(next + 2), -1, next} {
			want := sort.Search(len(truth), func(i int) bool { return truth[i].Seq >= seq })
			if got := ns.Search(seq); got != want {
				t.Fatalf("step %d: Search(%d) = %d, want %d", step, seq, got, want)
			}
		}
		if ns.numChunks() > 8 && ns.numChunks() > 2*(ns.Len()/nodeChunk+1) {
			t.Fatalf("step %d: %d chunks for %d nodes: not compacted", step, ns.numChunks(), ns.Len())
		}
		old = append(old, handed{ns, slices.Clone(truth)})
		if len(old) > 20 {
			old = old[1:]
		}
		for k, h := range old {
			if got := h.ns.Slice(); !reflect.DeepEqual(got, h.copy) && !(len(got) == 0 && len(h.copy) == 0) {
				t.Fatalf("step %d: the list handed out %d steps before was altered", step, len(old)-1-k)
			}
		}
	}
}

// TestNodesShareChunks: a handoff in a long queue copies the node it
// touches and shares every other node with the list before it (the
// first chunk's untouched tail too).
func TestNodesShareChunks(t *testing.T) {
	var nodes []Node
	for i := range 10 * nodeChunk {
		nodes = append(nodes, testNode(int32(i), 0))
	}
	prev := NodesOf(nodes...)
	entries := make([]ordering.Entry, 0, len(nodes)-1)
	for _, n := range nodes[1:] {
		entries = append(entries, ordering.Entry{ParsedName: ordering.ParsedName{Name: n.Name, Seq: n.Seq}})
	}
	holder := nodes[1]
	holder.Version = 1
	next, ok := MergeChanged(prev, entries, []ordering.ParsedName{{Name: holder.Name, Seq: holder.Seq}},
		func(*ordering.Entry) (Node, bool) { return holder, true })
	if !ok || next.Len() != len(nodes)-1 || next.At(0).Version != 1 {
		t.Fatalf("handoff: ok %v, %d nodes, head version %d", ok, next.Len(), next.At(0).Version)
	}
	// Every node but the new holder is prev's own, in prev's chunks:
	// the handoff copies the node it touched, not the first chunk.
	inPrev := map[*Node]bool{}
	for k := range prev.numChunks() {
		for i := range prev.chunk(k) {
			inPrev[&prev.chunk(k)[i]] = true
		}
	}
	copied := 0
	for k := range next.numChunks() {
		for i := range next.chunk(k) {
			if !inPrev[&next.chunk(k)[i]] {
				copied++
			}
		}
	}
	if copied != 1 {
		t.Errorf("%d nodes copied after a handoff in %d chunks, want 1 (the new holder)", copied, prev.numChunks())
	}
	if next.numChunks() > prev.numChunks()+1 {
		t.Errorf("%d chunks after a handoff, %d before", next.numChunks(), prev.numChunks())
	}
	eq := func(a, b *Node) bool { return a.Name == b.Name }
	if !next.EqualBy(next, eq) || next.EqualBy(prev, eq) {
		t.Error("equalBy")
	}
}

// TestNodesOneChunkInPlace: a list of one chunk (nearly every queue)
// takes no allocation beyond its nodes, and reads the same as a list cut
// in chunks.
func TestNodesOneChunkInPlace(t *testing.T) {
	nodes := []Node{testNode(1, 0), testNode(2, 0)}
	if n := testing.AllocsPerRun(100, func() { _ = NodesOf(nodes...) }); n != 0 {
		t.Errorf("NodesOf of %d nodes: %v allocations, want 0", len(nodes), n)
	}
	ns := NodesOf(nodes...)
	if ns.Len() != 2 || ns.At(1).Name != nodes[1].Name || ns.Prefix(1).Len() != 1 || ns.Extend(testNode(3, 0)).At(2).Seq != 3 {
		t.Errorf("one chunk: Len %d, At(1) %s", ns.Len(), ns.At(1).Name)
	}
}

// TestNodesHeadChangeRoom: a change near the head of a long queue (the
// oldest waiter leaves, the next one gets a new predecessor) shares the
// first chunk's untouched tail and puts the few nodes before it in a
// chunk of their size, not in a full chunk's room; the lists before it
// stay as they were.
func TestNodesHeadChangeRoom(t *testing.T) {
	var nodes []Node
	for i := range 4 * nodeChunk {
		nodes = append(nodes, testNode(int32(i), 0))
	}
	prev := NodesOf(slices.Clone(nodes)...)
	kept := append([]Node{nodes[0]}, nodes[2:]...) // nodes[1] left
	kept[1].Version = 1                            // its successor touched
	entries := make([]ordering.Entry, len(kept))
	for i, n := range kept {
		entries[i] = ordering.Entry{ParsedName: ordering.ParsedName{Name: n.Name, Seq: n.Seq}}
	}
	merge := func() (Nodes, bool) {
		return MergeChanged(prev, entries, []ordering.ParsedName{{Name: kept[1].Name, Seq: kept[1].Seq}},
			func(*ordering.Entry) (Node, bool) { return kept[1], true })
	}
	next, ok := merge()
	if !ok || !reflect.DeepEqual(next.Slice(), kept) {
		t.Fatalf("head change: ok %v, %d nodes, want %d", ok, next.Len(), len(kept))
	}
	var before, after runtime.MemStats
	const runs = 20
	runtime.ReadMemStats(&before)
	for range runs {
		merge()
	}
	runtime.ReadMemStats(&after)
	chunk := uint64(nodeChunk) * uint64(unsafe.Sizeof(Node{}))
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > chunk/4 {
		t.Errorf("a change at the head allocates %d bytes, a chunk is %d", per, chunk)
	}
	if !reflect.DeepEqual(prev.Slice(), nodes) {
		t.Error("the list before the change was altered")
	}
}

func TestUntouchedAfter(t *testing.T) {
	var c []Node
	var entries []ordering.Entry
	for i := range 64 {
		c = append(c, testNode(int32(i), 0))
		entries = append(entries, ordering.Entry{ParsedName: ordering.ParsedName{Name: c[i].Name, Seq: c[i].Seq}})
	}
	none := func(a, z *Node) bool { return false }
	all := func(a, z *Node) bool { return true }
	for _, tc := range []struct {
		name    string
		from    int
		entries []ordering.Entry
		touched func(a, z *Node) bool
		want    bool
	}{
		{"untouched tail", 4, entries, none, true},
		{"touched tail", 4, entries, all, false},
		{"tail too short", 64 - shareTail + 1, entries, none, false},
		{"a tail node left", 4, slices.Delete(slices.Clone(entries), 40, 41), none, false},
		{"the tail's first node left", 4, slices.Delete(slices.Clone(entries), 4, 5), none, false},
		{"nodes before it left", 4, slices.Delete(slices.Clone(entries), 1, 3), none, true},
	} {
		if got := untouchedAfter(c, tc.from, tc.entries, tc.touched); got != tc.want {
			t.Errorf("%s: untouchedAfter = %v, want %v", tc.name, got, tc.want)
		}
	}
}
