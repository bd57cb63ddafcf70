// A Queue's rare fields (behind one pointer, nil for the common lock
// parent) and its JSON, which keeps the wire of the struct it was before.

package model

import (
	"encoding/json"
	"time"
)

// QueueRare holds what most lock parents leave empty: a plain mutex read
// without error has no Other children, no limit, no warning, no handoff,
// no system and no facts. A Queue keeps these behind one pointer, nil when
// all are zero, so a root of 100,000 parents does not carry them 100,000
// times (issue #34). Read them with Queue's accessors (Err, Warnings...),
// set them with its setters or SetRare.
type QueueRare struct {
	Err   string // when State is PathError or PathNoAuth
	Other []string
	// Limit is a semaphore's number of leases, 0 when unknown;
	// LimitSource says where it comes from (LimitFromConfig...).
	Limit       int
	LimitSource string
	Warnings    []Warning
	Handoffs    []Handoff // most recent last, bounded
	// System is the software whose layout the path follows ("kafka",
	// "solr", "hadoop-ha": systems.System), "" for a plain recipe; Label
	// names it for a person ("solr overseer", "hdfs ns1"). Raw server
	// text in Label; sanitize to show.
	System string
	Label  string
	// Facts is what a library recipe that is no lock states at the path
	// beyond its nodes (a counter's value, a lease's end); nil otherwise.
	Facts *RecipeFacts
	// Pzxid is the zxid of the last child change of the lock parent (the
	// newest of its parts' for a semaphore) as its listing read it, 0
	// when not kept (a one-off read keeps it: its cycles are dated by it,
	// sessions.ProveCycles).
	Pzxid int64
}

// isZero says whether r holds nothing. A slice empty but not nil is
// something: it is written "[]", not null.
func (r *QueueRare) isZero() bool {
	return r.Err == "" && r.Other == nil && r.Limit == 0 && r.LimitSource == "" && r.Warnings == nil &&
		r.Handoffs == nil && r.System == "" && r.Label == "" && r.Facts == nil && r.Pzxid == 0
}

// queueRare is what a Queue points to: its rare fields, and its ListedAt
// when Unix nanoseconds cannot say it exactly.
type queueRare struct {
	QueueRare
	// listedAt is ListedAt when the compact form would change it: a zone
	// other than the local one at that instant (a recording made
	// elsewhere), or out of int64 nanoseconds' range; zero otherwise.
	listedAt time.Time
}

// rareCopy is a copy of q's rare fields, to change and store with
// setRare: the one q points to may be shared with published snapshots,
// which never change (copy on write).
func (q *Queue) rareCopy() queueRare {
	if q.rare == nil {
		return queueRare{}
	}
	return *q.rare
}

// setRare points q to a new copy of r, or to nothing when r is zero.
func (q *Queue) setRare(r queueRare) {
	if r.isZero() && r.listedAt.IsZero() {
		q.rare = nil
		return
	}
	c := new(queueRare) // not &r: r would escape, allocated even when zero
	*c = r
	q.rare = c
}

// Rare returns a copy of q's rare fields (their slices are shared: read
// only, as every published value).
func (q Queue) Rare() QueueRare {
	if q.rare == nil {
		return QueueRare{}
	}
	return q.rare.QueueRare
}

// SetRare sets all of q's rare fields at once (one allocation at most,
// none when r is zero).
func (q *Queue) SetRare(r QueueRare) {
	c := q.rareCopy()
	c.QueueRare = r
	q.setRare(c)
}

// WithRare returns q with its rare fields set to r, for building a Queue
// in one expression.
func (q Queue) WithRare(r QueueRare) Queue {
	q.SetRare(r)
	return q
}

// edit applies f to a copy of q's rare fields and keeps the result.
func (q *Queue) edit(f func(r *QueueRare)) {
	c := new(queueRare) // f's argument escapes: one allocation, kept unless zero
	if q.rare != nil {
		*c = *q.rare
	}
	f(&c.QueueRare)
	if c.isZero() && c.listedAt.IsZero() {
		c = nil
	}
	q.rare = c
}

