package queue

import (
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// Tracker is one lock parent. Guarded by Watcher.mu; changed only by
// its path's goroutine (apply, setState) and read by the builder.
//
// A root holds a Tracker for each of up to a million parents: what most
// of them never use sits behind rare, what a one-node parent can derive
// or shares with others is not its own (Kids, its hooks and depth
// samples: x), times are Unix nanoseconds and the flags sit together,
// so that a Tracker fits in 96 bytes (TestTrackerSize): its path on the
// server (Abs) is kept apart only where it differs (a chroot).
type Tracker struct {
	Path     string
	czxid    int64 // the listed parent's identity (0: not listed yet)
	listedAt int64 // when the current listing was asked for, Unix nanoseconds (0: never)
	// entries are Order's lock nodes, nil when it derives them (a parent
	// of one lock node and no other child: lone); its other children,
	// rare, are in x: a Tracker keeps 8 bytes of an Ordering's 56, and a
	// root's lone parents no Entry (setOrder).
	entries *[]ordering.Entry
	Nodes   Records // the lock nodes of order
	// x is the hooks, the depth samples, the last listing and Order's
	// other children: shared with the Watcher's other models that hold
	// the same (shared.go).
	x    *modelExtra
	rare *modelRare // nil until one of its fields is set

	Seen bool // listed, or seen absent: later nodes are new ones
	// HasBuilt: a Queue of the model was built and is in the Watcher's
	// list (the Watcher keeps it there only, not a copy here).
	HasBuilt bool
	// BuiltChanges: built is of the shape that changes can update
	// (BuildChanged); Changed names the entries applyChange touched
	// since, and relisted (a flag) says a listing (or a reset) was
	// merged since: the next build is a full one.
	BuiltChanges bool
	// Election: the config names this path an election (election.go).
	Election bool
	state    uint8 // a model.PathState (State)
	flags    modelFlags
	// shaped is Order's Shaped (ordering.Assemble): not a flag, as the
	// path's goroutine, its only writer, reads Order without the lock
	// while the builder sets flags.
	shaped bool
}

// modelFlags are a Tracker's own yes-or-no facts, one bit each.
type modelFlags uint8

const (
	// flagDirty: changed since Built (MarkDirty); flagQueued: handed to
	// Dirty and not taken back since (Taken), so that a build visits
	// only the models that changed, each once.
	flagDirty modelFlags = 1 << iota
	flagQueued
	flagRelisted // see BuiltChanges
	// flagDepthShared: a published Queue, or other models, hold the
	// depth samples' array (publishedDepth, Hooks.firstDepth).
	flagDepthShared
	// flagKidsDerived: the last listing is Order's names, in order (Kids).
	flagKidsDerived
	flagOwnExtra // x is the model's own, not shared (ownExtra)
)

// is says whether flag f is set.
func (q *Tracker) is(f modelFlags) bool { return q.flags&f != 0 }

// set sets flag f, or clears it.
func (q *Tracker) set(f modelFlags, on bool) {
	if on {
		q.flags |= f
	} else {
		q.flags &^= f
	}
}

// State is whether the parent could be read.
func (q *Tracker) State() model.PathState { return model.PathState(q.state) }

// EventAt is when the parent's watch last fired (zero: never).
func (q *Tracker) EventAt() time.Time {
	if q.rare == nil {
		return time.Time{}
	}
	return fromUnixNano(q.rare.eventAt)
}

// SetEventAt records that the parent's watch fired at t.
func (q *Tracker) SetEventAt(t time.Time) {
	if !t.IsZero() || q.rare != nil {
		q.more().eventAt = unixNano(t)
	}
}

// modelRare is the part of a Tracker most lock parents never set.
type modelRare struct {
	abs      string // the path on the server, when neither Path nor what Hooks.Abs says
	err      string
	handoffs []model.Handoff
	changed  []ordering.ParsedName
	removed  []string  // nodes applyChange removed since the last build
	lone     *LoneNode // the last listing's plain ephemeral lock node (ephemeral.go)
	eventAt  int64     // EventAt, Unix nanoseconds: a quiet parent has none
	pzxid    int64     // the last listing's pzxid, kept by a one-off read (SetPzxid)
}

// more is q's rare part, made when first needed.
func (q *Tracker) more() *modelRare {
	if q.rare == nil {
		q.rare = &modelRare{}
	}
	return q.rare
}

// Abs is the lock parent's path on the server (Path below a chroot).
func (q *Tracker) Abs() string {
	switch {
	case q.rare != nil && q.rare.abs != "":
		return q.rare.abs
	case q.x.hooks != nil && q.x.hooks.Abs != nil:
		return q.x.hooks.Abs(q.Path)
	}
	return q.Path
}

// errText is why the parent could not be read ("" when it was).
func (q *Tracker) errText() string {
	if q.rare == nil {
		return ""
	}
	return q.rare.err
}

func (q *Tracker) setErr(msg string) {
	if msg != "" || q.rare != nil {
		q.more().err = msg
	}
}

// handoffList is the queue's handoffs, most recent last (shared: clone
// to keep).
func (q *Tracker) handoffList() []model.Handoff {
	if q.rare == nil {
		return nil
	}
	return q.rare.handoffs
}

// Changed names the entries applyChange touched since the last build
// (ResetChanges).
func (q *Tracker) Changed() []ordering.ParsedName {
	if q.rare == nil {
		return nil
	}
	return q.rare.changed
}

// Removed names the nodes applyChange removed since the last build.
func (q *Tracker) Removed() []string {
	if q.rare == nil {
		return nil
	}
	return q.rare.removed
}

// ResetChanges forgets Changed and Removed: a build took them in.
func (q *Tracker) ResetChanges() {
	if q.rare != nil {
		q.rare.changed, q.rare.removed = q.rare.changed[:0], q.rare.removed[:0]
	}
}

// Pzxid is the parent's pzxid as the last listing read it, when kept
// (SetPzxid), else 0.
func (q *Tracker) Pzxid() int64 {
	if q.rare == nil {
		return 0
	}
	return q.rare.pzxid
}

// SetPzxid keeps the parent's pzxid as a listing read it: a one-off
// read's cycles are dated by it (sessions.ProveCycles). A Watcher that
// stays does not keep it: it dates cycles by watching them.
func (q *Tracker) SetPzxid(z int64) {
	if z != 0 || q.rare != nil {
		q.more().pzxid = z
	}
}

// Lone is the last listing's plain ephemeral lock node (ephemeral.go),
// nil when none.
func (q *Tracker) Lone() *LoneNode {
	if q.rare == nil {
		return nil
	}
	return q.rare.lone
}

// SetLone records the last listing's plain ephemeral lock node.
func (q *Tracker) SetLone(l *LoneNode) {
	if l != nil || q.rare != nil {
		q.more().lone = l
	}
}

// Hooks are what a Tracker tells its Watcher. The Watcher's models share
// one: a Tracker keeps a pointer, not two closures.
type Hooks struct {
	// Emit tells of a happening (called under the Watcher's lock).
	Emit func(model.Change)
	// Dirty is told when a model changes (the Watcher lists the models
	// to build with it), once until Taken; nil: not told.
	Dirty func(*Tracker)
	// Abs turns a path into the server's (a chroot applied), so that a
	// Tracker below a chroot need not keep both; nil: the same path.
	Abs func(string) string

	shared sharedExtras // what the models share (shared.go)
}

// New makes the model of the lock parent p (abs: its path on the
// server), telling h (kept, not copied), which is told at once that the
// model is to be built.
func New(p, abs string, h *Hooks) *Tracker {
	q := &Tracker{Path: p, x: h.none()}
	if abs != p && (h == nil || h.Abs == nil || h.Abs(p) != abs) {
		q.more().abs = abs
	}
	q.MarkDirty()
	return q
}

// emit tells the Watcher of a happening.
func (q *Tracker) emit(c model.Change) { q.x.hooks.Emit(c) }

// IsDirty says whether the model changed since its last build.
func (q *Tracker) IsDirty() bool { return q.is(flagDirty) }

// MarkDirty says the model changed since its last build, and tells the
// hooks' Dirty, once until Taken.
func (q *Tracker) MarkDirty() {
	q.set(flagDirty, true)
	if h := q.x.hooks; !q.is(flagQueued) && h != nil && h.Dirty != nil {
		q.set(flagQueued, true)
		h.Dirty(q)
	}
}

// ClearDirty says the model is built (or needs no Queue of its own).
func (q *Tracker) ClearDirty() { q.set(flagDirty, false) }

// Taken says the hooks' Dirty is to be told again at the next
// change: its last telling was acted on.
func (q *Tracker) Taken() { q.set(flagQueued, false) }

// Fetched is one Get's outcome for a new node.
type Fetched struct {
	Name string
	Rec  *Record // nil when the node was gone or the read failed
	Gone bool    // deleted since the listing
}

// Order is the parent's children as the ordering function sees them:
// kept, or, for a lone parent, ordered again from its one record's name
// (about a microsecond: what reads every model asks Alone, LockCount or
// Other first, which cost nothing).
func (q *Tracker) Order() ordering.Ordering {
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
func (q *Tracker) setOrder(order ordering.Ordering) {
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
func (q *Tracker) Alone() bool {
	return q.entries == nil && q.x.other == nil && q.Nodes.Len() == 1
}

// LockCount is the number of Order's lock nodes, without deriving it.
func (q *Tracker) LockCount() int {
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
func (q *Tracker) Other() []string { return q.x.other }

// Kids is the parent's children as last listed, in the listing's order;
// nil when a change (not a listing) was merged since, or none.
func (q *Tracker) Kids() []string {
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
func (q *Tracker) setKids(kids []string, order ordering.Ordering) {
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
func (q *Tracker) clearKids() {
	q.set(flagKidsDerived, false)
	if q.x.kids != nil {
		q.x.kids = nil // set only in the model's own
	}
}

// ownExtra is the model's extra, copied first when shared: the model
// changes only its own. The depth samples' array stays shared
// (flagDepthShared) until ownDepth.
func (q *Tracker) ownExtra() *modelExtra {
	if !q.is(flagOwnExtra) {
		x := *q.x
		q.x = &x
		q.set(flagOwnExtra, true)
	}
	return q.x
}

// sampleDepth keeps the largest depth of each second.
func (q *Tracker) sampleDepth(at time.Time, depth int) {
	sec := at.Truncate(time.Second)
	d := q.x.depth
	n := len(d)
	if n > 0 && d[n-1].At.Equal(sec) {
		if depth > d[n-1].Depth {
			d = q.ownDepth(0)
			d[n-1].Depth = depth
		}
		return
	}
	if n == 0 && q.x.hooks != nil {
		if s := q.x.hooks.firstDepth(sec, depth); s != nil {
			// Read-only: the next sample copies it (ownDepth).
			if q.is(flagOwnExtra) {
				q.x.depth = s.depth
			} else {
				q.x = s
			}
			q.set(flagDepthShared, true)
			return
		}
	}
	d = append(q.ownDepth(1), model.DepthSample{At: sec, Depth: depth})
	if over := len(d) - depthSamples; over > 0 {
		d = append([]model.DepthSample(nil), d[over:]...)
	}
	q.x.depth = d
}

// publishedDepth is the depth samples for a Queue being built: the
// model's own, shared with it until the next sample (ownDepth), as most
// of a root's parents never take another.
func (q *Tracker) publishedDepth() []model.DepthSample {
	d := q.x.depth
	if len(d) > 0 {
		q.set(flagDepthShared, true)
	}
	return d[:len(d):len(d)]
}

// ownDepth is the model's depth samples, made its own (copied, with room
// for more) when a published Queue or other models share them: a sample
// changes only the model's.
func (q *Tracker) ownDepth(more int) []model.DepthSample {
	x := q.ownExtra()
	if q.is(flagDepthShared) {
		x.depth = append(make([]model.DepthSample, 0, len(x.depth)+more), x.depth...)
		q.set(flagDepthShared, false)
	}
	return x.depth
}
