// Incremental ordering: a queue's next Ordering from the children added and
// removed, without reading every name again, for the shape that a busy
// queue almost always has. Everything else goes back to Order.

package ordering

import (
	"cmp"
	"slices"
)

// Change returns the Ordering that Order would return for q's children with
// added created and removed deleted, and true; or false when the change
// cannot be computed without Order (the caller then orders the whole
// list). q must be the Ordering of a children list (Order's or Change's).
// touched are the indexes in next of the entries added or whose role or
// predecessor changed, ascending; every other entry is as it was in q.
//
// It handles one shape, the one a contended lock has all day: every
// child is a lock node of one recipe, a mutex (no read or write nodes, no
// latch, nothing in Other), and every sequence is non-negative. In that
// shape every recipe's replay agrees with sequence order (Curator's and
// Kazoo's sorts by the zero-padded text, go-zookeeper's parsed number),
// so each node believes what its role says and waits on its predecessor.
// A change outside it (a first node, a read node, another recipe, a
// non-lock child, a wrapped counter) returns false. The cost is one pass
// over the entries, without parsing or sorting the names already there.
func (q Ordering) Change(added, removed []string) (next Ordering, touched []int, ok bool) {
	c, ok := q.prepare(added, removed)
	if !ok {
		return Ordering{}, nil, false
	}
	return q.change(c)
}

// aChange is a change read for Change and ChangeOwned: the nodes added,
// parsed and in order, the names removed, and the indexes of the entries
// removed, ascending.
type aChange struct {
	add  []ParsedName
	gone map[string]bool
	cut  []int
}

// prepare reads a change, or says that it is not one Change computes.
func (q Ordering) prepare(added, removed []string) (aChange, bool) {
	if len(q.Entries) == 0 || len(q.Other) > 0 {
		return aChange{}, false
	}
	if !q.changeable && !changeShaped(q) {
		return aChange{}, false
	}
	recipe := q.Entries[0].Recipe
	simple := func(n *ParsedName) bool {
		return n.Recipe == recipe && n.Kind == KindMutex && !n.Latch && n.Seq >= 0
	}
	add := make([]ParsedName, 0, len(added))
	for _, name := range added {
		n, ok := ParseName(name)
		if !ok || !simple(&n) {
			return aChange{}, false
		}
		add = append(add, n)
	}
	slices.SortFunc(add, ChangeOrder)
	gone := make(map[string]bool, len(removed))
	cut := make([]int, 0, len(removed)) // indexes of removed entries
	for _, name := range removed {
		gone[name] = true
		if n, ok := ParseName(name); ok {
			if i, found := slices.BinarySearchFunc(q.Entries, &n, entryOrder); found {
				cut = append(cut, i)
			}
		}
	}
	slices.Sort(cut)
	return aChange{add: add, gone: gone, cut: slices.Compact(cut)}, true
}

// Fits says whether Change or ChangeOwned can take nodes added (before
// they are read): q is of the shape Change handles and every name added
// keeps it so. A change that Fits may still be refused (nothing joins
// after all, or nothing is left): the caller then orders the whole list.
func (q Ordering) Fits(added []string) bool {
	_, ok := q.prepare(added, nil)
	return ok
}

// change is Change once the change is read.
func (q Ordering) change(c aChange) (next Ordering, touched []int, ok bool) {
	if next, touched, ok, tail := q.tailChange(c); tail {
		return next, touched, ok
	}
	out, edges, fresh := q.merge(c)
	if len(out) == 0 {
		return Ordering{}, nil, false // empty: Order says what an empty list is
	}
	for _, f := range fresh {
		edges = append(edges, f+1) // the entry after an added one
	}
	return Ordering{Entries: out, changeable: true}, settle(out, edges, fresh), true
}