// Err is why the path could not be read, when State is PathError or
// PathNoAuth; "" otherwise.
func (q Queue) Err() string {
	if q.rare == nil {
		return ""
	}
	return q.rare.Err
}

// Other lists the children no recipe explains (raw names).
func (q Queue) Other() []string {
	if q.rare == nil {
		return nil
	}
	return q.rare.Other
}

// Limit is a semaphore's number of leases, 0 when unknown.
func (q Queue) Limit() int {
	if q.rare == nil {
		return 0
	}
	return q.rare.Limit
}

// LimitSource says where Limit comes from (LimitFromConfig...), "" when
// unknown.
func (q Queue) LimitSource() string {
	if q.rare == nil {
		return ""
	}
	return q.rare.LimitSource
}

// Warnings are the problems found on the queue.
func (q Queue) Warnings() []Warning {
	if q.rare == nil {
		return nil
	}
	return q.rare.Warnings
}

// Handoffs are the handoffs the Watcher saw, most recent last, bounded.
func (q Queue) Handoffs() []Handoff {
	if q.rare == nil {
		return nil
	}
	return q.rare.Handoffs
}

// System is the software whose layout the path follows, "" for a plain
// recipe.
func (q Queue) System() string {
	if q.rare == nil {
		return ""
	}
	return q.rare.System
}

// Label names the system's coordination for a person (raw server text:
// sanitize to show), "" without a system.
func (q Queue) Label() string {
	if q.rare == nil {
		return ""
	}
	return q.rare.Label
}

// Facts is what a library recipe that is no lock states at the path, nil
// otherwise.
func (q Queue) Facts() *RecipeFacts {
	if q.rare == nil {
		return nil
	}
	return q.rare.Facts
}

// SetErr sets Err.
func (q *Queue) SetErr(err string) { q.edit(func(r *QueueRare) { r.Err = err }) }

// SetOther sets Other.
func (q *Queue) SetOther(other []string) { q.edit(func(r *QueueRare) { r.Other = other }) }

// SetLimit sets Limit.
func (q *Queue) SetLimit(limit int) { q.edit(func(r *QueueRare) { r.Limit = limit }) }

// SetLimitSource sets LimitSource.
func (q *Queue) SetLimitSource(source string) { q.edit(func(r *QueueRare) { r.LimitSource = source }) }

// SetWarnings sets Warnings.
func (q *Queue) SetWarnings(ws []Warning) { q.edit(func(r *QueueRare) { r.Warnings = ws }) }

// AddWarnings appends ws to Warnings (in a new array when the current one
// could be shared: it may belong to a published queue).
func (q *Queue) AddWarnings(ws ...Warning) {
	if len(ws) == 0 {
		return
	}
	q.edit(func(r *QueueRare) {
		r.Warnings = append(r.Warnings[:len(r.Warnings):len(r.Warnings)], ws...)
	})
}

// SetHandoffs sets Handoffs.
func (q *Queue) SetHandoffs(hs []Handoff) { q.edit(func(r *QueueRare) { r.Handoffs = hs }) }

// SetSystem sets System.
func (q *Queue) SetSystem(system string) { q.edit(func(r *QueueRare) { r.System = system }) }

// SetLabel sets Label.
func (q *Queue) SetLabel(label string) { q.edit(func(r *QueueRare) { r.Label = label }) }

// Pzxid is the zxid of the parent's last child change as its listing
// read it (QueueRare.Pzxid), 0 when not kept.
func (q Queue) Pzxid() int64 {
	if q.rare == nil {
		return 0
	}
	return q.rare.Pzxid
}

// SetPzxid keeps the zxid of the parent's last child change.
func (q *Queue) SetPzxid(z int64) { q.edit(func(r *QueueRare) { r.Pzxid = z }) }

// SetFacts sets Facts.
func (q *Queue) SetFacts(f *RecipeFacts) { q.edit(func(r *QueueRare) { r.Facts = f }) }

