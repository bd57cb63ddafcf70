// Node's compact fields: its times, its data, its rare fields, and the
// JSON that writes them as the plain fields they were.

package model

import (
	"bytes"
	"encoding/json"
	"math"
	"time"
	"unsafe"

	"github.com/zklock/zklock/lockops/ordering"
)

// stamp is a time kept in 8 bytes: its Unix nanoseconds with the top bit
// flipped, so that 0 is the zero time (and the zero Node has zero
// times). It is read in time.Local; a time it cannot give back as it was
// (outside 1678-2262, or with an offset Local does not have at that
// moment, as a recording made in another zone brings) is kept whole in
// nodeTimes instead.
type stamp int64

// stampSeconds bounds the seconds from 1970 a stamp holds.
const stampSeconds = math.MaxInt64 / int64(time.Second)

// stampOf is t's stamp, and whether the stamp gives t back: the same
// moment, written the same way (the same offset from UTC).
func stampOf(t time.Time) (stamp, bool) {
	if t.IsZero() {
		_, off := t.Zone()
		return 0, off == 0
	}
	// UnixNano is defined from 1678 to 2262: outside, keep t whole.
	if sec := t.Unix(); sec <= -stampSeconds || sec >= stampSeconds {
		return 0, false
	}
	s := stamp(uint64(t.UnixNano()) ^ 1<<63)
	if s == 0 {
		return 0, false // the one moment a stamp cannot hold
	}
	if t.Location() == time.Local {
		return s, true // the Watcher's times: time.Now, time.UnixMilli
	}
	_, off := t.Zone()
	_, localOff := t.In(time.Local).Zone()
	return s, off == localOff
}

// time is the time s stands for, in time.Local.
func (s stamp) time() time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(uint64(s)^1<<63))
}

// mtimeState says where a Node keeps its Mtime: most nodes were never
// written after their creation, so Mtime is Ctime.
type mtimeState uint8

const (
	mtimeZero  mtimeState = iota // the zero time (not read)
	mtimeCtime                   // the same as Ctime
	mtimeRare                    // in nodeRare.mtime
)

// nodeRare is what a plain lock's node leaves empty. Nodes share it when
// copied, so it is never changed once made: a setter makes another.
type nodeRare struct {
	parent, client, identity, part string
	// predecessor is Predecessor when ownPredecessor; else Predecessor is
	// Watches (and predecessor is "").
	predecessor    string
	mtime          stamp
	exact          *nodeTimes
	health         *Health // nil when no member tells
	ownPredecessor bool
}

// nodeTimes keeps whole the times a stamp cannot give back (stampOf).
type nodeTimes struct {
	t   [3]time.Time // by timeCtime...
	has uint8        // bit 1<<i: t[i] is kept
}

// The times of a Node, as nodeTimes indexes them.
const (
	timeCtime = iota
	timeMtime
	timeSince
)

// rareCopy is a copy of n's rare fields, to change and put back.
func (n *Node) rareCopy() nodeRare {
	if n.rare == nil {
		return nodeRare{}
	}
	return *n.rare
}

// putRare makes r n's rare fields: nil when all are empty, the same
// pointer when nothing changed, else a new one (the old may be shared).
func (n *Node) putRare(r nodeRare) {
	switch {
	case r == nodeRare{}:
		n.rare = nil
	case n.rare != nil && r == *n.rare:
	default:
		p := new(nodeRare)
		*p = r
		n.rare = p
	}
}

// exactTime is n's whole time i, when it keeps one.
func (n *Node) exactTime(i int) (time.Time, bool) {
	if n.rare == nil || n.rare.exact == nil || n.rare.exact.has&(1<<i) == 0 {
		return time.Time{}, false
	}
	return n.rare.exact.t[i], true
}

// keepExact keeps t whole as n's time i when keep, else drops it.
func (n *Node) keepExact(i int, t time.Time, keep bool) {
	if _, had := n.exactTime(i); !had && !keep {
		return
	}
	r := n.rareCopy()
	var e nodeTimes
	if r.exact != nil {
		e = *r.exact
	}
	e.t[i], e.has = time.Time{}, e.has&^(1<<i)
	if keep {
		e.t[i], e.has = t, e.has|1<<i
	}
	r.exact = nil
	if e.has != 0 {
		r.exact = &e
	}
	n.putRare(r)
}

// Ctime is when the node was created, by the server's clock; zero when
// not read.
func (n Node) Ctime() time.Time {
	if t, ok := n.exactTime(timeCtime); ok {
		return t
	}
	return n.ctime.time()
}

// SetCtime sets Ctime, keeping Mtime.
func (n *Node) SetCtime(t time.Time) {
	m := n.Mtime()
	s, ok := stampOf(t)
	n.ctime = s
	n.keepExact(timeCtime, t, !ok)
	n.SetMtime(m)
}

