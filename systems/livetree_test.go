package systems

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/zklock/zklock/third_party/zk"
)

// mapReader serves a tree of persistent nodes held in a map (parent ->
// children, in the order the server would list them).
type mapReader struct {
	kids  map[string][]string
	nodes map[string]bool // every node but "/"
	gets  atomic.Int64
}

func (m *mapReader) Get(p string) ([]byte, *zk.Stat, error) {
	m.gets.Add(1)
	if !m.nodes[p] {
		return nil, nil, zk.ErrNoNode
	}
	return nil, &zk.Stat{NumChildren: int32(len(m.kids[p]))}, nil
}

func (m *mapReader) Children(p string) ([]string, *zk.Stat, error) {
	if p == "/" {
		return m.kids[p], &zk.Stat{}, nil
	}
	if _, _, err := m.Get(p); err != nil {
		return nil, nil, err
	}
	return m.kids[p], &zk.Stat{}, nil
}

// wideReader is a root /locks/orders of n empty parents, listed in
// reverse name order (the server's order is no order).
func wideReader(n int) *mapReader {
	m := &mapReader{kids: map[string][]string{"/": {"locks"}, "/locks": {"orders"}},
		nodes: map[string]bool{"/locks": true, "/locks/orders": true}}
	for i := n - 1; i >= 0; i-- {
		name := fmt.Sprintf("o%06d", i)
		m.kids["/locks/orders"] = append(m.kids["/locks/orders"], name)
		m.nodes["/locks/orders/"+name] = true
	}
	return m
}

// TestLiveTreeNodeInWideParent: Node finds each child of a parent listed
// out of order and refuses a name that is not there.
func TestLiveTreeNodeInWideParent(t *testing.T) {
	r := wideReader(3000)
	tree := NewLiveTree(context.Background(), r, 10000)
	for _, name := range []string{"o000000", "o001500", "o002999"} {
		if _, ok := tree.Node("/locks/orders/" + name); !ok {
			t.Errorf("Node(%s): not found", name)
		}
	}
	for _, name := range []string{"o003000", "o0015", "p000000"} {
		if _, ok := tree.Node("/locks/orders/" + name); ok {
			t.Errorf("Node(%s): found a child that is not there", name)
		}
	}
}

// TestScanStopsWhenSpent: once a live tree's budget is spent, a scan
// asks its recognisers about no path the tree has not read: a root of
// 20,000 parents read with a budget of 5 is not walked parent by parent
// (it was, every 15 s, at a wide root: ~0.9 s of CPU each time at
// 100,000 parents), and what was read is still recognised.
func TestScanStopsWhenSpent(t *testing.T) {
	r := wideReader(20000)
	tree := NewLiveTree(context.Background(), r, 5)
	asked := 0
	scan(tree, "/", func(t Tree, p string) (Recognition, bool) {
		asked++
		return Recognize(t, p)
	})
	if asked > 10 {
		t.Errorf("the scan asked about %d paths with the budget spent after 5 reads (want the few read)", asked)
	}
	if tree.Complete() {
		t.Error("the tree says complete with its budget spent")
	}

	// With budget enough, every path is asked about.
	r = wideReader(200)
	tree = NewLiveTree(context.Background(), r, 10000)
	asked = 0
	scan(tree, "/", func(t Tree, p string) (Recognition, bool) {
		asked++
		return Recognize(t, p)
	})
	if want := 3 + 200; asked != want {
		t.Errorf("a whole read asked about %d paths, want %d", asked, want)
	}
}

// TestRecognizeWideParentReadsFew: the recognisers asked about a parent
// of 5,000 persistent children (a lock per entity) read a handful of
// them, not all: each rejects the parent at the first child its grammar
// refuses (they read up to the whole budget before, every 15 s).
func TestRecognizeWideParentReadsFew(t *testing.T) {
	r := wideReader(5000)
	tree := NewLiveTree(context.Background(), r, 100000)
	if _, ok := Recognize(tree, "/locks/orders"); ok {
		t.Fatal("a parent of plain persistent nodes recognised as a system")
	}
	if _, ok := RecognizeRecipe(tree, "/locks/orders"); ok {
		t.Fatal("a parent of plain persistent nodes recognised as a recipe")
	}
	if n := r.gets.Load(); n > 10 {
		t.Errorf("the recognisers read %d of the 5,000 children (want a few)", n)
	}
}

// BenchmarkSystemsReadWide100k: one systems read (Scan and ScanRecipes,
// as the Watcher's 15 s read does) of a root of 100,000 plain lock
// parents, with the Watcher's budget: the CPU an idle console spends on
// it each time (the reads themselves are a map here).
func BenchmarkSystemsReadWide100k(b *testing.B) {
	r := wideReader(100000)
	for b.Loop() {
		tree := NewLiveTree(context.Background(), r, 256)
		Scan(tree, "/locks/orders")
		ScanRecipes(tree, "/locks/orders")
	}
}

// TestVanishedChildrenRecogniseNothing: a parent whose children are all
// gone between its listing and their reads (a busy lock's nodes, taken
// and released) is no recipe: it was taken for an empty Kazoo queue, and
// `zklock run` refused a Curator lock as "a kazoo queue".
func TestVanishedChildrenRecogniseNothing(t *testing.T) {
	r := &mapReader{kids: map[string][]string{"/": {"lk"}, "/lk": {
		"_c_0b3c4f7e-9a1d-4b6e-8f2a-1c2d3e4f5a6b-lock-0000000007",
		"_c_5f6e7d8c-1a2b-4c3d-9e8f-7a6b5c4d3e2f-lock-0000000008",
	}}, nodes: map[string]bool{"/lk": true}} // listed, gone when read
	tree := NewLiveTree(context.Background(), r, 100)
	if rec, ok := Recognize(tree, "/lk"); ok {
		t.Errorf("recognised %s %s", rec.System, rec.Type)
	}
	if rec, ok := RecognizeRecipe(tree, "/lk"); ok {
		t.Errorf("recognised as a recipe: %s (%s)", rec.Type, rec.Label)
	}
}