// ListedAt is when the listing behind Nodes was asked for: every node
// shown existed then (zero before the first listing).
func (q Queue) ListedAt() time.Time {
	if q.rare != nil && !q.rare.listedAt.IsZero() {
		return q.rare.listedAt
	}
	if q.listedAt == 0 {
		return time.Time{}
	}
	return time.Unix(0, q.listedAt)
}

// SetListedAt sets ListedAt. It is kept as Unix nanoseconds (8 bytes, not
// a time.Time's 24), read back in the local zone, which is the zone of
// the Watcher's clock; a time that would not come back the same (another
// zone's offset, out of range) is kept whole beside the rare fields, so
// JSON decoded from a recording is written back byte for byte.
func (q *Queue) SetListedAt(t time.Time) {
	n, exact := compactTime(t)
	q.listedAt = n
	if exact && (q.rare == nil || q.rare.listedAt.IsZero()) {
		return
	}
	c := q.rareCopy()
	c.listedAt = time.Time{}
	if !exact {
		c.listedAt = t
	}
	q.setRare(c)
}

// compactTime is t as Unix nanoseconds (0 for the zero time), and whether
// time.Unix gives t back with the same instant and offset (the offset is
// all that JSON writes of a zone). The monotonic reading is dropped.
func compactTime(t time.Time) (int64, bool) {
	if t.IsZero() {
		return 0, true
	}
	n := t.UnixNano()
	if n == 0 {
		return 0, false // 0 says the zero time
	}
	u := time.Unix(0, n)
	_, uo := u.Zone()
	_, to := t.Zone()
	if !u.Equal(t) || uo != to {
		return 0, false
	}
	return n, true
}

// queueJSON is a Queue on the wire: the fields, order and omission rules
// of the struct Queue was before its rare fields moved behind a pointer
// (recordings and the console's fixtures hold it; testdata/ keeps JSON
// written then, and TestQueueJSONWire reads it back byte for byte).
type queueJSON struct {
	Path        string
	State       PathState
	Err         string
	Nodes       Nodes
	Other       []string
	Type        QueueType
	Limit       int
	LimitSource string
	Warnings    []Warning
	Handoffs    []Handoff
	Depth       []DepthSample
	ListedAt    time.Time
	System      string       `json:",omitzero"`
	Label       string       `json:",omitzero"`
	Facts       *RecipeFacts `json:",omitzero"`
	Pzxid       int64        `json:",omitzero"`
}

// wire is q as it is written.
func (q *Queue) wire() queueJSON {
	r := q.Rare()
	return queueJSON{Path: q.Path, State: q.State, Err: r.Err, Nodes: q.Nodes, Other: r.Other, Type: q.Type,
		Limit: r.Limit, LimitSource: r.LimitSource, Warnings: r.Warnings, Handoffs: r.Handoffs, Depth: q.Depth,
		ListedAt: q.ListedAt(), System: r.System, Label: r.Label, Facts: r.Facts, Pzxid: r.Pzxid}
}

// queue is the Queue w says.
func (w *queueJSON) queue() Queue {
	q := Queue{Path: w.Path, State: w.State, Nodes: w.Nodes, Type: w.Type, Depth: w.Depth}
	q.SetListedAt(w.ListedAt)
	q.SetRare(QueueRare{Err: w.Err, Other: w.Other, Limit: w.Limit, LimitSource: w.LimitSource,
		Warnings: w.Warnings, Handoffs: w.Handoffs, System: w.System, Label: w.Label, Facts: w.Facts, Pzxid: w.Pzxid})
	return q
}

// MarshalJSON writes q as the struct it was before (queueJSON). It does
// not escape HTML itself: the encoder around it decides (a recording's
// does not), as it did for the struct.
func (q Queue) MarshalJSON() ([]byte, error) { return marshalUnescaped(q.wire()) }

// UnmarshalJSON reads q as MarshalJSON writes it, into a new Queue
// (decoding into q's slices could write into arrays a published queue
// shares); JSON null leaves q as it is.
func (q *Queue) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var w queueJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*q = w.queue()
	return nil
}
