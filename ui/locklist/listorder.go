package locklist

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
)

// The lock list's orders and filter, sized for a root of 100,000 lock
// parents: the rows are kept in path order, each sort is a sort of
// integer keys computed once per snapshot (the path order breaks ties by
// row index, never by comparing strings), and a filter that only narrows
// looks at the rows it showed last, not at every row.

// SortMode orders the lock list.
type SortMode int

const (
	// SortContention puts broken queues first, then the longest queues,
	// then the longest waits: where an on-call engineer looks first.
	SortContention SortMode = iota
	// SortStuck puts broken queues first, then the parents with waiters
	// by their oldest wait, then the longest holds: on a root of many
	// lock parents, the stuck ones are the first screen.
	SortStuck
	SortHold // longest held first
	SortName
	SortModes
)

func (s SortMode) String() string {
	switch s {
	case SortStuck:
		return "stuck first"
	case SortName:
		return "name"
	case SortHold:
		return "hold time"
	}
	return "contention"
}

// sortKey is a row's place in one sort mode, compared field by field;
// rows with equal keys stay in path order.
type sortKey struct{ a, b, c, d int64 }

func (k sortKey) compare(o sortKey) int {
	if c := cmp.Compare(k.a, o.a); c != 0 {
		return c
	}
	if c := cmp.Compare(k.b, o.b); c != 0 {
		return c
	}
	if c := cmp.Compare(k.c, o.c); c != 0 {
		return c
	}
	return cmp.Compare(k.d, o.d)
}

// timeKey orders times earliest first and unknown (zero) ones last, as
// earlier does.
func timeKey(t time.Time) int64 {
	if t.IsZero() {
		return math.MaxInt64
	}
	return t.UnixNano()
}

func boolKey(first bool) int64 {
	if first {
		return 0
	}
	return 1
}

// keyOf is row r's key in sort mode s (sortName: none, the path order is
// the order).
func keyOf(s SortMode, r *Row) sortKey {
	switch s {
	case SortContention:
		return sortKey{a: boolKey(r.dangerous()), b: -int64(r.Depth), c: timeKey(r.WaitSince)}
	case SortStuck:
		return sortKey{a: boolKey(r.dangerous()), b: boolKey(r.Waiters > 0), c: timeKey(r.WaitSince), d: timeKey(r.HoldSince)}
	case SortHold:
		return sortKey{a: timeKey(r.HoldSince)}
	}
	return sortKey{}
}

// order is every row's index in sort mode s, sorted once per rebuild (or
// flag of the rows) and kept: a key that changes the sort or the filter
// then costs one pass over the rows, not a sort.
func (l *List) order(s SortMode) []int {
	if o := l.orders[s]; o != nil {
		return o
	}
	// A fresh slice: an earlier Console value may share the old one.
	order := make([]int, len(l.Rows))
	if s == SortName {
		for i := range order {
			order[i] = i
		}
		l.orders[s] = order
		return order
	}
	type keyed struct {
		k sortKey
		i int
	}
	// An empty row's key is the greatest of every mode (no danger, no
	// node, no times): the rows that have it, most of a wide root, go
	// last in path order without being sorted.
	last := keyOf(s, &Row{})
	ks := make([]keyed, 0, len(l.Rows)/8)
	tail := order[:0:0]
	for i := range l.Rows {
		if k := keyOf(s, &l.Rows[i]); k != last {
			ks = append(ks, keyed{k, i})
		} else {
			tail = append(tail, i)
		}
	}
	// Unique indices make the order total: the one a stable sort by path
	// would give.
	slices.SortFunc(ks, func(x, y keyed) int {
		if c := x.k.compare(y.k); c != 0 {
			return c
		}
		return cmp.Compare(x.i, y.i)
	})
	for i, k := range ks {
		order[i] = k.i
	}
	copy(order[len(ks):], tail)
	l.orders[s] = order
	return order
}

// reorder forgets the orders and the filtered rows after the rows or
// their flags changed.
func (l *List) reorder() {
	l.orders = [SortModes][]int{}
	l.Gen++
}

// Refresh re-applies filter and sort and puts the cursor back on the
// selected path (or as near as the list allows). A filter that only
// narrows the last one (a letter typed, waiting-only turned on) over the
// same order filters the rows shown, not every row.
func (l *List) Refresh() {
	l.keepOrder()
	needle := strings.ToLower(strings.TrimSpace(l.Filter.Value()))
	src := l.Visible
	narrows := l.shownGen == l.Gen && l.shownSort == l.Sort && strings.Contains(needle, l.shownNeedle) && (l.WaitingOnly || !l.shownWaiting)
	if !narrows {
		src = l.order(l.Sort)
		if l.heldRank != nil {
			src = l.heldOrder(src)
			l.rankAs(src)
		}
	}
	visible := make([]int, 0, len(src))
	for _, i := range src {
		if l.Rows[i].matches(needle, l.WaitingOnly) {
			visible = append(visible, i)
		}
	}
	l.Visible = visible
	l.shownGen, l.shownSort, l.shownNeedle, l.shownWaiting = l.Gen, l.Sort, needle, l.WaitingOnly
	l.Cursor = 0
	for i, ri := range l.Visible {
		if l.Rows[ri].Path == l.Selected {
			l.Cursor = i
			break
		}
	}
	l.syncSelected()
}

