package model

import (
	"fmt"
	"time"
)

// ChangeKind is what happened. The first kinds are those `zklock watch
// --json` streams (timeline.Diff makes them from two snapshots); the
// others are the Watcher's own narration of what it reads, which the
// console's event log shows beside them. String names a kind as the
// stream does ("event"), LogWord as the console's event log heads it.
type ChangeKind int

const (
	// ChangeJoined: a lock node appeared in a queue (the log's
	// "created").
	ChangeJoined ChangeKind = iota
	// ChangeAcquired: a node became a holder (by sequence order): the
	// log's "handoff" (From, Gap), or a semaphore lease taken.
	ChangeAcquired
	// ChangeReleased: a holder's node went away (a lease returned).
	ChangeReleased
	// ChangeGaveUp: a waiter's node went away before it held.
	ChangeGaveUp
	// ChangeSessionLost: a node went away with its session (see
	// timeline.Diff for when the model can tell).
	ChangeSessionLost
	// ChangeWarningRaised, ChangeWarningCleared: a warning (Warning)
	// began or ended on Path; a cleared warning with no Path is one the
	// systems' check ended (leader-mismatch).
	ChangeWarningRaised
	ChangeWarningCleared
	// ChangeStale: the Watcher lost its link; the model may be out of
	// date until ChangeFresh.
	ChangeStale
	ChangeFresh
	// ChangePathAppeared: a watched lock parent came into existence (or
	// a lock parent under a root got its first lock node).
	ChangePathAppeared
	// ChangePathVanished: a lock parent was deleted; Unwatched when it
	// left the model with it (a discovered parent: Count nodes it held).
	ChangePathVanished
	// ChangeAdmitted: a semaphore contender's node left the admission
	// lock because its contender got a lease (Lease): it did not give
	// up, and it never held anything itself.
	ChangeAdmitted

	// The Watcher's narration: the console shows these, the stream does
	// not carry them.

	// ChangeConn: the Watcher's connection changed (Conn; Resume says
	// what a new connection re-reads).
	ChangeConn
	// ChangePathAbsent: a watched parent does not exist (first read).
	ChangePathAbsent
	// ChangePathUnreadable: a parent cannot be listed (State NoAuth or
	// Error; Err says why).
	ChangePathUnreadable
	// ChangePathRecreated: a parent was deleted and created again since
	// its last listing; its nodes are read afresh.
	ChangePathRecreated
	// ChangePathFound: discovery met a lock parent (Type semaphore: a
	// semaphore) under a root.
	ChangePathFound
	// ChangeListed: a queue's first listing: Count lock nodes, Holders
	// holding (Node: the first holder); a semaphore (Type) tells its
	// holders against Limit and Waiting.
	ChangeListed
	// ChangeBurst: one listing changed more nodes than the log tells one
	// by one (Created, Deleted).
	ChangeBurst
	// ChangeWatchVerified: the servers show Node's session watching the
	// node it waits on (wchc).
	ChangeWatchVerified
	// ChangeServerView: the four-letter words answered again (Count
	// members), or Note says what they do not tell.
	ChangeServerView
	// ChangeWatchMode: the server refused persistent watches (Err): the
	// Watcher falls back to children watches.
	ChangeWatchMode
	// ChangeOverflow: a watch fell behind; Path is read afresh.
	ChangeOverflow
	// ChangeParentsCapped, ChangeNodesCapped: discovery stopped at Count
	// lock parents, or at Count watched nodes.
	ChangeParentsCapped
	ChangeNodesCapped
	// ChangeDiscovering: how far the first read of a root watched whole
	// has come (Discovery), told once a second while it reads.
	ChangeDiscovering
	// ChangeCycle: a cross-lock cycle (Cycle) appeared or turned into a
	// deadlock; ChangeCycleCleared: it is gone.
	ChangeCycle
	ChangeCycleCleared
	// ChangeInfo: words with no typed fields (Note): a replay's notes.
	ChangeInfo
	changeKinds // the number of kinds
)

// changeNames are the kinds' names (String), in kind order.
var changeNames = [changeKinds]string{
	"joined", "acquired", "released", "gave-up", "session-lost",
	"warning-raised", "warning-cleared", "stale", "fresh",
	"path-appeared", "path-vanished", "admitted",
	"connection", "path-absent", "path-unreadable", "path-recreated", "path-found",
	"listed", "burst", "watch-verified", "server-view", "watch-mode", "overflow",
	"parents-capped", "nodes-capped", "discovering", "cycle", "cycle-cleared", "info",
}

// String is the kind as `watch --json` names it in "event".
func (k ChangeKind) String() string {
	if k < 0 || k >= changeKinds {
		return "unknown"
	}
	return changeNames[k]
}

