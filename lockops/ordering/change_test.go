package ordering

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// changeNamers make a lock node name of each recipe Change handles, and
// some it must refuse.
var changeNamers = map[string]func(r *rand.Rand, seq int32) string{
	"curator": func(r *rand.Rand, seq int32) string {
		return fmt.Sprintf("_c_%08x-%04x-4%03x-8%03x-%012x-lock-%010d", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Int64N(1<<48), seq)
	},
	"gozk": func(r *rand.Rand, seq int32) string {
		return fmt.Sprintf("_c_%016x%016x-lock-%010d", r.Uint64(), r.Uint64(), seq)
	},
	"kazoo": func(r *rand.Rand, seq int32) string {
		return fmt.Sprintf("%016x%016x__lock__%010d", r.Uint64(), r.Uint64(), seq)
	},
	"plain": func(r *rand.Rand, seq int32) string { return fmt.Sprintf("lock-%010d", seq) },
	// Refused: read nodes, latches, another recipe, garbage, wrapped.
	"read": func(r *rand.Rand, seq int32) string {
		return fmt.Sprintf("%016x%016x__rlock__%010d", r.Uint64(), r.Uint64(), seq)
	},
	"latch": func(r *rand.Rand, seq int32) string {
		return fmt.Sprintf("_c_%08x-1111-4222-8333-%012x-latch-%010d", r.Uint32(), r.Int64N(1<<48), seq)
	},
	"other": func(r *rand.Rand, seq int32) string { return fmt.Sprintf("leases%d", seq) },
	"wrap":  func(r *rand.Rand, seq int32) string { return fmt.Sprintf("lock-%010d", -seq-1) },
}

// TestChangeIsOrder: whatever Change answers is exactly Order's answer on
// the changed list, and it answers for the busy queue's shape.
func TestChangeIsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	main := []string{"curator", "gozk", "kazoo", "plain"}
	odd := []string{"read", "latch", "other", "wrap", "curator", "kazoo", "plain"}
	answered := 0
	for round := range 3000 {
		recipe := main[round%len(main)]
		mk := changeNamers[recipe]
		seq := int32(r.IntN(1000))
		var kids []string
		for range r.IntN(20) {
			seq += 1 + int32(r.IntN(3))
			kids = append(kids, mk(r, seq))
		}
		var added, removed []string
		for range r.IntN(4) {
			if len(kids) > 0 && r.IntN(2) == 0 {
				removed = append(removed, kids[r.IntN(len(kids))])
			}
			switch {
			case r.IntN(10) == 0: // a node of another shape
				seq++
				added = append(added, changeNamers[odd[r.IntN(len(odd))]](r, seq))
			case r.IntN(8) == 0 && len(kids) > 0: // one already there
				added = append(added, kids[r.IntN(len(kids))])
			case r.IntN(8) == 0: // an older node, found late
				added = append(added, mk(r, int32(r.IntN(1000))))
			default:
				seq += 1 + int32(r.IntN(3))
				added = append(added, mk(r, seq))
			}
		}
		if r.IntN(20) == 0 && len(added) > 0 {
			removed = append(removed, added[0]) // created and deleted in one batch
		}
		before := Order(kids)
		got, touched, ok := before.Change(added, removed)
		owned := Order(kids)
		gotOwned, touchedOwned, okOwned := owned.ChangeOwned(added, removed)
		if okOwned != ok || ok && (!reflect.DeepEqual(gotOwned, got) || !slices.Equal(touchedOwned, touched)) {
			t.Fatalf("round %d (%s): kids %q + %q - %q:\nChangeOwned %v %+v %v\nChange      %v %+v %v", round, recipe, kids, added, removed,
				okOwned, gotOwned, touchedOwned, ok, got, touched)
		}
		if !okOwned && !reflect.DeepEqual(owned, before) {
			t.Fatalf("round %d: ChangeOwned refused the change and altered the ordering", round)
		}
		if !ok {
			continue
		}
		checkTouched(t, round, before, got, touched)
		answered++
		var after []string
		for _, k := range append(slices.Clone(kids), added...) {
			if !slices.Contains(removed, k) {
				after = append(after, k)
			}
		}
		want := Order(after)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d (%s): kids %q + %q - %q:\nChange %+v\nOrder  %+v", round, recipe, kids, added, removed, got, want)
		}
	}
	if answered < 1500 {
		t.Fatalf("Change answered %d of 3000 rounds: the busy shape should be most of them", answered)
	}
}

