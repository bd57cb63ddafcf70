// Each recipe's own decision, replayed: what Believes and Watches say.
//
// Role is what a correct recipe decides from sequence order: a mutex or
// write node holds when it is the first lock node; a read node holds when
// no mutex or write node is before it, so several readers may hold.
// Predecessor is the lock node just before (mutex, write) or the nearest
// mutex or write node before (read). The lock core waits on Predecessor
// and nothing else.
//
// Believes and Watches replay what the node's own client library decides
// on this exact child list, as read from its source:
//
//   - curator mutex (Curator 5.4 InterProcessMutex): every child, lock or
//     not, sorted by the text after its last "lock-" (else the whole name)
//     with Java's String.compareTo; first holds, else it watches the child
//     sorted just before it, which may be a persistent child from Other.
//     zklock's own Curator-style nodes are replayed as Curator too.
//   - curator latch (Curator 5.4 LeaderLatch.checkLeadership): the same
//     sort (LockInternals.getSortedChildren, every child) by the text
//     after the last "latch-"; first is the leader, else it watches the
//     child sorted just before it (getData with a watch).
//   - curator read/write (InterProcessReadWriteLock): every child sorted by
//     the text after "__READ__", then after "__WRIT__"; a write node as a
//     mutex; a read node holds unless a name containing "__WRIT__" sorts
//     before it, else it watches the first such name.
//   - gozk (go-zookeeper v1.0.4 zk.Lock): every child's sequence is read
//     by strconv.Atoi of the text after its last "lock-" (else after the
//     last "__"); if any child fails, the real Lock returns an error: shown
//     as waiting with no watch. The lowest sequence holds; else it watches
//     the highest non-negative sequence below its own, and with none (after
//     the wrap) it fails the same way (GetW on "parent/": invalid path).
//   - kazoo (Kazoo 2.8 Lock, WriteLock, ReadLock): contenders are the
//     children matching (?:__lock__)(-?\d{10})$ (Lock, ReadLock) or
//     (?:__lock__|__rlock__)(-?\d{10})$ (WriteLock), Python's \d (any
//     Unicode decimal digit) and $ (also before one final "\n") included,
//     sorted by the matched text as a string. The predecessor is the
//     contender before the node; a node that is not its own contender (a
//     read node, or a node "-000000001".."-999999999" whose nine digits
//     fail \d{10}) never meets itself in the loop and so waits for the LAST
//     contender of the whole list, even one queued after it: Kazoo 2.8's
//     read-lock bug, which deadlocks W1 R1 W2 once W1 goes (PRODUCT.md).
//     A "__lock__" node is replayed as WriteLock when the queue holds a
//     kazoo read node, else as Lock (the names do not tell them apart).
//   - plain: sequence order; Believes is Role, Watches is Predecessor.
//
// Where a client's choice depends on the server's listing order (ties in
// its sort key, which only garbage names produce), Order takes name order
// instead, so that an Ordering depends only on the set of children: a listing
// never repeats a name, and a repeated name is counted once.

package ordering

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// replay computes Believes and Watches for each recipe on one child list.
type replay struct {
	q    *Ordering
	kids []listed // every distinct child, sorted by name
}

func (r replay) has(pred func(ParsedName) bool) bool {
	return slices.ContainsFunc(r.q.Entries, func(e Entry) bool { return pred(e.ParsedName) })
}

func (r replay) set(entry int, holds bool, watches string) {
	e := &r.q.Entries[entry]
	e.Believes, e.Watches = RoleWaiting, watches
	if holds {
		e.Believes, e.Watches = RoleHolder, ""
	}
}

// curatorKey is StandardLockInternalsDriver.fixForSorting.
func curatorKey(name, marker string) string {
	if i := strings.LastIndex(name, marker); i >= 0 {
		return name[i+len(marker):]
	}
	return name
}