// HoldOrder is how long the list keeps its order after the operator last
// moved through it, and the least time between two re-sorts: long enough
// to read a row and press j again, short enough that a queue that grew
// moves up soon after they stop.
const HoldOrder = 5 * time.Second

// The list draws a held order: the sort's as it was when last taken,
// each row new since placed where the sort puts it among them (heldOrder)
// and held there. Data never moves a drawn row past another; the order
// is taken again when the operator asks (s), and on a tick once they have
// left the list alone for holdOrder and the last re-sort is as old
// (settle). So a key acts on the rows drawn, and on a busy ensemble the
// rows move at most once every holdOrder, never under a moving cursor.

// hold keeps the order shown while the operator moves through the list
// (at now).
func (l *List) hold(now time.Time) {
	l.keepOrder()
	l.movedAt = now
}

// keepOrder holds the sort's order now, unless one is held already.
func (l *List) keepOrder() {
	if l.heldRank != nil || len(l.Rows) == 0 {
		return
	}
	order := l.order(l.Sort)
	rank := make([]int32, len(l.Rows))
	for pos, ri := range order {
		rank[ri] = int32(pos)
	}
	l.heldRank, l.heldN = rank, len(order)
	l.Gen++
}

// Resort drops the held order: the next refresh takes the sort's.
func (l *List) Resort(now time.Time) {
	l.heldRank, l.heldN, l.sortedAt = nil, 0, now
	l.Gen++
}

// Settle takes the sort's order again at now once the operator has left
// the list alone for holdOrder and the last re-sort is as old; it says
// whether the rows drawn changed.
func (l *List) Settle(now time.Time) bool {
	if l.heldRank == nil || now.Sub(l.movedAt) < HoldOrder || now.Sub(l.sortedAt) < HoldOrder {
		return false
	}
	before := l.Visible
	l.Resort(now)
	l.Refresh()
	return !slices.Equal(before, l.Visible)
}

// moving says whether the operator moved through the list within the
// last holdOrder (the footer says the order is held for them).
func (l *List) moving(now time.Time) bool {
	return !l.movedAt.IsZero() && now.Sub(l.movedAt) < HoldOrder
}

// heldOrder puts order (the sort's) in the held order: rows held keep
// their places relative to each other; a row new since the hold goes
// right after the held row the sort puts before it (first when none
// does), so a lock parent that appears is drawn near where the sort
// wants it without moving any held row past another.
func (l *List) heldOrder(order []int) []int {
	slots := make([]int, l.heldN)
	for i := range slots {
		slots[i] = -1
	}
	// Each new row's anchor: 1 + the held rank the sort puts just before
	// it, 0 before every held row. Bucketed by anchor (a counting sort:
	// a wide root's discovery brings thousands of new rows a frame).
	anchors := make([]int32, 0, 16)
	var fresh []int
	anchor := int32(0)
	for _, i := range order {
		if r := l.heldRank[i]; r >= 0 {
			slots[r] = i
			anchor = r + 1
			continue
		}
		fresh = append(fresh, i)
		anchors = append(anchors, anchor)
	}
	start := make([]int, l.heldN+2)
	for _, a := range anchors {
		start[a+1]++
	}
	for a := 1; a < len(start); a++ {
		start[a] += start[a-1]
	}
	byAnchor := make([]int, len(fresh))
	next := slices.Clone(start)
	for k, i := range fresh {
		byAnchor[next[anchors[k]]] = i
		next[anchors[k]]++
	}
	out := make([]int, 0, len(order))
	out = append(out, byAnchor[start[0]:start[1]]...)
	for r, i := range slots {
		if i >= 0 {
			out = append(out, i)
		}
		out = append(out, byAnchor[start[r+1]:start[r+2]]...)
	}
	return out
}

// rankAs holds order (every row, as drawn unfiltered) from now on: rows
// new since the hold keep the place they were first drawn at.
func (l *List) rankAs(order []int) {
	same := l.heldN == len(order)
	for _, ri := range order {
		same = same && l.heldRank[ri] >= 0
	}
	if same {
		return // no row new since the hold, none gone
	}
	rank := make([]int32, len(l.Rows))
	for pos, ri := range order {
		rank[ri] = int32(pos)
	}
	l.heldRank, l.heldN = rank, len(order)
}

// carryRanks is the held ranks of prev's rows (heldRank) given to the
// same paths in rows, -1 for a path new since; both are in path order.
func carryRanks(prev, rows []Row, heldRank []int32) []int32 {
	out := make([]int32, len(rows))
	j := 0
	for i := range rows {
		for j < len(prev) && prev[j].Path < rows[i].Path {
			j++
		}
		out[i] = -1
		if j < len(prev) && prev[j].Path == rows[i].Path {
			out[i] = heldRank[j]
		}
	}
	return out
}
