// The ordering function: one lock parent's children in, one Ordering out.
// Pure (no I/O, no clock), deterministic, and shared: zkview draws with
// it, the lock decides with it.
//
// # Sequence order
//
// Sequences wrap from 2147483647 to -2147483648, so neither signed nor
// unsigned order is creation order across the wrap. Order places the
// sequences on the 2^32 circle, finds the largest gap between
// neighbouring values and starts the queue just after it. Whenever the
// live nodes span less than 2^31 (a queue would need two billion creates
// under one parent while its oldest node lived to break that), that gap is
// the only one longer than 2^31, so the order is creation order, agrees
// with SeqLess (RFC 1982 comparison) for every pair, and does not change
// as nodes are deleted (deleting only widens the gap). Without any wrap it
// is plain numeric order. When two gaps tie (only possible for garbage
// spanning 2^31 or more), the start with the lowest signed value wins.
// Equal sequences (impossible from one server) are ordered by name.
//
// # Role and Believes
//
// Role is what a correct recipe decides from sequence order: a mutex or
// write node holds when it is the first lock node; a read node holds when
// no mutex or write node is before it, so several readers may hold.
// Predecessor is the lock node just before (mutex, write) or the nearest
// mutex or write node before (read). The lock core waits on Predecessor
// and nothing else.
//
// Believes and Watches replay each node's own client library on the
// same list (replay.go).
//
// Names are read in names.go, each recipe's replay is in replay.go, the
// families that can see each other in family.go.

package ordering

import (
	"slices"
)

// Entry is one lock node in an Ordering.
type Entry struct {
	ParsedName
	// Role is by sequence order: what a correct recipe decides.
	Role Role
	// Believes is what the node's own recipe decides on this child list.
	Believes Role
	// Watches is the child this node waits on by its own recipe's rule
	// (possibly a child in Ordering.Other); "" when it believes it holds, or
	// when its recipe fails on this list instead of waiting.
	Watches string
	// Predecessor is what a correct recipe waits on: the lock node just
	// before (mutex, write) or the nearest mutex or write node before
	// (read); "" for a holder.
	Predecessor string
}

// Ordering is a lock parent's children as the ordering function sees them:
// names in, order and roles out, what the lock core decides with.
// model.Queue is the live queue built on it.
type Ordering struct {
	Entries []Entry  // lock nodes, in sequence order
	Other   []string // non-lock children, sorted by name
	// changeable: Order or Change found the queue in the shape Change
	// handles (change.go), so Change need not look again.
	changeable bool
}

const (
	// StyleCurator: _c_<uuid>-lock-, -__READ__, -__WRIT__. The default, as
	// Curator, go-zookeeper and plain clients all see these names.
	StyleCurator Style = iota
	// StyleKazoo: <32 hex>__lock__, __rlock__.
	StyleKazoo
)

// String is the style's --style name.
func (s Style) String() string {
	if s == StyleKazoo {
		return "kazoo"
	}
	return "curator"
}

// listed is one distinct child name with what each replay needs of it.
type listed struct {
	name  string
	entry int // index in Ordering.Entries, -1 for Other
}

// Order turns a lock parent's children into its Ordering (see the file
// comment for every rule).
func Order(children []string) Ordering { return order(children, true) }

// BySequence is Order without replaying each recipe (Believes and Watches
// stay empty): all the lock core decides with (Role, Predecessor, kinds,
// families). It is what the lock core orders every listing with: in a
// 32-client contended run, 28 µs per acquisition against 48 µs with Order.
func BySequence(children []string) Ordering { return order(children, false) }

func order(children []string, replays bool) Ordering {
	if len(children) == 1 {
		return orderOne(children[0], replays)
	}
	return orderMany(children, replays)
}

// orderMany is order of any list (the sorts, then the replays).
func orderMany(children []string, replays bool) Ordering {
	names := slices.Clone(children)
	slices.Sort(names)
	names = slices.Compact(names)

	var q Ordering
	kids := make([]listed, len(names))
	var nodes []ParsedName
	var nodeKid []int // nodes[i] is kids[nodeKid[i]]
	kazooRead := false
	for i, name := range names {
		kids[i] = listed{name: name, entry: -1}
		n, ok := ParseName(name)
		if !ok {
			q.Other = append(q.Other, name)
			continue
		}
		kazooRead = kazooRead || n.Recipe == RecipeKazoo && n.Kind == KindRead
		nodes = append(nodes, n)
		nodeKid = append(nodeKid, i)
	}
	if len(nodes) == 0 {
		return q
	}

	q.Entries = make([]Entry, len(nodes))
	last := "" // the nearest mutex or write node so far
	for pos, i := range seqOrder(nodes) {
		e := &q.Entries[pos]
		e.ParsedName = nodes[i]
		kids[nodeKid[i]].entry = pos
		if kazooRead && e.Recipe == RecipeKazoo && e.Kind == KindMutex {
			e.Kind = KindWrite
		}
		if e.Kind == KindRead {
			e.Predecessor = last
		} else {
			if pos > 0 {
				e.Predecessor = q.Entries[pos-1].Name
			}
			last = e.Name
		}
		if e.Predecessor == "" {
			e.Role = RoleHolder
		}
	}

	if replays {
		replayAll(&q, kids)
	}
	return q
}

