package queue

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// TestLoneModelKeepsNoEntries: a parent of one lock node and no other
// child keeps no entries (Order derives its one): keeping its order
// allocates nothing, where a parent of two keeps them (one allocation, the
// slice's header); a lone node's other child or second node keeps them.
func TestLoneModelKeepsNoEntries(t *testing.T) {
	t0 := time.Date(2026, 3, 14, 3, 12, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		kids   []string
		allocs float64
	}{
		{"one lock node", []string{"lock-0000000000"}, 0},
		{"one Kazoo read node", []string{"9f1c3a5e7b2d4f6081a3c5e7f9b1d3f5__rlock__0000000007"}, 0},
		{"two lock nodes", []string{"lock-0000000000", "lock-0000000001"}, 1},
		{"one lock node and another child", []string{"lock-0000000000", "config"}, 1},
	} {
		qm := New("/l", "/l", &Hooks{Emit: func(model.Change) {}})
		qm.Apply(c.kids, nil, t0, t0, t0)
		if kept := qm.entries != nil; kept != (c.allocs > 0) {
			t.Errorf("%s: entries kept %v, want %v", c.name, kept, c.allocs > 0)
		}
		order := ordering.Order(c.kids)
		got := testing.AllocsPerRun(100, func() {
			qm.entries = nil
			qm.setOrder(order)
		})
		if got != c.allocs {
			t.Errorf("%s: keeping the order allocates %v times, want %v", c.name, got, c.allocs)
		}
	}
}

// smallChildren are n children of one lock parent, drawn from every
// recipe's names (lockops' tests: Curator mutex, read, write and latch;
// go-zookeeper; Kazoo lock and read; plain), the counter's edges and
// children that are not lock nodes.
func smallChildren(rng *rand.Rand, n int) []string {
	hex := []string{"9f1c3a5e7b2d4f6081a3c5e7f9b1d3f5", "0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d"}
	uuid := []string{"0f8fad5b-d9cb-469f-a165-70867728950e", "7c9e6679-7425-40de-944b-e07fc1f90ae7"}
	seqs := []int32{0, 1, 2, 3, 7, -1, 2147483647, -2147483648}
	kids := make([]string, 0, n)
	for range n {
		s := fmt.Sprintf("%010d", seqs[rng.IntN(len(seqs))])
		h, u := hex[rng.IntN(2)], uuid[rng.IntN(2)]
		kids = append(kids, []string{
			"_c_" + u + "-lock-" + s, "_c_" + u + "-__READ__" + s, "_c_" + u + "-__WRIT__" + s,
			"_c_" + u + "-latch-" + s, "_c_" + h + "-lock-" + s, h + "__lock__" + s, h + "__rlock__" + s,
			"lock-" + s, "leases", "config",
		}[rng.IntN(10)])
	}
	return kids
}

// TestDerivedOrderAsOrdered: whatever a Tracker keeps of its order, Order
// reads back what the ordering function makes of its children, shape
// included, after listings of random small child lists and after
// changes merged (ApplyChange); Kids, LockCount, Other and Alone agree.
func TestDerivedOrderAsOrdered(t *testing.T) {
	t0 := time.Date(2026, 3, 14, 3, 12, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(34, 1))
	check := func(step string, qm *Tracker, kids []string) {
		t.Helper()
		want := ordering.Order(kids)
		got := qm.Order()
		if !reflect.DeepEqual(got, want) || got.Shaped() != want.Shaped() {
			t.Fatalf("%s %q: Order %+v (shaped %v), want %+v (shaped %v)", step, kids, got, got.Shaped(), want, want.Shaped())
		}
		if qm.LockCount() != len(want.Entries) || !slices.Equal(qm.Other(), want.Other) {
			t.Errorf("%s %q: LockCount %d, Other %q; want %d, %q", step, kids, qm.LockCount(), qm.Other(), len(want.Entries), want.Other)
		}
		if alone := len(want.Entries) == 1 && len(want.Other) == 0; qm.Alone() != alone || alone && qm.entries != nil {
			t.Errorf("%s %q: Alone %v (entries kept %v), want %v", step, kids, qm.Alone(), qm.entries != nil, alone)
		}
	}
	for i := range 2000 {
		qm := New("/l", "/l", &Hooks{Emit: func(model.Change) {}})
		for range 3 {
			kids := smallChildren(rng, rng.IntN(5))
			qm.Apply(kids, nil, t0, t0, t0)
			check(fmt.Sprintf("listing %d", i), qm, kids)
			if got := qm.Kids(); !slices.Equal(got, kids) {
				t.Errorf("listing %d: Kids %q, want %q", i, got, kids)
			}
		}
	}
	// Changes between one node and more, as a busy root's parent sees
	// them: a waiter joins a lone holder, the holder leaves, the last
	// leaves.
	qm := New("/l", "/l", &Hooks{Emit: func(model.Change) {}})
	kids := []string{"lock-0000000004"}
	qm.Apply(kids, nil, t0, t0, t0)
	for _, c := range []struct{ added, removed []string }{
		{[]string{"lock-0000000005", "lock-0000000006"}, nil},
		{nil, []string{"lock-0000000004"}},
		{nil, []string{"lock-0000000006"}},
		{[]string{"lock-0000000007"}, nil},
		{nil, []string{"lock-0000000007"}},
	} {
		prev := qm.Order()
		before := PriorOf(prev, c.removed)
		order, touched, ok := prev.ChangeOwned(c.added, c.removed)
		if !ok {
			t.Fatalf("change +%q -%q of %q does not fit", c.added, c.removed, kids)
		}
		qm.ApplyChange(order, touched, before, nil, t0, t0, t0)
		kids = slices.DeleteFunc(append(kids, c.added...), func(k string) bool { return slices.Contains(c.removed, k) })
		check(fmt.Sprintf("change +%q -%q", c.added, c.removed), qm, kids)
	}
}

// BenchmarkBuildLone: building a lone parent's Queue with a server view,
// what the Watcher does for every parent after each poll of the servers
// (its order derived once a build).
func BenchmarkBuildLone(b *testing.B) {
	t0 := time.Date(2026, 3, 14, 3, 12, 0, 0, time.UTC)
	qm := New("/l", "/l", &Hooks{Emit: func(model.Change) {}})
	qm.Apply([]string{"_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000005"}, nil, t0, t0, t0)
	sv := &ServerView{OK: true, Clients: map[int64]string{}, Watches: map[int64]map[string]bool{}, Watchers: map[string][]int64{}}
	b.ReportAllocs()
	for b.Loop() {
		if q := Build(qm, sv, false, time.Time{}); q.Nodes.Len() != 1 {
			b.Fatal(q.Nodes.Len())
		}
	}
}
