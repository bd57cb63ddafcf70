package model

import (
	"math"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// StreamSchema is the version of the `zklock watch --json` object (the
// "schema" field of every line). It changes only when a field changes
// meaning or goes away; new fields may appear within one version.
const StreamSchema = 1

// JSONChange is one line of `zklock watch --json` (schema StreamSchema):
//
//	{
//	  "schema": 1,                   StreamSchema
//	  "time": "2026-11-23T03:12:07.120Z",  when the Watcher saw it (RFC
//	                                 3339, UTC, milliseconds)
//	  "event": "acquired",           joined | acquired | released | gave-up |
//	                                 admitted | session-lost | warning-raised |
//	                                 warning-cleared | stale | fresh |
//	                                 path-appeared | path-vanished
//	  "path": "/locks/job",          the lock parent (absent for stale/fresh)
//	  "type": "mutex",               the queue's type, as ls --json
//	  node events (joined ... session-lost, admitted):
//	  "node": "_c_...-lock-0000000007",  the node's name
//	  "seq": 7, "kind": "mutex", "recipe": "curator",  as ls --json
//	  "parent": "/sem/x/leases",     when the node is not a child of path
//	  "role": "holder",              its role when it happened, by sequence
//	                                 order: holder | waiting (session-lost:
//	                                 the role it had; admitted: "holder",
//	                                 with "kind": "lease": what the
//	                                 contender was admitted to)
//	  "believes": "holder",          what its own recipe decides, as ls
//	                                 --json (differs from role only in a
//	                                 split queue: a node that believed it
//	                                 held leaves as released)
//	  "session": "0x1000a...",       its ephemeralOwner
//	  "client": "10.0.0.7:4711",     ip:port when the servers tell
//	  "data": "user@host pid 42",    its first bytes of data, sanitized
//	  "from": "_c_...-0000000006",   acquired: the node whose release let
//	                                 it hold, when the monitor saw it
//	  "lease": "_c_...-lease-0000000009",  admitted: the lease that a
//	                                 semaphore contender's admission-lock
//	                                 node left for (the node is the lock's)
//	  "held_s": 1.25,                released, session-lost of a holder:
//	                                 how long it held, always
//	  "held_bound": "exact",         how held_s is known: exact (the hold
//	                                 was seen to begin) | at-most (a holder
//	                                 already holding when the stream began,
//	                                 or a split holder: measured from its
//	                                 creation, as ls's since_bound
//	                                 "earliest") | at-least (its creation
//	                                 unknown: from when it was first seen)
//	  "cause": "expired",            session-lost: expired (silent until its
//	                                 timeout) | closed (its client closed
//	                                 it) | unknown (model.CauseOf)
//	  "waited_s": 0.5,               acquired, gave-up, admitted, session-lost: how
//	                                 long it waited (from its creation),
//	                                 when known
//	  warning events:
//	  "code": "split-holders", "message": "...", "nodes": ["..."],
//	  stale, fresh:
//	  "state": "disconnected",       the Watcher's connection (stale, fresh)
//	                                 or the path (present, noauth, absent)
//	  "monitor_session": "0x..."     the Watcher's own session (stale, fresh)
//	}
//
// The stream carries the kinds timeline.Diff makes (above); a change of
// the Watcher's narration written this way carries its words in
// "message". Optional fields are left out when empty. Every string read from
// ZooKeeper went through SanitizeString.
type JSONChange struct {
	Schema  int      `json:"schema"`
	Time    string   `json:"time"`
	Event   string   `json:"event"`
	Path    string   `json:"path,omitempty"`
	Type    string   `json:"type,omitempty"`
	Node    string   `json:"node,omitempty"`
	Seq     *int32   `json:"seq,omitempty"`
	Kind    string   `json:"kind,omitempty"`
	Recipe  string   `json:"recipe,omitempty"`
	Parent  string   `json:"parent,omitempty"`
	Role    string   `json:"role,omitempty"`
	Believe string   `json:"believes,omitempty"`
	Session string   `json:"session,omitempty"`
	Client  string   `json:"client,omitempty"`
	Data    string   `json:"data,omitempty"`
	From    string   `json:"from,omitempty"`
	Lease   string   `json:"lease,omitempty"`
	HeldS   *float64 `json:"held_s,omitempty"`
	HeldB   string   `json:"held_bound,omitempty"`
	Cause   string   `json:"cause,omitempty"`
	WaitedS *float64 `json:"waited_s,omitempty"`
	Code    string   `json:"code,omitempty"`
	Message string   `json:"message,omitempty"`
	Nodes   []string `json:"nodes,omitempty"`
	State   string   `json:"state,omitempty"`
	Monitor string   `json:"monitor_session,omitempty"`
}

// ToJSON is the change as one `watch --json` object: the stream's
// rendering (Text is the console's).
func (c Change) ToJSON() JSONChange {
	j := JSONChange{Schema: StreamSchema, Time: c.At.UTC().Format(RFC3339Milli), Event: c.Kind.String()}
	switch c.Kind {
	case ChangeStale, ChangeFresh, ChangeConn:
		j.State = c.Conn.State.String()
		j.Monitor = SessionHex(c.Conn.SessionID)
		return j
	}
	j.Path, j.Type = SanitizeString(c.Path, 0), c.Type.String()
	switch {
	case c.Kind == ChangeWarningRaised || c.Kind == ChangeWarningCleared:
		j.Code, j.Message = SanitizeString(c.Warning.Code, 0), SanitizeString(c.Warning.Message, 0)
		j.Nodes = make([]string, 0, len(c.Warning.Nodes))
		for _, n := range c.Warning.Nodes {
			j.Nodes = append(j.Nodes, SanitizeString(n, 0))
		}
	case c.Kind == ChangePathAppeared || c.Kind == ChangePathVanished:
		j.State = c.State.String()
	case c.Kind == ChangeJoined || c.Kind == ChangeAcquired || c.Kind.Departure():
		n := &c.Node
		seq := n.Seq
		j.Node, j.Seq, j.Kind, j.Recipe = SanitizeString(n.Name, 0), &seq, n.KindName(), n.Recipe.String()
		j.Parent, j.Role, j.Believe = SanitizeString(n.Parent(), 0), n.Role.String(), n.Believes.String()
		j.Session, j.Client, j.Data = SessionHex(n.Session), SanitizeString(n.Client(), 0), n.DataText(0)
		j.From, j.Lease = SanitizeString(c.From, 0), SanitizeString(c.Lease, 0)
		j.WaitedS = seconds(c.Waited)
		if c.Kind == ChangeAdmitted {
			// What was admitted: a contender, now holding a lease.
			j.Kind, j.Role, j.Believe = "lease", ordering.RoleHolder.String(), ordering.RoleHolder.String()
		}
		if c.Held > 0 || c.Kind == ChangeReleased || c.Kind == ChangeSessionLost && n.Role == ordering.RoleHolder {
			bound := c.HeldBound
			if c.Held <= 0 {
				bound = BoundLatest // nothing known: "at least 0" is still true
			}
			j.HeldS, j.HeldB = secondsOrZero(c.Held), bound.HeldWord()
		}
		if c.Kind == ChangeSessionLost {
			j.Cause = c.Cause.String()
		}
	default:
		// The Watcher's narration, not streamed: its words.
		j.Message = SanitizeString(c.Text(), 0)
	}
	return j
}

// secondsOrZero is d in seconds with millisecond precision, 0 for
// nothing: a field that is always carried.
func secondsOrZero(d time.Duration) *float64 {
	if s := seconds(d); s != nil {
		return s
	}
	z := 0.0
	return &z
}

// seconds is d in seconds with millisecond precision, nil for 0.
func seconds(d time.Duration) *float64 {
	if d <= 0 {
		return nil
	}
	s := math.Round(d.Seconds()*1000) / 1000
	return &s
}