// tailChange is change when c only cuts nodes from the tail or only adds
// nodes after it (tail: it is one of those; else change merges).
func (q Ordering) tailChange(c aChange) (next Ordering, touched []int, ok, tail bool) {
	add, gone, cut := c.add, c.gone, c.cut
	n := len(q.Entries)
	if len(add) == 0 && len(cut) > 0 && cut[0] == n-len(cut) && len(cut) < n {
		// Nodes left from the tail, nothing else: the rest is as it was.
		// The capacity ends with the slice, so that a later append does
		// not write over the entries q still shows.
		return Ordering{Entries: q.Entries[: n-len(cut) : n-len(cut)], changeable: true}, nil, true, true
	}
	if len(cut) == 0 && len(add) > 0 && entryOrder(q.Entries[n-1], &add[0]) < 0 {
		// Nodes joined at the tail, nothing else: they go after q's
		// entries, in q's array when it has room (q's view ends before
		// them; the caller orders from the result from now on).
		out := q.Entries[:n:cap(q.Entries)]
		for _, a := range add {
			if gone[a.Name] || out[len(out)-1].Name == a.Name {
				continue
			}
			touched = append(touched, len(out))
			out = append(out, Entry{ParsedName: a, Role: RoleWaiting, Believes: RoleWaiting,
				Watches: out[len(out)-1].Name, Predecessor: out[len(out)-1].Name})
		}
		if len(touched) == 0 {
			return Ordering{}, nil, false, true // nothing joined after all: Order decides
		}
		return Ordering{Entries: out, changeable: true}, touched, true, true
	}
	return Ordering{}, nil, false, false
}

// merge merges the kept entries (sorted by sequence, then name) with the
// added nodes (sorted the same way), copying the runs between two
// changes whole; a name in both, or added twice, is one entry, as
// Order compacts the list. Only an entry after a change (the first of
// a run, an added one and the one after it) can have a new
// predecessor or role: edges lists them, and fresh the added ones
// (indexes in out, ascending).
func (q Ordering) merge(c aChange) (out []Entry, edges, fresh []int) {
	add, gone, cut := c.add, c.gone, c.cut
	out = make([]Entry, 0, len(q.Entries)+len(add))
	push := func(n ParsedName) {
		if gone[n.Name] || len(out) > 0 && out[len(out)-1].Name == n.Name {
			return
		}
		fresh = append(fresh, len(out))
		edges = append(edges, len(out))
		out = append(out, Entry{ParsedName: n})
	}
	i, j := 0, 0
	for i < len(q.Entries) {
		end := len(q.Entries) // the run: up to the next removed entry or added node
		if len(cut) > 0 {
			end = cut[0]
		}
		if j < len(add) {
			k, _ := slices.BinarySearchFunc(q.Entries[i:end], &add[j], entryOrder)
			if k < end-i && q.Entries[i+k].Name == add[j].Name {
				k++ // added, but already there: the entry stays as it was
			}
			end = i + k
		}
		if end > i {
			edges = append(edges, len(out))
			out = append(out, q.Entries[i:end]...)
			i = end
			for j < len(add) && out[len(out)-1].Name == add[j].Name {
				j++
			}
			continue
		}
		if len(cut) > 0 && cut[0] == i {
			cut = cut[1:]
			i++
			continue
		}
		push(add[j])
		j++
	}
	for ; j < len(add); j++ {
		push(add[j])
	}
	return out, edges, fresh
}

// settle gives the entries of out at edges (and the added ones, fresh,
// both indexes in out) the role and predecessor their place says, and
// returns the indexes of those added or changed, ascending: in the shape
// Change handles, the first entry holds and each other waits on the one
// before it.
func settle(out []Entry, edges, fresh []int) (touched []int) {
	slices.Sort(edges)
	for _, at := range slices.Compact(edges) {
		if at >= len(out) {
			continue
		}
		e := &out[at]
		_, isFresh := slices.BinarySearch(fresh, at)
		pred, role := "", RoleHolder
		if at > 0 {
			pred, role = out[at-1].Name, RoleWaiting
		}
		if isFresh || e.Role != role || e.Predecessor != pred || e.Believes != role || e.Watches != pred {
			touched = append(touched, at)
			e.Role, e.Believes, e.Watches, e.Predecessor = role, role, pred, pred
		}
	}
	return touched
}

// Changeable says whether q is of the shape Change handles: lock nodes
// only, of one recipe, mutexes (no latch), non-negative sequences. In
// it each node waits on the node just before it, and nothing else does.
func (q Ordering) Changeable() bool { return q.changeable || changeShaped(q) }

// Shaped says whether Order or Change found q in the shape Change
// handles, without looking again: a holder that keeps q's parts apart
// (zkview/queue keeps Other only where there is one) gives it back to
// Assemble.
func (q Ordering) Shaped() bool { return q.changeable }

// Assemble is the Ordering of entries and other as one taken apart was
// (shaped: its Shaped), so that Change need not look at its shape again.
func Assemble(entries []Entry, other []string, shaped bool) Ordering {
	return Ordering{Entries: entries, Other: other, changeable: shaped}
}