// curatorSorted returns every child's index in kids, sorted as Curator's
// getSortedChildren does with key (Java's stable sort of the listing;
// here name order stands in for the listing's order).
func (r replay) curatorSorted(key func(string) string) []int {
	type keyed struct {
		key   string
		ascii bool
		kid   int
	}
	ks := make([]keyed, len(r.kids))
	for i, k := range r.kids {
		ks[i] = keyed{key: key(k.name), kid: i}
		ks[i].ascii = isASCII(ks[i].key)
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		var c int
		if a.ascii && b.ascii {
			c = strings.Compare(a.key, b.key) // the same order as UTF-16
		} else {
			c = javaCompare(a.key, b.key)
		}
		if c != 0 {
			return c
		}
		return a.kid - b.kid
	})
	order := make([]int, len(ks))
	for i, k := range ks {
		order[i] = k.kid
	}
	return order
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// curatorMutex replays InterProcessMutex (StandardLockInternalsDriver,
// maxLeases 1) for Curator mutex nodes.
func (r replay) curatorMutex() {
	r.curatorFirstHolds(func(n ParsedName) bool { return n.Recipe == RecipeCurator && n.Kind == KindMutex && !n.Latch }, curatorMutexMarker)
}

// curatorLatch replays LeaderLatch for its participants: InterProcessMutex's
// rule on the text after "latch-".
func (r replay) curatorLatch() {
	r.curatorFirstHolds(func(n ParsedName) bool { return n.Recipe == RecipeCurator && n.Latch }, LatchMarker)
}

// curatorFirstHolds replays Curator's one-holder rule for the nodes that
// mine accepts: every child sorted by the text after its last marker;
// the first holds, each other watches the child sorted before it.
func (r replay) curatorFirstHolds(mine func(ParsedName) bool, marker string) {
	if !r.has(mine) {
		return
	}
	sorted := r.curatorSorted(func(s string) string { return curatorKey(s, marker) })
	for pos, k := range sorted {
		if j := r.kids[k].entry; j >= 0 && mine(r.q.Entries[j].ParsedName) {
			if pos == 0 {
				r.set(j, true, "")
			} else {
				r.set(j, false, r.kids[sorted[pos-1]].name)
			}
		}
	}
}

// curatorRW replays InterProcessReadWriteLock's WriteLock (a mutex on the
// RW sort key) and ReadLock (its readers' predicate).
func (r replay) curatorRW() {
	isRW := func(n ParsedName) bool { return n.Recipe == RecipeCurator && n.Kind != KindMutex }
	if !r.has(isRW) {
		return
	}
	sorted := r.curatorSorted(func(s string) string {
		return curatorKey(curatorKey(s, curatorReadMarker), curatorWriteMarker)
	})
	rank := make([]int, len(r.kids))
	firstWrite := len(sorted)
	for pos, k := range sorted {
		rank[k] = pos
		if strings.Contains(r.kids[k].name, curatorWriteMarker) {
			firstWrite = min(firstWrite, pos)
		}
	}
	for pos, k := range sorted {
		j := r.kids[k].entry
		if j < 0 || !isRW(r.q.Entries[j].ParsedName) {
			continue
		}
		if r.q.Entries[j].Kind == KindWrite {
			if pos == 0 {
				r.set(j, true, "")
			} else {
				r.set(j, false, r.kids[sorted[pos-1]].name)
			}
			continue
		}
		// The reader walks the sorted list to the first name that starts
		// with its own and does not contain __WRIT__; names starting with
		// its own are contiguous in kids (sorted by name) from itself on.
		our := -1
		for x := k; x < len(r.kids) && strings.HasPrefix(r.kids[x].name, r.kids[k].name); x++ {
			if !strings.Contains(r.kids[x].name, curatorWriteMarker) && (our < 0 || rank[x] < our) {
				our = rank[x]
			}
		}
		switch {
		case our < 0: // validateOurIndex throws: the client deletes and retries
			r.set(j, false, "")
		case our < firstWrite:
			r.set(j, true, "")
		default:
			r.set(j, false, r.kids[sorted[firstWrite]].name)
		}
	}
}

// goZKSeq is go-zookeeper v1.0.4's parseSeq.
func goZKSeq(name string) (int, error) {
	if i := strings.LastIndex(name, curatorMutexMarker); i >= 0 {
		return strconv.Atoi(name[i+len(curatorMutexMarker):])
	}
	// strings.Split, not LastIndex: "__" can overlap itself ("a___7"
	// splits into "a" and "_7") and the client uses Split.
	parts := strings.Split(name, "__")
	return strconv.Atoi(parts[len(parts)-1])
}