// Mtime is when the node's data was last set, by the server's clock;
// zero when not read.
func (n Node) Mtime() time.Time {
	if t, ok := n.exactTime(timeMtime); ok {
		return t
	}
	switch n.mtimeIs {
	case mtimeCtime:
		return n.Ctime()
	case mtimeRare:
		return n.rare.mtime.time()
	}
	return time.Time{}
}

// SetMtime sets Mtime.
func (n *Node) SetMtime(t time.Time) {
	s, ok := stampOf(t)
	_, ctimeWhole := n.exactTime(timeCtime)
	r := n.rareCopy()
	r.mtime = 0
	switch {
	case ok && s == 0:
		n.mtimeIs = mtimeZero
	case ok && s == n.ctime && !ctimeWhole:
		n.mtimeIs = mtimeCtime
	default:
		n.mtimeIs, r.mtime = mtimeRare, s
	}
	n.putRare(r)
	n.keepExact(timeMtime, t, !ok)
}

// Since is when the node took its current role, as the Watcher saw it:
// hold start for a holder, creation for a waiter (see SinceExact).
func (n Node) Since() time.Time {
	if t, ok := n.exactTime(timeSince); ok {
		return t
	}
	return n.since.time()
}

// SetSince sets Since.
func (n *Node) SetSince(t time.Time) {
	s, ok := stampOf(t)
	n.since = s
	n.keepExact(timeSince, t, !ok)
}

// Data is the first bytes of the node's data (raw; sanitize to show),
// nil when not read, empty when the node has none. The bytes are shared
// with the node: read them only.
func (n Node) Data() []byte {
	switch {
	case !n.dataSet:
		return nil
	case n.data == "":
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(n.data), len(n.data))
}

// SetData sets Data to b, which it keeps, as a published node's data is
// kept: the caller must not change b afterwards.
func (n *Node) SetData(b []byte) {
	n.data, n.dataSet = unsafe.String(unsafe.SliceData(b), len(b)), b != nil
}

// Watches is the node it waits on by its own recipe, "" for a holder;
// for a semaphore's lease waiter, the path whose children it watches
// (WatchesChildren).
func (n Node) Watches() string { return n.watches }

// Predecessor is what a correct recipe waits on (sequence order): the
// lock node just before, or for a read node the nearest mutex or write
// node before; "" for a holder by sequence order. In a correct queue of
// one recipe it is Watches, and then it is not kept apart.
func (n Node) Predecessor() string {
	if n.rare != nil && n.rare.ownPredecessor {
		return n.rare.predecessor
	}
	return n.watches
}

// SetWatchesPredecessor sets Watches and Predecessor together: the way to
// set both without making rare fields for a moment (SetWatches keeps the
// Predecessor it finds).
func (n *Node) SetWatchesPredecessor(watches, predecessor string) {
	n.watches = watches
	own := predecessor != watches
	if !own && (n.rare == nil || !n.rare.ownPredecessor) {
		return // nothing kept apart before or now
	}
	r := n.rareCopy()
	r.predecessor, r.ownPredecessor = "", own
	if own {
		r.predecessor = predecessor
	}
	n.putRare(r)
}

// SetWatches sets Watches, keeping Predecessor: when that was Watches
// before, it is kept apart now (unless it is the new Watches too).
func (n *Node) SetWatches(w string) { n.SetWatchesPredecessor(w, n.Predecessor()) }

// SetPredecessor sets Predecessor.
func (n *Node) SetPredecessor(p string) { n.SetWatchesPredecessor(n.watches, p) }

// Parent is the znode's parent when it is not the queue's path: a
// semaphore's leases/ or locks/, or Kazoo's <path>-__lock__; "" else.
func (n Node) Parent() string {
	if n.rare == nil {
		return ""
	}
	return n.rare.parent
}

// SetParent sets Parent.
func (n *Node) SetParent(p string) { r := n.rareCopy(); r.parent = p; n.putRare(r) }

// Client is the owner's ip:port from `cons`, "" when the servers do not
// tell.
func (n Node) Client() string {
	if n.rare == nil {
		return ""
	}
	return n.rare.client
}

// SetClient sets Client.
func (n *Node) SetClient(c string) { r := n.rareCopy(); r.client = c; n.putRare(r) }

// Identity is the participant as its system names it (a Kafka broker id,
// a Solr node name, a NameNode id and host): "" for a plain recipe's
// node. Raw server text; sanitize to show.
func (n Node) Identity() string {
	if n.rare == nil {
		return ""
	}
	return n.rare.identity
}

// SetIdentity sets Identity.
func (n *Node) SetIdentity(id string) { r := n.rareCopy(); r.identity = id; n.putRare(r) }

// Part is the node's part in a library recipe that is no lock
// (PartMember, PartItem...; recipes.go), "" in a lock or an election.
func (n Node) Part() string {
	if n.rare == nil {
		return ""
	}
	return n.rare.part
}

// SetPart sets Part.
func (n *Node) SetPart(p string) { r := n.rareCopy(); r.part = p; n.putRare(r) }