// orderOne is order of a single child, the list of most of a root's lock
// parents (zkview orders a parent of one lock node again each time it
// builds it): nothing to sort, no predecessor, and the replays on a list
// of one (TestOrderOneAsMany).
func orderOne(name string, replays bool) Ordering {
	n, ok := ParseName(name)
	if !ok {
		return Ordering{Other: []string{name}}
	}
	q := Ordering{Entries: []Entry{{ParsedName: n, Role: RoleHolder}}}
	if replays {
		replayAll(&q, []listed{{name: name, entry: 0}})
	}
	return q
}

// replayAll sets each entry's Believes and Watches by its own recipe's
// replay on kids (every distinct child, sorted by name), and whether q is
// of the shape Change handles.
func replayAll(q *Ordering, kids []listed) {
	r := replay{q: q, kids: kids}
	r.curatorMutex()
	r.curatorLatch()
	r.curatorRW()
	r.goZK()
	r.kazoo()
	for i := range q.Entries {
		if e := &q.Entries[i]; e.Recipe == RecipePlain {
			e.Believes, e.Watches = e.Role, e.Predecessor
		}
	}
	q.changeable = changeShaped(*q)
}

// seqOrder returns the indices of nodes (which are in name order) in
// wrap-aware sequence order, ties in name order.
func seqOrder(nodes []ParsedName) []int {
	// One sort of (unsigned sequence, index) packed in a uint64; the queue
	// is a rotation of it.
	packed := make([]uint64, len(nodes))
	for i, n := range nodes {
		packed[i] = uint64(uint32(n.Seq))<<32 | uint64(i)
	}
	slices.Sort(packed)
	val := func(k int) uint32 { return uint32(packed[k] >> 32) }

	// Start just after the largest circular gap: first the wrap-around
	// gap from the highest value to the lowest, then each gap between
	// neighbours; a tie goes to the start with the lowest signed value.
	first := 0
	best := uint64(val(0)) + 1<<32 - uint64(val(len(packed)-1))
	for k := 1; k < len(packed); k++ {
		if val(k) == val(k-1) {
			continue
		}
		g := uint64(val(k) - val(k-1))
		if g > best || g == best && int32(val(k)) < int32(val(first)) {
			first, best = k, g
		}
	}
	order := make([]int, len(packed))
	for k := range packed {
		order[k] = int(uint32(packed[(first+k)%len(packed)]))
	}
	return order
}

// Recipes are the recipes present, in Recipe's order. It and the two
// below read the families that can see each other (family.go).
func (q Ordering) Recipes() []Recipe { return recipesOf(q) }

// SplitHolders names the nodes that believe they hold a mutex or write
// lock, in sequence order, when there is more than one; else nil.
func (q Ordering) SplitHolders() []string { return splitHolders(q) }

// MixedRecipes groups every lock node by family (curator-mutex,
// curator-rw, curator-latch, kazoo, plain, in that order) when more than
// one family is present; else nil.
func (q Ordering) MixedRecipes() []RecipeGroup { return mixedRecipes(q) }

// Holders are the entries that hold by sequence order.
func (q Ordering) Holders() []Entry {
	var h []Entry
	for _, e := range q.Entries {
		if e.Role == RoleHolder {
			h = append(h, e)
		}
	}
	return h
}

// Index is name's position in Entries, or -1.
func (q Ordering) Index(name string) int {
	return slices.IndexFunc(q.Entries, func(e Entry) bool { return e.Name == name })
}

// PredecessorWithout is what own's Predecessor would be once the nodes
// gone are deleted: "" when own would hold, or is not in q. It is the
// answer of Order on the children less gone, without sorting again: the
// predecessor of a node depends only on the nodes before it and on which
// of them are read nodes (a Kazoo "__lock__" node, write or mutex as read
// nodes come and go, excludes either way), and deleting nodes leaves the
// others' order as it was, unless the queue spans a good part of the
// sequence circle: then the largest gap, where the order starts, may move
// (only garbage names get there), and the children are ordered again.
func (q Ordering) PredecessorWithout(own string, gone ...string) string {
	i := q.Index(own)
	if i < 0 {
		return ""
	}
	if n := len(q.Entries); uint32(q.Entries[n-1].Seq)-uint32(q.Entries[0].Seq) >= 1<<30 {
		var rest []string
		for _, e := range q.Entries {
			if !slices.Contains(gone, e.Name) {
				rest = append(rest, e.Name)
			}
		}
		r := BySequence(rest)
		if k := r.Index(own); k >= 0 {
			return r.Entries[k].Predecessor
		}
		return ""
	}
	read := q.Entries[i].Kind == KindRead
	for j := i - 1; j >= 0; j-- {
		e := q.Entries[j]
		if slices.Contains(gone, e.Name) || read && e.Kind == KindRead {
			continue
		}
		return e.Name
	}
	return ""
}