// goZK replays go-zookeeper's zk.Lock.
func (r replay) goZK() {
	isGoZK := func(n ParsedName) bool { return n.Recipe == RecipeGoZK }
	if !r.has(isGoZK) {
		return
	}
	type parsed struct {
		seq  int
		name string
	}
	all := make([]parsed, len(r.kids))
	for i, k := range r.kids {
		s, err := goZKSeq(k.name)
		if err != nil {
			// The real Lock returns this error: it neither holds nor waits.
			for j := range r.q.Entries {
				if isGoZK(r.q.Entries[j].ParsedName) {
					r.set(j, false, "")
				}
			}
			return
		}
		all[i] = parsed{s, k.name}
	}
	// Ties: the client takes the first in listing order; name order here.
	slices.SortFunc(all, func(a, b parsed) int {
		if c := cmp.Compare(a.seq, b.seq); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	for j := range r.q.Entries {
		e := r.q.Entries[j]
		if !isGoZK(e.ParsedName) {
			continue
		}
		own, _ := goZKSeq(e.Name)
		if own <= all[0].seq {
			r.set(j, true, "")
			continue
		}
		// The highest sequence below its own, but only above -1: the
		// client starts its search at prevSeq = -1.
		i, _ := slices.BinarySearchFunc(all, own, func(p parsed, t int) int { return cmp.Compare(p.seq, t) })
		if i == 0 || all[i-1].seq < 0 {
			r.set(j, false, "") // GetW("parent/") fails: ErrInvalidPath
			continue
		}
		i--
		for i > 0 && all[i-1].seq == all[i].seq {
			i--
		}
		r.set(j, false, all[i].name)
	}
}

// kazooMatch is Kazoo's contender regex searched in name:
// (?:__lock__|__rlock__)(-?\d{10})$ with rlock, (?:__lock__)(-?\d{10})$
// without, Python semantics (\d: Unicode decimal digits; $: end, or
// before a final "\n"). It returns the captured sequence text.
func kazooMatch(name string, rlock bool) (string, bool) {
	end := len(name)
	if strings.HasSuffix(name, "\n") {
		end--
	}
	start := end
	for range 10 {
		r, size := utf8.DecodeLastRuneInString(name[:start])
		if size == 0 || !unicode.IsDigit(r) || r == utf8.RuneError {
			return "", false
		}
		start -= size
	}
	if strings.HasSuffix(name[:start], "-") {
		start--
	}
	head := name[:start]
	if strings.HasSuffix(head, kazooMutexMarker) || rlock && strings.HasSuffix(head, kazooReadMarker) {
		return name[start:end], true
	}
	return "", false
}

// kazoo replays Kazoo 2.8's Lock._get_predecessor.
func (r replay) kazoo() {
	isKazoo := func(n ParsedName) bool { return n.Recipe == RecipeKazoo }
	if !r.has(isKazoo) {
		return
	}
	type contender struct {
		seq  string
		name string
	}
	contenders := func(rlock bool) ([]contender, map[string]int) {
		var cs []contender
		for _, k := range r.kids {
			if s, ok := kazooMatch(k.name, rlock); ok {
				cs = append(cs, contender{s, k.name})
			}
		}
		// Python's sorted() is stable on the listing; name order here.
		slices.SortFunc(cs, func(a, b contender) int {
			if c := strings.Compare(a.seq, b.seq); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		})
		pos := make(map[string]int, len(cs))
		for i, c := range cs {
			pos[c.name] = i
		}
		return cs, pos
	}
	lockOnly, lockOnlyPos := contenders(false) // Lock, ReadLock
	var withR []contender                      // WriteLock
	var withRPos map[string]int
	if r.has(func(n ParsedName) bool { return n.Recipe == RecipeKazoo && n.Kind == KindWrite }) {
		withR, withRPos = contenders(true)
	}
	for j := range r.q.Entries {
		e := r.q.Entries[j]
		if !isKazoo(e.ParsedName) {
			continue
		}
		cs, pos := lockOnly, lockOnlyPos
		if e.Kind == KindWrite {
			cs, pos = withR, withRPos
		}
		i, self := pos[e.Name]
		if !self {
			// found_self is None: the loop never breaks, the predecessor
			// is the last contender of all.
			i = len(cs)
		}
		if i == 0 {
			r.set(j, true, "")
		} else {
			r.set(j, false, cs[i-1].name)
		}
	}
}

// javaCompare is Java's String.compareTo on the UTF-16 code units of a
// and b (Go compares UTF-8 bytes, which orders U+E000..U+FFFF after
// supplementary characters; Java orders them before).
func javaCompare(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b) // a prefix of the other, or equal
	}
	if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		return int(a[i]) - int(b[i])
	}
	// Rare (non-ASCII names): compare the whole strings as UTF-16.
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}