// nodeWire is Node as JSON has it, in recordings and snapshots: the
// fields, their order and their omission rules as they were when Node
// was this struct. Change it only with the recordings' format.
type nodeWire struct {
	Name        string
	Seq         int32
	Kind        ordering.Kind
	Recipe      ordering.Recipe
	Role        ordering.Role
	Believes    ordering.Role
	Watches     string
	Predecessor string
	Link        LinkStatus
	Herd        bool
	Lease       bool
	Parent      string
	Session     int64
	Client      string
	Data        []byte
	DataLen     int32
	Version     int32
	Ctime       time.Time
	Mtime       time.Time
	Czxid       int64 `json:",omitempty"`
	Since       time.Time
	SinceExact  bool
	Identity    string `json:",omitzero"`
	Part        string `json:",omitzero"`
	// Health came with #40; a recording made before has none.
	Health *Health `json:",omitempty"`
}

// wire is n as JSON has it.
func (n Node) wire() nodeWire {
	return nodeWire{Name: n.Name, Seq: n.Seq, Kind: n.Kind, Recipe: n.Recipe, Role: n.Role, Believes: n.Believes,
		Watches: n.Watches(), Predecessor: n.Predecessor(), Link: n.Link, Herd: n.Herd, Lease: n.Lease,
		Parent: n.Parent(), Session: n.Session, Client: n.Client(), Data: n.Data(), DataLen: n.DataLen,
		Version: n.Version, Ctime: n.Ctime(), Mtime: n.Mtime(), Czxid: n.Czxid, Since: n.Since(),
		SinceExact: n.SinceExact, Identity: n.Identity(), Part: n.Part(), Health: n.healthRef()}
}

// healthRef is n's Health for its JSON, nil when no member tells.
func (n Node) healthRef() *Health {
	if n.rare == nil || n.rare.health == nil {
		return nil
	}
	h := *n.rare.health
	return &h
}

// nodeOfWire is the node w writes.
func nodeOfWire(w *nodeWire) Node {
	n := Node{Name: w.Name, Seq: w.Seq, Kind: w.Kind, Recipe: w.Recipe, Role: w.Role, Believes: w.Believes,
		Link: w.Link, Herd: w.Herd, Lease: w.Lease, Session: w.Session, DataLen: w.DataLen, Version: w.Version,
		Czxid: w.Czxid, SinceExact: w.SinceExact}
	n.SetWatchesPredecessor(w.Watches, w.Predecessor)
	n.SetData(w.Data)
	n.SetCtime(w.Ctime)
	n.SetMtime(w.Mtime)
	n.SetSince(w.Since)
	r := n.rareCopy() // the times' part, set above
	r.parent, r.client, r.identity, r.part, r.health = w.Parent, w.Client, w.Identity, w.Part, w.Health
	n.putRare(r)
	return n
}

// MarshalJSON writes n as the plain struct it was (nodeWire). HTML is
// left unescaped here: the encoder n is written into escapes it or not,
// as it did for the plain struct.
func (n Node) MarshalJSON() ([]byte, error) { return marshalUnescaped(n.wire()) }

// marshalUnescaped is json.Marshal without escaping HTML: a value's
// MarshalJSON leaves that to the encoder it is written into, as
// encoding/json does for a plain struct.
func marshalUnescaped(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads n as MarshalJSON writes it: the fields it names
// are set, the others kept, as for the plain struct.
func (n *Node) UnmarshalJSON(b []byte) error {
	w := n.wire()
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*n = nodeOfWire(&w)
	return nil
}

// WithCtime is n with Ctime t (SetCtime), for building nodes in one
// expression; WithMtime and the others likewise.
func (n Node) WithCtime(t time.Time) Node { n.SetCtime(t); return n }

// WithMtime is n with Mtime t.
func (n Node) WithMtime(t time.Time) Node { n.SetMtime(t); return n }

// WithSince is n with Since t.
func (n Node) WithSince(t time.Time) Node { n.SetSince(t); return n }

// WithData is n with Data b, which it keeps (SetData).
func (n Node) WithData(b []byte) Node { n.SetData(b); return n }

// WithWatches is n with Watches w, keeping its Predecessor (SetWatches).
func (n Node) WithWatches(w string) Node { n.SetWatches(w); return n }

// WithPredecessor is n with Predecessor p.
func (n Node) WithPredecessor(p string) Node { n.SetPredecessor(p); return n }

// WithWatchesPredecessor is n with Watches w and Predecessor p.
func (n Node) WithWatchesPredecessor(w, p string) Node { n.SetWatchesPredecessor(w, p); return n }

// WithParent is n with Parent p.
func (n Node) WithParent(p string) Node { n.SetParent(p); return n }

// WithClient is n with Client c.
func (n Node) WithClient(c string) Node { n.SetClient(c); return n }

// WithIdentity is n with Identity id.
func (n Node) WithIdentity(id string) Node { n.SetIdentity(id); return n }

// WithPart is n with Part p.
func (n Node) WithPart(p string) Node { n.SetPart(p); return n }
