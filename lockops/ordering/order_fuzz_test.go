package ordering

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzOrder feeds Order a child list (one name per line) and checks what
// must hold for any list: no panic; every distinct child exactly once;
// sequence order; roles as sequence order decides them (at most one
// mutex or write holder); beliefs that are consistent; and a result that
// does not depend on the listing's order. Seeds: testdata/fuzz/FuzzOrder.
func FuzzOrder(f *testing.F) {
	f.Add("")
	f.Add(curMutex(uuidA, 5) + "\n" + kzLock(hexA, 6) + "\nleases")
	f.Fuzz(func(t *testing.T, list string) {
		children := strings.Split(list, "\n")
		q := Order(children)

		distinct := slices.Compact(slices.Sorted(slices.Values(children)))
		var out []string
		for _, e := range q.Entries {
			out = append(out, e.Name)
		}
		out = append(out, q.Other...)
		slices.Sort(out)
		if !slices.Equal(out, distinct) {
			t.Fatalf("children out %q, want each of %q once", out, distinct)
		}
		if !slices.IsSorted(q.Other) {
			t.Errorf("Other not sorted: %q", q.Other)
		}
		for _, o := range q.Other {
			if _, ok := ParseName(o); ok {
				t.Errorf("lock node %q in Other", o)
			}
		}
		if len(q.Entries) == 0 {
			if q.Holders() != nil || q.SplitHolders() != nil || q.MixedRecipes() != nil {
				t.Error("an empty queue has holders or groups")
			}
			if st, err := DetectStyle(q); st != StyleCurator || err != nil {
				t.Errorf("DetectStyle(empty) = %v, %v", st, err)
			}
			return
		}

		checkSeqOrder(t, q)
		checkRoles(t, q)
		checkBeliefs(t, q, distinct)
		checkPredecessorWithout(t, q, distinct)

		// What the lock core decides with is Order's, less the replays.
		want := Ordering{Entries: slices.Clone(q.Entries), Other: q.Other}
		for i := range want.Entries {
			want.Entries[i].Believes, want.Entries[i].Watches = 0, "" // zero values
		}
		if sq := BySequence(children); !reflect.DeepEqual(sq, want) {
			t.Errorf("seqQueue differs from Order less Believes and Watches:\n%+v\n%+v", sq, want)
		}

		split := q.SplitHolders()
		if split != nil && len(split) < 2 {
			t.Errorf("SplitHolders %q: fewer than two", split)
		}
		groups := q.MixedRecipes()
		if groups != nil {
			n := 0
			for _, g := range groups {
				n += len(g.Nodes)
			}
			if len(groups) < 2 || n != len(q.Entries) {
				t.Errorf("MixedRecipes %v does not group all %d lock nodes", groups, len(q.Entries))
			}
		}
		if _, err := DetectStyle(q); (err != nil) != (groups != nil) || err != nil && !errors.Is(err, ErrMixedRecipes) {
			t.Errorf("DetectStyle: %v, with groups %v", err, groups)
		}

		reversed := slices.Clone(children)
		slices.Reverse(reversed)
		if r := Order(reversed); !reflect.DeepEqual(r, q) {
			t.Errorf("Order depends on the listing order:\n%+v\n%+v", q, r)
		}
	})
}

// checkSeqOrder: Entries start after the largest gap on the 2^32 circle
// and go round it once; equal sequences by name; when the nodes span less
// than 2^31, every pair agrees with SeqLess.
func checkSeqOrder(t *testing.T, q Ordering) {
	t.Helper()
	start := uint32(q.Entries[0].Seq)
	last := uint32(q.Entries[len(q.Entries)-1].Seq) - start
	wrapGap := uint64(1)<<32 - uint64(last)
	for i := 1; i < len(q.Entries); i++ {
		a, b := q.Entries[i-1], q.Entries[i]
		da, db := uint32(a.Seq)-start, uint32(b.Seq)-start
		if da > db || da == db && a.Name >= b.Name {
			t.Fatalf("entries %d (%q, %d) and %d (%q, %d) out of order", i-1, a.Name, a.Seq, i, b.Name, b.Seq)
		}
		if g := uint64(db - da); g > wrapGap {
			t.Errorf("gap %d between %d and %d exceeds the gap %d the queue starts after", g, a.Seq, b.Seq, wrapGap)
		}
		if last < 1<<31 && a.Seq != b.Seq && !SeqLess(a.Seq, b.Seq) {
			t.Errorf("SeqLess(%d, %d) false inside a span under 2^31", a.Seq, b.Seq)
		}
	}
}

