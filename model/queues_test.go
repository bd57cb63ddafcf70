package model

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func testQueue(i, version int) Queue {
	return Queue{Path: fmt.Sprintf("/locks/e%06d", i), State: PathPresent,
		Nodes: NodesOf(testNode(int32(version), int32(version)))}.WithRare(QueueRare{Limit: version})
}

// TestQueuesBasics: length, index, search, iteration, JSON as an array
// (null when empty, as a nil []Queue), on lists of every size around the
// chunk boundaries.
func TestQueuesBasics(t *testing.T) {
	for _, n := range []int{0, 1, queueChunk - 1, queueChunk, queueChunk + 1, 3*queueChunk + 7} {
		qs := make([]Queue, n)
		for i := range qs {
			qs[i] = testQueue(2*i, 0)
		}
		l := QueuesOf(slices.Clone(qs)...)
		if l.Len() != n {
			t.Fatalf("%d queues: Len %d", n, l.Len())
		}
		for i := range qs {
			if l.At(i).Path != qs[i].Path {
				t.Fatalf("%d queues: At(%d) = %s", n, i, l.At(i).Path)
			}
			if j, ok := l.Find(qs[i].Path); !ok || j != i {
				t.Fatalf("%d queues: Find(%s) = %d %v", n, qs[i].Path, j, ok)
			}
			if j, ok := l.Find(testQueue(2*i+1, 0).Path); ok || j != i+1 {
				t.Fatalf("%d queues: Find(absent after %d) = %d %v", n, i, j, ok)
			}
		}
		k := 0
		for i, q := range l.All() {
			if i != k || q.Path != qs[i].Path {
				t.Fatalf("%d queues: All yields %d %s", n, i, q.Path)
			}
			k++
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		if n == 0 {
			want, _ = json.Marshal([]Queue(nil))
		} else {
			want, _ = json.Marshal(qs)
		}
		if string(b) != string(want) {
			t.Fatalf("%d queues: JSON differs from a []Queue's", n)
		}
		var back Queues
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.Slice(), l.Slice()) {
			t.Fatalf("%d queues: JSON round trip: %v", n, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("At out of range did not panic")
		}
	}()
	QueuesOf(testQueue(1, 0)).At(1)
}

// TestQueuesPatch: a list patched at random (queues changed, added and
// removed, in bursts and one at a time) always holds what a plain sorted
// slice changed the same way holds, its chunks stay within bounds, and
// no list handed out before is ever altered.
func TestQueuesPatch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const space = 4000
	var plain []Queue
	var l Queues
	type kept struct {
		l    Queues
		want []Queue
	}
	var old []kept
	for step := range 200 {
		n := 1 + r.IntN(3)
		if step%50 == 0 {
			n = 300 + r.IntN(600) // a burst: a first picture, a re-sync
		}
		set := map[string]Queue{}
		del := map[string]bool{}
		for range n {
			i := r.IntN(space)
			if r.IntN(3) == 0 {
				del[testQueue(i, 0).Path] = true
			} else {
				q := testQueue(i, step+1)
				set[q.Path] = q
			}
		}
		var setS []Queue
		for _, q := range set {
			setS = append(setS, q)
		}
		slices.SortFunc(setS, func(a, b Queue) int { return strings.Compare(a.Path, b.Path) })
		var delS []string
		for p := range del {
			delS = append(delS, p)
		}
		slices.Sort(delS)
		l = l.Patch(setS, delS)
		plain = patchPlain(plain, set, del)
		if !sameQueues(l.Slice(), plain) {
			t.Fatalf("step %d: the patched list differs from the slice", step)
		}
		for k, c := range l.chunks {
			if len(c) == 0 || len(c) > 2*queueChunk {
				t.Fatalf("step %d: chunk %d holds %d queues", step, k, len(c))
			}
		}
		if len(l.chunks) > 2*len(plain)/queueChunk+2 && len(plain) > 2*queueChunk {
			t.Fatalf("step %d: %d chunks for %d queues", step, len(l.chunks), len(plain))
		}
		old = append(old, kept{l, slices.Clone(plain)})
		for _, o := range old[max(0, len(old)-10):] {
			if !sameQueues(o.l.Slice(), o.want) {
				t.Fatalf("step %d: a list handed out before was altered", step)
			}
		}
	}
}

// sameQueues compares two lists by what the test changes: paths and
// versions (Limit, and the version of the queue's node).
func sameQueues(a, b []Queue) bool {
	return slices.EqualFunc(a, b, func(x, y Queue) bool {
		return x.Path == y.Path && x.Limit() == y.Limit() && x.Nodes.At(0).Version == y.Nodes.At(0).Version
	})
}

// patchPlain applies set and del to a sorted slice the plain way.
func patchPlain(plain []Queue, set map[string]Queue, del map[string]bool) []Queue {
	var out []Queue
	for _, q := range plain {
		if _, ok := set[q.Path]; !ok && !del[q.Path] {
			out = append(out, q)
		}
	}
	for p, q := range set {
		if !del[p] {
			out = append(out, q)
		}
	}
	slices.SortFunc(out, func(a, b Queue) int { return strings.Compare(a.Path, b.Path) })
	return out
}
