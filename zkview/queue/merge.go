// Merging what was read into a Tracker: a listing (Apply: roles, hold and
// wait times, handoffs, depth) or a watch's creates and deletes as
// changes (ApplyChange, with delta.go's Prior), the path's state when it
// could not be listed, and the events each tells.

package queue

import (
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// CheckIdentity forgets every node of a parent that was deleted and
// created again since the last listing: the new parent's nodes may carry
// the old names (its counter restarts at 0) but not their owners or data.
func (q *Tracker) CheckIdentity(czxid int64, now time.Time) {
	if czxid == 0 {
		return
	}
	prev := q.czxid
	q.czxid = czxid
	if prev == 0 || prev == czxid {
		return
	}
	q.setOrder(ordering.Ordering{})
	q.Nodes = Records{}
	q.clearKids()
	q.MarkDirty()
	q.set(flagRelisted, true)
	q.emit(model.Change{At: now, Kind: model.ChangePathRecreated, Path: q.Path})
}

// NeedFetch names the lock nodes of kids whose stat and data are unknown.
func (q *Tracker) NeedFetch(kids []string) []string {
	var need []string
	for _, k := range kids {
		if r, ok := q.Nodes.Get(k); ok && r.Fetched {
			continue
		}
		if _, ok := ordering.ParseName(k); ok {
			need = append(need, k)
		}
	}
	return need
}

// SetState records that the parent could not be listed. Absent and NoAuth
// empty the queue: nothing in it can be known.
func (q *Tracker) SetState(st model.PathState, msg string, now time.Time) {
	if q.State() == st && q.errText() == msg {
		return
	}
	prev := q.State()
	q.state = uint8(st)
	q.setErr(msg)
	q.MarkDirty()
	q.set(flagRelisted, true)
	if st == model.PathAbsent || st == model.PathNoAuth {
		if st == model.PathAbsent {
			q.Seen = true
		}
		q.setOrder(ordering.Ordering{})
		q.Nodes = Records{}
		q.clearKids()
		q.czxid = 0 // the parent that comes back is a new one: no second notice
		q.sampleDepth(now, 0)
	}
	c := model.Change{At: now, Path: q.Path, State: st}
	switch st {
	case model.PathAbsent:
		c.Kind = model.ChangePathAbsent
		if prev == model.PathPresent {
			c.Kind = model.ChangePathVanished
		}
	case model.PathNoAuth, model.PathError:
		c.Kind, c.Err = model.ChangePathUnreadable, msg
	default:
		return
	}
	q.emit(c)
}

// Apply merges one listing: kids as listed (issued when asked for, done
// when read and the new nodes fetched; evAt when the event that asked for
// it came) and the new nodes' reads.
func (q *Tracker) Apply(kids []string, got []Fetched, issued, done, evAt time.Time) {
	gotBy, cur := withoutGone(kids, got)
	initial := !q.Seen
	if q.State() != model.PathPresent && !initial {
		q.emit(model.Change{At: done, Kind: model.ChangePathAppeared, Path: q.Path, State: model.PathPresent})
	}

	prev := q.Order()
	order := ordering.Order(cur)
	m := listingMerge{path: q.Path, initial: initial, done: done, evAt: evAt}
	m.departed, m.prevByName = departures(prev, order)
	nodes := recordsFor(len(order.Entries))
	for _, e := range order.Entries {
		r, existed := q.Nodes.Get(e.Name)
		r = withFetched(r, existed, gotBy[e.Name])
		nodes.Set(e.Name, r)
		m.date(e, r, existed)
		r.role = e.Role
		believes, watches := r.believe(e, initial && !existed)
		r.believes = believes
		if !existed || r.watches != watches {
			r.watches, r.watchesSince = watches, unixNano(done)
		}
	}
	for i := range m.created {
		r := nodes.Of(m.created[i].Name)
		m.created[i].Believes, m.created[i].Watches = r.believes, r.watches
	}

	q.tellListing(&m, prev, order)
	q.keepHandoffs(m.handoffs)
	q.setOrder(order)
	q.Nodes = nodes
	q.setKids(cur, order)
	q.set(flagRelisted, true)
	q.listedAt, q.Seen = unixNano(issued), true
	q.state = uint8(model.PathPresent)
	q.setErr("")
	q.sampleDepth(done, len(order.Entries))
	q.MarkDirty()
}

// withoutGone indexes the new nodes' reads by name and returns kids
// without the nodes found deleted since the listing.
func withoutGone(kids []string, got []Fetched) (map[string]Fetched, []string) {
	gotBy := make(map[string]Fetched, len(got))
	for _, f := range got {
		gotBy[f.Name] = f
	}
	cur := kids
	if len(got) > 0 {
		cur = make([]string, 0, len(kids))
		for _, k := range kids {
			if !gotBy[k].Gone {
				cur = append(cur, k)
			}
		}
	}
	return gotBy, cur
}

// departures are the entries of prev that order no longer holds, and
// prev's entries by name.
func departures(prev, order ordering.Ordering) ([]ordering.Entry, map[string]ordering.Entry) {
	inNew := make(map[string]bool, len(order.Entries))
	for _, e := range order.Entries {
		inNew[e.Name] = true
	}
	var departed []ordering.Entry
	for _, e := range prev.Entries {
		if !inNew[e.Name] {
			departed = append(departed, e)
		}
	}
	prevByName := make(map[string]ordering.Entry, len(prev.Entries))
	for _, e := range prev.Entries {
		prevByName[e.Name] = e
	}
	return departed, prevByName
}

// withFetched is the record of a node of the listing: the model's (r,
// when it existed), completed by its read f when it was unknown until
// now, or the read itself for a new node.
func withFetched(r *Record, existed bool, f Fetched) *Record {
	switch {
	case existed && !r.Fetched && f.Rec != nil:
		r.Fetched, r.Session, r.Data, r.dataSet, r.DataLen = true, f.Rec.Session, f.Rec.Data, f.Rec.dataSet, f.Rec.DataLen
		r.CtimeMs, r.MtimeMs, r.Version, r.Czxid = f.Rec.CtimeMs, f.Rec.MtimeMs, f.Rec.Version, f.Rec.Czxid
		if r.role == ordering.RoleWaiting {
			r.setSince(r.Ctime(), true)
		}
	case !existed:
		if f.Rec != nil {
			r = f.Rec
		} else {
			r = &Record{}
		}
	}
	return r
}

// listingMerge is what one listing's merge (apply) learns while it dates
// each node: the nodes that joined and left, and the handoffs between.
type listingMerge struct {
	path       string
	initial    bool      // the queue's first listing: no history
	done, evAt time.Time // see apply
	departed   []ordering.Entry
	prevByName map[string]ordering.Entry
	created    []ordering.Entry
	handoffs   []model.Handoff
}

// date sets since for r, the record of e, from what changed since the
// previous listing (existed: r was in it): a node new in a queue seen
// for the first time, a node created since, or one whose role changed.
func (m *listingMerge) date(e ordering.Entry, r *Record, existed bool) {
	done, evAt := m.done, m.evAt
	switch {
	case !existed && m.initial:
		// Seen for the first time in a queue seen for the first time:
		// a holder has held at least since now.
		r.setSince(done, false)
		if e.Role == ordering.RoleWaiting && r.Fetched {
			r.setSince(r.Ctime(), true)
		}
	case !existed:
		m.created = append(m.created, e)
		r.setSince(done, r.Fetched)
		if r.Fetched && r.Ctime().Before(done) {
			r.setSince(r.Ctime(), r.exact)
		}
		if e.Role == ordering.RoleHolder {
			if from := releasedBefore(e, m.prevByName[e.Name].Predecessor, m.departed); from != "" {
				// Its predecessor went between two listings: the hold
				// began when the release was told.
				r.setSince(evAt, true)
				m.handoffs = append(m.handoffs, model.Handoff{Path: m.path, From: from, To: e.Name, At: done, Gap: done.Sub(evAt)})
			}
		}
	case r.role != e.Role:
		if e.Role == ordering.RoleHolder {
			r.setSince(evAt, true)
			m.handoffs = append(m.handoffs, model.Handoff{Path: m.path, From: releasedBefore(e, m.prevByName[e.Name].Predecessor, m.departed), To: e.Name, At: done, Gap: done.Sub(evAt)})
		} else {
			r.setSince(done, false)
		}
	}
}

// tellListing tells on the event log what a merged listing changed from
// prev to order: the changes, or, for the queue's first listing, what it
// holds.
func (q *Tracker) tellListing(m *listingMerge, prev, order ordering.Ordering) {
	if !m.initial {
		q.emitChanges(m.done, m.created, m.departed, func(d ordering.Entry) []string { return wakersIn(prev, prev.Index(d.Name)) }, m.handoffs)
		return
	}
	c := model.Change{At: m.done, Kind: model.ChangeListed, Path: q.Path, Count: len(order.Entries)}
	if h := order.Holders(); len(h) > 0 {
		c.Node.Name, c.Holders = h[0].Name, len(h)
	}
	q.emit(c)
}

// keepHandoffs adds a listing's handoffs to the queue's, the newest
// maxHandoffs kept.
func (q *Tracker) keepHandoffs(handoffs []model.Handoff) {
	if len(handoffs) == 0 {
		return
	}
	r := q.more()
	r.handoffs = append(r.handoffs, handoffs...)
	if over := len(r.handoffs) - maxHandoffs; over > 0 {
		r.handoffs = append([]model.Handoff(nil), r.handoffs[over:]...)
	}
}

// believe is what e's own client believes, given what the Watcher saw of
// it: the replay on this list (Entry.Believes, Entry.Watches), except
// that a node once seen believing it holds keeps holding. first: the node
// is in the queue's first listing, with no history.
func (r *Record) believe(e ordering.Entry, first bool) (ordering.Role, string) {
	if e.Believes == ordering.RoleHolder {
		r.believedHolder, r.holdUnknown = true, false
	} else if first && e.Role == ordering.RoleHolder {
		r.holdUnknown = true
	}
	if r.believedHolder {
		return ordering.RoleHolder, ""
	}
	return e.Believes, e.Watches
}

// releasedBefore names the node whose release let e hold: its predecessor
// in the previous listing when that one is gone, else the last holder
// that left; "" when none left (e holds without a release).
func releasedBefore(e ordering.Entry, wasPred string, departed []ordering.Entry) string {
	if wasPred != "" {
		for _, d := range departed {
			if d.Name == wasPred {
				return d.Name
			}
		}
	}
	from := ""
	for _, d := range departed {
		if d.Role == ordering.RoleHolder || d.Name == e.Predecessor {
			from = d.Name
		}
	}
	if from == "" {
		// A new node holding at first sight after its predecessor left:
		// the last departed node before it in sequence order.
		for _, d := range departed {
			if ordering.SeqLess(d.Seq, e.Seq) {
				from = d.Name
			}
		}
	}
	return from
}

// emitChanges tells what one listing changed, node by node while that
// stays readable, as a summary beyond maxEventsPerListing.
func (q *Tracker) emitChanges(at time.Time, created, departed []ordering.Entry, wakers func(ordering.Entry) []string, handoffs []model.Handoff) {
	if len(created)+len(departed) > MaxEventsPerListing {
		q.emit(model.Change{At: at, Kind: model.ChangeBurst, Path: q.Path, Created: len(created), Deleted: len(departed)})
	} else {
		for _, d := range departed {
			q.emit(q.departure(d, wakers(d), at))
		}
	}
	for _, h := range handoffs {
		q.emit(model.Change{At: at, Kind: model.ChangeAcquired, Path: q.Path, Node: model.Node{Name: h.To, Role: ordering.RoleHolder},
			From: h.From, Gap: h.Gap})
	}
	if len(created)+len(departed) > MaxEventsPerListing {
		return
	}
	for _, e := range created {
		q.emit(model.Change{At: at, Kind: model.ChangeJoined, Path: q.Path, Node: entryNode(e)})
	}
}

// departure is the change of a node d that a listing no longer has:
// released (a holder) or gave up (a waiter), with how long it held or
// waited when the Watcher knew it, and the nodes it wakes.
func (q *Tracker) departure(d ordering.Entry, wakers []string, at time.Time) model.Change {
	c := model.Change{At: at, Kind: model.ChangeGaveUp, Path: q.Path, Node: entryNode(d), Wakes: wakers}
	if r, ok := q.Nodes.Get(d.Name); ok {
		// A role timed at zero is told as 1ns: zero means not timed
		// (both read "0µs").
		lasted := max(at.Sub(r.Since()), time.Nanosecond)
		if d.Role == ordering.RoleHolder {
			c.Held = lasted
			if !r.exact {
				c.HeldBound = model.BoundLatest
			}
		} else {
			c.Waited = lasted
		}
	}
	if d.Role == ordering.RoleHolder {
		c.Kind = model.ChangeReleased
	}
	if d.Role != ordering.RoleHolder && d.Believes == ordering.RoleHolder {
		// A split holder: by its own recipe it held, and let go. It
		// cannot have believed so before its creation: held at most since.
		c.Kind = model.ChangeReleased
		if r, ok := q.Nodes.Get(d.Name); ok && r.CtimeMs > 0 {
			c.Held, c.HeldBound = max(at.Sub(r.Ctime()), time.Nanosecond), model.BoundEarliest
		}
	}
	return c
}

// entryNode is what a listing tells of a node: its name, recipe, role
// and the node its recipe watches.
func entryNode(e ordering.Entry) model.Node {
	return model.Node{Name: e.Name, Seq: e.Seq, Kind: e.Kind, Recipe: e.Recipe, Role: e.Role, Believes: e.Believes}.WithWatches(e.Watches)
}

// wakersIn are the nodes of prev that wait on its i-th entry (none when
// i is -1, a node prev did not have).
func wakersIn(prev ordering.Ordering, i int) []string {
	if i < 0 {
		return nil
	}
	name := prev.Entries[i].Name
	var watchers []string
	if prev.Changeable() {
		// One recipe's mutex queue: only the next node waits on it.
		if i+1 < len(prev.Entries) && prev.Entries[i+1].Watches == name {
			watchers = append(watchers, prev.Entries[i+1].Name)
		}
	} else {
		for _, e := range prev.Entries {
			if e.Watches == name {
				watchers = append(watchers, e.Name)
			}
		}
	}
	return watchers
}

// ApplyChange installs order, made from the model's order by added nodes
// (their reads in got) and removed ones; touched are the entries of
// order that are new or changed role or predecessor (ordering.Ordering.Change).
// It tells what changed as apply does for a listing, in time that grows
// with the change, not with the queue.
func (q *Tracker) ApplyChange(order ordering.Ordering, touched []int, before Prior, got []Fetched, issued, done, evAt time.Time) {
	departed := before.departed
	gotBy := make(map[string]*Record, len(got))
	for _, f := range got {
		if f.Rec != nil {
			gotBy[f.Name] = f.Rec
		}
	}
	var created []ordering.Entry
	var handoffs []model.Handoff
	for _, i := range touched {
		e := order.Entries[i]
		more := q.more()
		more.changed = append(more.changed, e.ParsedName)
		r, existed := q.Nodes.Get(e.Name)
		if !existed {
			r = gotBy[e.Name]
			if r == nil {
				r = &Record{} // the read failed: shown without owner, read again at the next listing
			}
			q.Nodes.Set(e.Name, r)
			created = append(created, e)
			r.setSince(done, r.Fetched)
			if r.Fetched && r.Ctime().Before(done) {
				r.setSince(r.Ctime(), r.exact)
			}
			if e.Role == ordering.RoleHolder {
				if from := releasedBefore(e, before.pred[e.Name], departed); from != "" {
					r.setSince(evAt, true)
					handoffs = append(handoffs, model.Handoff{Path: q.Path, From: from, To: e.Name, At: done, Gap: done.Sub(evAt)})
				}
			}
		} else if r.role != e.Role {
			if e.Role == ordering.RoleHolder {
				r.setSince(evAt, true)
				handoffs = append(handoffs, model.Handoff{Path: q.Path, From: releasedBefore(e, before.pred[e.Name], departed), To: e.Name, At: done, Gap: done.Sub(evAt)})
			} else {
				r.setSince(done, false)
			}
		}
		r.role = e.Role
		believes, watches := r.believe(e, false)
		r.believes = believes
		if !existed || r.watches != watches {
			r.watches, r.watchesSince = watches, unixNano(done)
		}
	}
	for i := range created {
		r := q.Nodes.Of(created[i].Name)
		created[i].Believes, created[i].Watches = r.believes, r.watches
	}
	q.emitChanges(done, created, departed, func(d ordering.Entry) []string { return before.wakers[d.Name] }, handoffs)
	for _, d := range departed {
		q.Nodes.Delete(d.Name)
		q.more().removed = append(q.more().removed, d.Name)
	}
	q.keepHandoffs(handoffs)
	// kids is the last listing's: read only while the queue holds no lock
	// node (a plain ephemeral lock), which a change here never leaves.
	q.setOrder(order)
	q.clearKids()
	q.listedAt = unixNano(issued)
	q.sampleDepth(done, len(order.Entries))
	q.MarkDirty()
}
