package zkview

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestChildSet: a childSet changed at random, across the size where it
// moves from its slice to its map, holds what a map changed the same way
// holds.
func TestChildSet(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var s childSet
	want := map[string]bool{}
	for step := range 3000 {
		k := fmt.Sprintf("lock-%03d", r.IntN(2*fewChildren+2))
		switch r.IntN(20) {
		case 0:
			names := make([]string, r.IntN(2*fewChildren))
			clear(want)
			for i := range names {
				names[i] = fmt.Sprintf("lock-%03d", r.IntN(40))
				want[names[i]] = true
			}
			s.reset(names)
		case 1, 2, 3, 4, 5, 6, 7, 8:
			s.add(k)
			want[k] = true
		default:
			s.del(k)
			delete(want, k)
		}
		got := s.names()
		slices.Sort(got)
		var w []string
		for n := range want {
			w = append(w, n)
		}
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Fatalf("step %d: %v, want %v", step, got, w)
		}
		if s.has(k) != want[k] {
			t.Fatalf("step %d: has(%s) %v", step, k, s.has(k))
		}
	}
}

// TestChildSetRekey: rekey makes the set hold the given string's bytes,
// in its slice and in its map, and leaves a name it does not hold out.
func TestChildSetRekey(t *testing.T) {
	for _, n := range []int{1, fewChildren + 1} {
		var s childSet
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("e%06d", i)
		}
		s.reset(names)
		p := "/root/" + names[0]
		k := p[len("/root/"):]
		s.rekey(k)
		s.rekey("/root/absent"[len("/root/"):])
		shared := false
		for got := range s.all() {
			if got == k && unsafe.StringData(got) == unsafe.StringData(k) {
				shared = true
			}
			if got == "absent" {
				t.Errorf("%d names: rekey added a name the set did not hold", n)
			}
		}
		if !shared {
			t.Errorf("%d names: the set does not hold the path's bytes after rekey", n)
		}
		if len(s.names()) != n {
			t.Errorf("%d names: %d after rekey", n, len(s.names()))
		}
	}
}