// checkRoles: roles and predecessors by sequence order.
func checkRoles(t *testing.T, q Ordering) {
	t.Helper()
	exclusiveHolders, readHolders, leadingReads := 0, 0, 0
	for _, e := range q.Entries {
		if e.Kind != KindRead {
			break
		}
		leadingReads++
	}
	lastExclusive := ""
	for i, e := range q.Entries {
		want := lastExclusive
		if e.Kind != KindRead {
			want = ""
			if i > 0 {
				want = q.Entries[i-1].Name
			}
			lastExclusive = e.Name
		}
		if e.Predecessor != want {
			t.Errorf("%q: predecessor %q, want %q", e.Name, e.Predecessor, want)
		}
		if (e.Role == RoleHolder) != (e.Predecessor == "") {
			t.Errorf("%q: role %v with predecessor %q", e.Name, e.Role, e.Predecessor)
		}
		if e.Role == RoleHolder {
			if e.Kind == KindRead {
				readHolders++
			} else {
				exclusiveHolders++
			}
		}
		if q.Index(e.Name) != i {
			t.Errorf("Index(%q) = %d, want %d", e.Name, q.Index(e.Name), i)
		}
	}
	wantExclusive := 0
	if q.Entries[0].Kind != KindRead {
		wantExclusive = 1
	}
	if exclusiveHolders != wantExclusive || readHolders != leadingReads {
		t.Errorf("%d mutex/write and %d read holders, want %d and %d", exclusiveHolders, readHolders, wantExclusive, leadingReads)
	}
	if len(q.Holders()) != exclusiveHolders+readHolders {
		t.Errorf("Holders() = %d entries", len(q.Holders()))
	}
}

// checkBeliefs: each entry parses to itself, believes consistently, and
// watches a child of the list.
func checkBeliefs(t *testing.T, q Ordering, distinct []string) {
	t.Helper()
	kazooRead := slices.ContainsFunc(q.Entries, func(e Entry) bool { return e.Recipe == RecipeKazoo && e.Kind == KindRead })
	for _, e := range q.Entries {
		n, ok := ParseName(e.Name)
		if ok && kazooRead && n.Recipe == RecipeKazoo && n.Kind == KindMutex {
			n.Kind = KindWrite
		}
		if !ok || n != e.ParsedName {
			t.Errorf("entry %+v, ParseName gives %+v, %v", e.ParsedName, n, ok)
		}
		if n.Family() == "" {
			t.Errorf("%q: lock node without a family", e.Name)
		}
		if e.Believes == RoleHolder && e.Watches != "" {
			t.Errorf("%q believes it holds and watches %q", e.Name, e.Watches)
		}
		if e.Watches != "" {
			if _, found := slices.BinarySearch(distinct, e.Watches); !found || e.Watches == e.Name {
				t.Errorf("%q watches %q: not another child", e.Name, e.Watches)
			}
		}
		if e.Recipe == RecipePlain && (e.Believes != e.Role || e.Watches != e.Predecessor) {
			t.Errorf("plain %q believes %v watching %q; by sequence %v after %q", e.Name, e.Believes, e.Watches, e.Role, e.Predecessor)
		}
	}
}

// checkPredecessorWithout: Ordering.PredecessorWithout agrees with ordering
// the listing again without the gone nodes, for every node with its
// predecessor gone, then its predecessor's predecessor too (what a waiter
// asks), and with the head gone.
func checkPredecessorWithout(t *testing.T, q Ordering, children []string) {
	t.Helper()
	for _, e := range q.Entries {
		var gone []string
		for _, g := range []string{e.Predecessor, q.Entries[0].Name} {
			if g == "" || g == e.Name {
				continue
			}
			gone = append(gone, g)
			rest := slices.DeleteFunc(slices.Clone(children), func(c string) bool { return slices.Contains(gone, c) })
			r := Order(rest)
			want := r.Entries[r.Index(e.Name)].Predecessor
			if got := q.PredecessorWithout(e.Name, gone...); got != want {
				t.Fatalf("PredecessorWithout(%q, %q) = %q; ordering again says %q (children %q)", e.Name, gone, got, want, children)
			}
			if g = q.PredecessorWithout(e.Name, gone...); g != "" && len(gone) == 1 {
				gone = append(gone, g)
				rest = slices.DeleteFunc(rest, func(c string) bool { return c == g })
				r = Order(rest)
				want = r.Entries[r.Index(e.Name)].Predecessor
				if got := q.PredecessorWithout(e.Name, gone...); got != want {
					t.Fatalf("PredecessorWithout(%q, %q) = %q; ordering again says %q (children %q)", e.Name, gone, got, want, children)
				}
				gone = gone[:1]
			}
		}
	}
}
