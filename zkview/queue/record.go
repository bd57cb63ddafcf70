package queue

import (
	"time"
	"unsafe"

	"github.com/zklock/zklock/lockops/ordering"
)

// Record is what the model knows of one lock node: its stat and data,
// read once, and what the Watcher saw of its roles.
//
// A root keeps one for each lock node of up to a million parents: the
// server's times are kept as it tells them (Unix milliseconds), the
// Watcher's as Unix nanoseconds, and the small fields sit together, so
// that a Record fits in 96 bytes (TestRecordSize).
type Record struct {
	Session int64
	// Data is the node's first bytes, kept as a string: 16 bytes, not a
	// slice's 24, so that a Record fits in 96 bytes; the published Node
	// shares its bytes (DataBytes). SetData sets it from a read.
	Data    string
	CtimeMs int64 // the stat's ctime, Unix milliseconds (Ctime)
	MtimeMs int64 // the stat's mtime, Unix milliseconds (Mtime)
	Czxid   int64
	DataLen int32
	Version int32
	Fetched bool // stat and data read (false: the Get failed, read again later)

	role     ordering.Role
	believes ordering.Role
	// believedHolder: the replay said holder at a listing the Watcher
	// read. A client that took its lock does not look again until it lets
	// go, so it keeps believing it holds whatever a replay on a later list
	// says (Kazoo 2.8's readers, asked again once a writer queued behind
	// them, would wait on it; they do not ask again).
	believedHolder bool
	// holdUnknown: first seen in the queue's first listing as a holder by
	// sequence order that its recipe's replay would make wait; whether it
	// took the lock on an earlier list or really waits is decided by the
	// servers' watches (see believed).
	holdUnknown bool
	exact       bool
	// dataSet: the node has data, if empty (a null Data is nil in the
	// published Node, an empty one empty: the two encode apart).
	dataSet bool
	// verified: the servers showed its wait's watch once. Such a waiter,
	// found without one just after its target changed, is re-arming, not
	// stuck (judgeLink).
	verified bool
	// since is when the node took its role (the published Node's Since),
	// Unix nanoseconds (0: not yet): a time would take the Record to 112
	// bytes (setSince, Since).
	since   int64
	watches string
	// watchesSince is when watches took its value, as the Watcher saw,
	// Unix nanoseconds (0: never): it is only compared.
	watchesSince int64
}

// Since is when the node took its role, as the Watcher judged it; zero
// when not yet judged.
func (r *Record) Since() time.Time { return fromUnixNano(r.since) }

// setSince sets when the node took its role, and whether that is exact.
func (r *Record) setSince(t time.Time, exact bool) { r.since, r.exact = unixNano(t), exact }

// unixNano is t in Unix nanoseconds, 0 for the zero time.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromUnixNano is the time of ns, Unix nanoseconds, in the local zone as
// the Watcher's clock (time.Now) tells it; 0 is the zero time.
func fromUnixNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// SetData makes b (copied) r's data.
func (r *Record) SetData(b []byte) { r.Data, r.dataSet = string(b), b != nil }

// DataBytes is r's data as the published Node's Data: the string's own
// bytes, not a copy (a published Node is never changed); nil for a null
// data, as read.
func (r *Record) DataBytes() []byte {
	if r.Data == "" && r.dataSet {
		return noBytes
	}
	return bytesOf(r.Data)
}

// noBytes is the data of a node whose data is empty (not null).
var noBytes = []byte{}

// bytesOf is s's bytes, shared: the caller must not change them.
func bytesOf(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// Ctime is when the node was created, by the server's clock; zero when
// not read (Fetched false).
func (r *Record) Ctime() time.Time { return unixMilli(r.CtimeMs) }

// Mtime is when the node's data was last set, by the server's clock;
// zero when not read.
func (r *Record) Mtime() time.Time { return unixMilli(r.MtimeMs) }

// unixMilli is the time of ms, Unix milliseconds; 0 is the zero time,
// as an unread stat's times were (no lock node was made in 1970).
func unixMilli(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