// MarshalText writes the kind by name (a recording stores it so).
func (k ChangeKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind by name; an unknown name reads as
// ChangeInfo (a recording made by a newer zklock).
func (k *ChangeKind) UnmarshalText(b []byte) error {
	for i, n := range changeNames {
		if n == string(b) {
			*k = ChangeKind(i)
			return nil
		}
	}
	*k = ChangeInfo
	return nil
}

// LogWord is the kind as the console's event log heads it: created,
// deleted, handoff, conn, warning, path or info.
func (k ChangeKind) LogWord() string {
	switch k {
	case ChangeJoined:
		return "created"
	case ChangeReleased, ChangeGaveUp, ChangeSessionLost, ChangeAdmitted:
		return "deleted"
	case ChangeAcquired:
		return "handoff"
	case ChangeConn, ChangeStale, ChangeFresh:
		return "conn"
	case ChangeWarningRaised, ChangeWarningCleared, ChangeCycle, ChangeCycleCleared:
		return "warning"
	case ChangePathAppeared, ChangePathVanished, ChangePathAbsent, ChangePathUnreadable,
		ChangePathRecreated, ChangePathFound:
		return "path"
	}
	return "info"
}

// Departure says whether the kind is a node going away.
func (k ChangeKind) Departure() bool {
	return k == ChangeReleased || k == ChangeGaveUp || k == ChangeSessionLost || k == ChangeAdmitted
}

// Resume says what a new connection of the Watcher re-reads.
type Resume uint8

const (
	// ResumeFirst: the Watcher's first connection.
	ResumeFirst Resume = iota
	// ResumeSession: the same session again: every path is re-listed.
	ResumeSession
	// ResumeNew: a new session (the old one expired): every path and
	// node is read again.
	ResumeNew
)

// Change is one thing that happened to the watched queues or to the
// Watcher's view of them: the one vocabulary of change. The Watcher
// makes Changes as it reads ZooKeeper (zkview, zkview/queue) and hands
// them out in each Update; timeline.Diff makes them from two snapshots
// for `zklock watch`. It has two renderings: Text, the console's event
// log line, and ToJSON, one line of `watch --json`.
//
// Why "Change" and not "Event": the go-zookeeper client's zk.Event lives
// in the same files as the Watcher, and the stream already named these
// changes; a Change is typed (who, where, how long), never a sentence.
//
// Fields hold what ZooKeeper said, raw: the renderings sanitize. Each
// kind's doc says which fields it sets; the others are zero.
type Change struct {
	Kind ChangeKind `json:"kind"`
	At   time.Time  `json:"at"` // when it was seen (a snapshot's At for Diff)
	Path string     `json:"path,omitzero"`
	Type QueueType  `json:"type,omitzero"`
	// Node is the node concerned, as the newer snapshot (or listing)
	// shows it, as the older one did for a node that went away; for a
	// warning, its first node's Name.
	Node Node `json:"node,omitzero"`
	// From is the node whose release let Node hold (acquired), "" when
	// it was not seen; Gap the time between the two.
	From string        `json:"from,omitzero"`
	Gap  time.Duration `json:"gap,omitzero"`
	// Lease is the lease an admitted contender got (admitted).
	Lease string `json:"lease,omitzero"`
	// Held is how long a node that went away had held, HeldBound how
	// well that is known: exact (the hold was seen to begin), earliest
	// (a holder found holding: Held runs from its creation, an upper
	// bound) or latest (Held runs from when it was first seen, a lower
	// bound). Waited is how long a node that acquired or went away had
	// waited. Zero when the start of the role is not known.
	Held      time.Duration `json:"held,omitzero"`
	HeldBound Bound         `json:"held_bound,omitzero"`
	Waited    time.Duration `json:"waited,omitzero"`
	// Cause is why a session-lost node's session ended, when the
	// servers' view of the session tells (CauseOf).
	Cause Cause `json:"cause,omitzero"`
	// Wakes are the nodes that waited on a node that went away.
	Wakes   []string  `json:"wakes,omitzero"`
	Warning Warning   `json:"warning,omitzero"` // warning-raised, warning-cleared
	Cycle   Deadlock  `json:"cycle,omitzero"`   // cycle, cycle-cleared
	Conn    Conn      `json:"conn,omitzero"`    // stale, fresh, connection
	Resume  Resume    `json:"resume,omitzero"`  // connection
	State   PathState `json:"state,omitzero"`   // path kinds
	// Unwatched: a vanished path left the model (it is not watched on).
	Unwatched bool `json:"unwatched,omitzero"`
	// Count is the number the kind counts: a listing's lock nodes, a
	// vanished parent's nodes, the members that answered, discovery's
	// bound.
	Count int `json:"count,omitzero"`
	// Holders, Limit, Waiting: a queue's holders, a semaphore's limit (0
	// when unknown) and its contenders waiting (listed, and a semaphore's
	// lease changes).
	Holders int `json:"holders,omitzero"`
	Limit   int `json:"limit,omitzero"`
	Waiting int `json:"waiting,omitzero"`
	// Created, Deleted: the nodes one listing changed (burst).
	Created int `json:"created,omitzero"`
	Deleted int `json:"deleted,omitzero"`
	// Discovery is how far a root's first read has come (discovering).
	Discovery Discovery `json:"discovery,omitzero"`
	// Err is what a read met (path-unreadable, watch-mode).
	Err string `json:"err,omitzero"`
	// Note is words no field holds: an info change's, or what the server
	// view does not tell (server-view).
	Note string `json:"note,omitzero"`
	// Said is the event log line as a recording made before changes were
	// typed stored it (its kind mapped to the nearest Kind): Text says it
	// as it was. "" for every change made now.
	Said string `json:"said,omitzero"`
}

// LimitText is a semaphore's holders against its limit: "2/3" or
// "2 (limit unknown)" when limit is 0.
func LimitText(holders, limit int) string {
	if limit > 0 {
		return fmt.Sprintf("%d/%d", holders, limit)
	}
	return fmt.Sprintf("%d (limit unknown)", holders)
}

// Discovery is how far the first read of a root read whole has come:
// the nodes read of those found below it (the root counted), the lock
// parents among them, and the time since the read began.
type Discovery struct {
	Root    string        `json:"root,omitzero"`
	Read    int           `json:"read"`
	Found   int           `json:"found"`
	Parents int           `json:"parents"`
	Took    time.Duration `json:"took"`
}