// TestChangeChain: a queue followed change after change (joins at the
// tail, leaves from the head and the tail, some in the middle) stays
// Order's, and no change alters an Ordering handed out before it.
func TestChangeChain(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, recipe := range []string{"curator", "gozk", "kazoo", "plain"} {
		mk := changeNamers[recipe]
		kids, seq := firstKids(r, mk)
		q := Order(kids)
		var olds []Ordering // every queue handed out, and a copy of it
		var copies [][]Entry
		for step := range 400 {
			var added, removed []string
			switch k := r.IntN(6); {
			case k < 3:
				for range 1 + r.IntN(3) {
					seq++
					added = append(added, mk(r, seq))
				}
			case k == 3 && len(kids) > 1:
				removed = append(removed, kids[0]) // the holder leaves
			case k == 4 && len(kids) > 1:
				removed = append(removed, kids[len(kids)-1]) // the last gives up
			case len(kids) > 2:
				removed = append(removed, kids[1+r.IntN(len(kids)-2)])
			}
			next, _, ok := q.Change(added, removed)
			kids = append(kids, added...)
			kids = slices.DeleteFunc(kids, func(k string) bool { return slices.Contains(removed, k) })
			want := Order(kids)
			if !ok {
				q = want
				continue
			}
			if !reflect.DeepEqual(next, want) {
				t.Fatalf("%s step %d: + %q - %q:\nChange %+v\nOrder  %+v", recipe, step, added, removed, next, want)
			}
			olds, copies = append(olds, q), append(copies, slices.Clone(q.Entries))
			q = next
		}
		for i := range olds {
			if !slices.Equal(olds[i].Entries, copies[i]) {
				t.Fatalf("%s: queue %d was changed after it was handed out", recipe, i)
			}
		}
	}
}

// firstKids are the five nodes a chain test starts from, and the last
// sequence used.
func firstKids(r *rand.Rand, mk func(*rand.Rand, int32) string) (kids []string, seq int32) {
	for range 5 {
		seq++
		kids = append(kids, mk(r, seq))
	}
	return kids, seq
}

// TestChangeOwnedChain: a queue followed by ChangeOwned alone, change
// after change, stays Order's, with what Change says it touched.
func TestChangeOwnedChain(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, recipe := range []string{"curator", "gozk", "kazoo", "plain"} {
		mk := changeNamers[recipe]
		kids, seq := firstKids(r, mk)
		q := Order(kids)
		for step := range 2000 {
			var added, removed []string
			for range r.IntN(3) {
				seq++
				added = append(added, mk(r, seq))
			}
			for range r.IntN(3) {
				if len(kids) > 1 {
					removed = append(removed, kids[r.IntN(min(len(kids), 1+r.IntN(3)*len(kids)/2))])
				}
			}
			copied := Ordering{Entries: slices.Clone(q.Entries), Other: q.Other}
			want, wantTouched, wantOK := copied.Change(added, removed)
			next, touched, ok := q.ChangeOwned(added, removed)
			kids = append(kids, added...)
			kids = slices.DeleteFunc(kids, func(k string) bool { return slices.Contains(removed, k) })
			if ok != wantOK || ok && (!reflect.DeepEqual(next.Entries, want.Entries) || !slices.Equal(touched, wantTouched)) {
				t.Fatalf("%s step %d: + %q - %q: ChangeOwned %v %v, Change %v %v", recipe, step, added, removed, ok, touched, wantOK, wantTouched)
			}
			if !ok {
				q = Order(kids)
				continue
			}
			if o := Order(kids); !reflect.DeepEqual(next.Entries, o.Entries) {
				t.Fatalf("%s step %d: ChangeOwned is not Order's", recipe, step)
			}
			q = next
		}
	}
}

// checkTouched: the entries Change says it touched are exactly those
// that are new or differ from what q had for the same name.
func checkTouched(t *testing.T, round int, q, next Ordering, touched []int) {
	t.Helper()
	var want []int
	for i, e := range next.Entries {
		if k := q.Index(e.Name); k < 0 || q.Entries[k] != e {
			want = append(want, i)
		}
	}
	if !slices.Equal(touched, want) {
		t.Fatalf("round %d: touched %v, want %v", round, touched, want)
	}
}

// TestChangeRefuses: the shapes Change leaves to Order.
func TestChangeRefuses(t *testing.T) {
	q := Order([]string{"lock-0000000001", "lock-0000000002"})
	for name, tc := range map[string]struct {
		q              Ordering
		added, removed []string
	}{
		"empty queue":     {Order(nil), []string{"lock-0000000003"}, nil},
		"read node":       {q, []string{"0123456789abcdef0123456789abcdef__rlock__0000000003"}, nil},
		"other recipe":    {q, []string{"0123456789abcdef0123456789abcdef__lock__0000000003"}, nil},
		"non-lock child":  {q, []string{"leases"}, nil},
		"wrapped counter": {q, []string{"lock--2147483648"}, nil},
		"everything gone": {q, nil, []string{"lock-0000000001", "lock-0000000002"}},
		"other present":   {Order([]string{"lock-0000000001", "leases"}), []string{"lock-0000000002"}, nil},
	} {
		if _, _, ok := tc.q.Change(tc.added, tc.removed); ok {
			t.Errorf("%s: Change answered; it must leave this to Order", name)
		}
	}
}

// BenchmarkQueueChange10000 is one create at the tail and one delete at the
// head of a 10,000-node queue, against ordering the whole list.
func BenchmarkQueueChange10000(b *testing.B) {
	kids := make([]string, 10000)
	for i := range kids {
		kids[i] = fmt.Sprintf("lock-%010d", i)
	}
	q := Order(kids)
	seq := len(kids)
	b.ReportAllocs()
	for b.Loop() {
		next, _, ok := q.Change([]string{fmt.Sprintf("lock-%010d", seq)}, []string{q.Entries[0].Name})
		if !ok {
			b.Fatal("refused")
		}
		q = next
		seq++
	}
}

func BenchmarkOrder10000(b *testing.B) {
	kids := make([]string, 10000)
	for i := range kids {
		kids[i] = fmt.Sprintf("lock-%010d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Order(kids)
	}
}