// changeShaped: q is of the shape Change handles (its doc): lock nodes
// only, of one recipe, mutexes (no latch), non-negative sequences.
func changeShaped(q Ordering) bool {
	if len(q.Entries) == 0 || len(q.Other) > 0 {
		return false
	}
	recipe := q.Entries[0].Recipe
	for i := range q.Entries {
		n := &q.Entries[i].ParsedName
		if n.Recipe != recipe || n.Kind != KindMutex || n.Latch || n.Seq < 0 {
			return false
		}
	}
	return true
}

// ChangeOrder orders two names as Change keeps its entries: by sequence,
// then by name; in the shape Change handles (non-negative sequences),
// that is Order's order.
func ChangeOrder(a, b ParsedName) int {
	if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// entryOrder orders an entry against a name (ChangeOrder).
func entryOrder(e Entry, n *ParsedName) int { return ChangeOrder(e.ParsedName, *n) }

// ChangeOwned is Change for a caller that owns q and keeps only the
// Ordering it returns, as zkview's model keeps one per queue: nodes
// leaving from anywhere and nodes joining at the tail are applied in q's
// own array (the entries on the shorter side of a node that leaves move
// over it), so a change allocates nothing but the array's growth, and a
// waiter leaving near the head moves the few entries before it; any
// other change is Change's. It returns what Change would return. Once it returns true, q
// and every Ordering sharing its Entries must not be read again; when it
// returns false, q is as it was.
func (q Ordering) ChangeOwned(added, removed []string) (next Ordering, touched []int, ok bool) {
	c, ok := q.prepare(added, removed)
	if !ok {
		return Ordering{}, nil, false
	}
	// The nodes that join: not removed in the same change, not there
	// already, each once; all after the last entry that stays, or the
	// change is Change's.
	E := q.Entries
	lastKept := len(E) - 1
	for k := len(c.cut) - 1; k >= 0 && c.cut[k] == lastKept; k-- {
		lastKept--
	}
	join := make([]ParsedName, 0, len(c.add))
	for _, a := range c.add {
		if c.gone[a.Name] || len(join) > 0 && join[len(join)-1].Name == a.Name {
			continue
		}
		if i, found := slices.BinarySearchFunc(E, &a, entryOrder); found {
			if _, isCut := slices.BinarySearch(c.cut, i); !isCut {
				continue // there already: it stays as it is
			}
		}
		if lastKept >= 0 && entryOrder(E[lastKept], &a) >= 0 {
			return q.change(c)
		}
		join = append(join, a)
	}
	if len(E)-len(c.cut)+len(join) == 0 {
		return Ordering{}, nil, false // empty: Order says what an empty list is
	}
	if len(c.cut) == 0 && len(c.add) > 0 && len(join) == 0 && entryOrder(E[len(E)-1], &c.add[0]) < 0 {
		return Ordering{}, nil, false // nothing joined after all: Order decides, as in Change
	}

	// The entry after each one that leaves may have a new role or
	// predecessor: its index once they are gone.
	edges := []int{0}
	for k, ci := range c.cut {
		if k+1 < len(c.cut) && c.cut[k+1] == ci+1 {
			continue // the next one leaves too
		}
		if ci+1 < len(E) {
			edges = append(edges, ci+1-(k+1)) // after the k+1 that leave up to here
		}
	}
	// Leaving: the shorter side of each moves (the entries before one
	// that leaves from the front half move up, and the array is sliced;
	// those after one from the back half move down), so a waiter leaving
	// near the head moves the few before it, not the many after it.
	f, _ := slices.BinarySearch(c.cut, len(E)/2)
	if back := c.cut[f:]; len(back) > 0 {
		w, r := back[0], back[0]
		for _, ci := range back {
			w += copy(E[w:], E[r:ci])
			r = ci + 1
		}
		w += copy(E[w:], E[r:])
		clear(E[w:])
		E = E[:w]
	}
	if f > 0 {
		for k := f - 1; k >= 0; k-- {
			lo, shift := 0, f-k
			if k > 0 {
				lo = c.cut[k-1] + 1
			}
			copy(E[lo+shift:c.cut[k]+shift], E[lo:c.cut[k]])
		}
		clear(E[:f]) // let go of their names
		E = E[f:]
	}
	fresh := make([]int, 0, len(join))
	for _, a := range join {
		fresh = append(fresh, len(E))
		edges = append(edges, len(E))
		E = append(E, Entry{ParsedName: a})
	}
	return Ordering{Entries: E, changeable: true}, settle(E, edges, fresh), true
}
