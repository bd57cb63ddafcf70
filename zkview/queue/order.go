package queue

import "github.com/zklock/zklock/lockops/ordering"

// Order is the parent's children as the ordering function sees them:
// kept, or, for a lone parent, ordered again from its one record's name
// (about a microsecond: what reads every model asks Alone, LockCount or
// Other first, which cost nothing).
func (q *Model) Order() ordering.Ordering {
	switch {
	case q.entries != nil:
		return ordering.Assemble(*q.entries, q.x.other, q.shaped)
	case q.Alone():
		return ordering.Order([]string{q.Nodes.only()})
	}
	return ordering.Assemble(nil, q.x.other, false)
}

// setOrder makes order the model's: its other children kept in x, where
// a parent of lock nodes only keeps none; its entries kept unless it is
// one lock node and nothing else, which Order derives from the records
// (the record of each entry is the model's by then: Apply, ApplyChange).
func (q *Model) setOrder(order ordering.Ordering) {
	q.shaped = order.Shaped()
	switch {
	case len(order.Entries) == 0 || len(order.Entries) == 1 && len(order.Other) == 0:
		q.entries = nil
	case q.entries != nil:
		*q.entries = order.Entries // only the path's goroutine reads it unlocked
	default:
		e := order.Entries // not &order: the argument would escape
		q.entries = &e
	}
	if order.Other != nil || q.x.other != nil {
		q.ownExtra().other = order.Other
	}
}

// Alone says whether the parent's one child is a lock node: Order keeps
// no entries and derives its one, which holds or fails alone, watching
// nothing (there is no other child to watch).
func (q *Model) Alone() bool {
	return q.entries == nil && q.x.other == nil && q.Nodes.Len() == 1
}

// LockCount is the number of Order's lock nodes, without deriving it.
func (q *Model) LockCount() int {
	switch {
	case q.entries != nil:
		return len(*q.entries)
	case q.Alone():
		return 1
	}
	return 0
}

// Other is Order's other children (not lock nodes), sorted by name,
// without deriving Order: shared, read-only.
func (q *Model) Other() []string { return q.x.other }

// Kids is the parent's children as last listed, in the listing's order;
// nil when a change (not a listing) was merged since, or none.
func (q *Model) Kids() []string {
	if !q.is(flagKidsDerived) {
		return q.x.kids
	}
	switch {
	case q.entries != nil:
		kids := make([]string, len(*q.entries))
		for i := range *q.entries {
			kids[i] = (*q.entries)[i].Name
		}
		return kids
	case q.Alone():
		return []string{q.Nodes.only()}
	}
	return nil
}

// setKids records kids as the last listing, whose ordering is order:
// kept only when they are not order's names in order.
func (q *Model) setKids(kids []string, order ordering.Ordering) {
	derived := len(order.Other) == 0 && len(kids) == len(order.Entries)
	for i := 0; derived && i < len(kids); i++ {
		derived = kids[i] == order.Entries[i].Name
	}
	q.set(flagKidsDerived, derived)
	switch {
	case !derived:
		q.ownExtra().kids = kids
	case q.x.kids != nil:
		q.x.kids = nil // set only in the model's own
	}
}

// clearKids forgets the last listing: Kids is nil.
func (q *Model) clearKids() {
	q.set(flagKidsDerived, false)
	if q.x.kids != nil {
		q.x.kids = nil // set only in the model's own
	}
}
