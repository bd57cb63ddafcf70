package verdict

import (
	"math"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
)

// JSON is `zklock why -o json`, one object per lock:
//
//	{
//	  "schema": 1,                     WhySchema
//	  "path": "/locks/job",
//	  "at": "2026-12-01T22:47:03.120Z",  when the read was made
//	  "state": "stuck",                free | held | holder-silent | stuck |
//	                                   split | not-a-lock | unknown (could
//	                                   not be read: see "unread")
//	  "failing": true,                 what `ls --check` fails on holds here
//	                                   (exit 2), or a cross-lock deadlock
//	                                   passes through this lock
//	  "summary": "...",                the headline `zklock why` prints
//	  "type": "mutex",                 as ls --json; "system", "label" too
//	  "exists": true,                  false: the path does not exist
//	  "unread": "...",                 why it could not be read; absent else
//	  "other": ["billing"],            not-a-lock: the children that are no
//	                                   lock nodes (a directory of locks)
//	  "holders": [                     the nodes that believe they hold
//	    {
//	      "node", "seq", "session", "client", "identity", "recipe",
//	      "kind":                      as ls --json
//	      "position": 1,               in the queue, from 1
//	      "since": "...",              when it took the lock, and how to
//	      "since_bound": "earliest",   read it, as ls --json
//	      "held_s": 38.5,              seconds held at "at" (at most, for
//	                                   since_bound earliest)
//	      "client_alive": "silent",    alive | silent (not heard for more
//	                                   than half its session timeout) |
//	                                   unknown (no member tells)
//	      "member", "silent_s",        as ls --json, absent where no member
//	      "timeout_s", "expires_in_s"  tells
//	      "out_of_order": true         it believes it holds while a node
//	                                   before it holds (split-holders);
//	                                   absent when false
//	    }
//	  ],
//	  "waiters": [                     the others, in the order served
//	    {
//	      "node", "seq", "session", "client", "identity", "recipe",
//	      "kind", "position", "since", "since_bound",
//	      "waited_s": 3.1,             seconds waited at "at"
//	      "waits_on": "...",           the node it waits on by its recipe
//	                                   (a path: a children watch on it)
//	      "watch": "verified",         verified | missing | inferred (the
//	                                   servers do not tell)
//	      "wakes": "yes",              yes | expected (its recipe sets the
//	                                   watch; unconfirmed) | never | unknown
//	      "reason": "watch-verified",  watch-verified | watch-inferred |
//	                                   missing-watch | deadlock |
//	                                   cross-lock-deadlock | cycle | self-wait
//	      "text": "..."                the line `zklock why` prints for it
//	    }
//	  ],
//	  "next": {                        null when nothing is held
//	    "when_gone": ["..."],          the holders whose going moves it
//	                                   ([] for a semaphore: any lease)
//	    "holds": ["..."],              the nodes that hold then
//	    "text": "when #12 releases, #13 holds"
//	  },
//	  "warnings": [...],               the lock's warnings, as ls --json
//	  "deadlocks": [...],              the cycles over sessions through this
//	                                   lock, as sessions --json
//	  "act": {                         null when there is nothing to do
//	    "command": "zklock release --force /locks/job/lock-0000000014",
//	    "why": "never-wakes",          deadlock | split-holders |
//	                                   never-wakes | holder-silent
//	    "node": "lock-0000000014",     the node it acts on; absent for a
//	                                   command on the path
//	    "text": "..."                  what it does and what it risks
//	  },
//	  "server_view": true,             the servers told watches and clients
//	  "server_view_note": "...",       what they did not tell; absent else
//	  "stale": false                   read while disconnected
//	}
//
// Every string read from ZooKeeper is sanitized.
type JSON struct {
	Schema         int                     `json:"schema"`
	Path           string                  `json:"path"`
	At             string                  `json:"at"`
	State          State                   `json:"state"`
	Failing        bool                    `json:"failing"`
	Summary        string                  `json:"summary"`
	Type           string                  `json:"type"`
	System         string                  `json:"system,omitempty"`
	Label          string                  `json:"label,omitempty"`
	Exists         bool                    `json:"exists"`
	Unread         string                  `json:"unread,omitempty"`
	Other          []string                `json:"other,omitempty"`
	Holders        []JSONHolder            `json:"holders"`
	Waiters        []JSONWaiter            `json:"waiters"`
	Next           *JSONNext               `json:"next"`
	Warnings       []model.JSONWarning     `json:"warnings"`
	Deadlocks      []sessions.JSONDeadlock `json:"deadlocks"`
	Act            *JSONAct                `json:"act"`
	ServerView     bool                    `json:"server_view"`
	ServerViewNote string                  `json:"server_view_note,omitempty"`
	Stale          bool                    `json:"stale"`
}

// WhySchema is the version of JSON, carried in its schema field. It
// changes only when a field changes meaning or goes away; new fields may
// appear within a version.
const WhySchema = 1

// JSONNode is what a holder and a waiter both say of their node.
type JSONNode struct {
	Node       string `json:"node"`
	Seq        int32  `json:"seq"`
	Position   int    `json:"position"`
	Session    string `json:"session"`
	Client     string `json:"client"`
	Identity   string `json:"identity,omitempty"`
	Recipe     string `json:"recipe"`
	Kind       string `json:"kind"`
	Since      string `json:"since"`
	SinceBound string `json:"since_bound"`
}

// JSONHolder is one holder of JSON.
type JSONHolder struct {
	JSONNode
	HeldS       *float64 `json:"held_s"`
	ClientAlive Alive    `json:"client_alive"`
	model.HealthJSON
	OutOfOrder bool `json:"out_of_order,omitempty"`
}

// JSONWaiter is one waiter of JSON.
type JSONWaiter struct {
	JSONNode
	WaitedS *float64 `json:"waited_s"`
	WaitsOn string   `json:"waits_on"`
	Watch   string   `json:"watch"`
	Wakes   Wakes    `json:"wakes"`
	Reason  string   `json:"reason"`
	Text    string   `json:"text"`
}

// JSONNext is JSON's next.
type JSONNext struct {
	WhenGone []string `json:"when_gone"`
	Holds    []string `json:"holds"`
	Text     string   `json:"text"`
}

// JSONAct is JSON's act.
type JSONAct struct {
	Command string `json:"command"`
	Why     Why    `json:"why"`
	Node    string `json:"node,omitempty"`
	Text    string `json:"text"`
}

// JSON is v as `zklock why -o json` writes it.
func (v Verdict) JSON() JSON {
	j := JSON{Schema: WhySchema, Path: model.SanitizeString(v.Path, 0), At: jsonTime(v.At), State: v.State,
		Failing: v.Failing, Summary: v.Headline(), Type: v.Type.String(), System: v.System,
		Label: model.SanitizeString(v.Label, 0), Exists: v.State != StateUnknown && !v.Absent,
		Unread: model.SanitizeString(v.Unread, 0), Other: sanitized(v.Other), Holders: make([]JSONHolder, 0, len(v.Holders)),
		Waiters: make([]JSONWaiter, 0, len(v.Waiters)), Warnings: make([]model.JSONWarning, 0, len(v.Warnings)),
		Deadlocks:  sessions.SessionsJSON(&sessions.Sessions{At: v.At, Deadlocks: v.Deadlocks}).Deadlocks,
		ServerView: v.ServerView, ServerViewNote: model.SanitizeString(v.ServerViewNote, 0), Stale: v.Stale}
	for _, h := range v.Holders {
		j.Holders = append(j.Holders, v.holderJSON(h))
	}
	for _, w := range v.Waiters {
		j.Waiters = append(j.Waiters, JSONWaiter{JSONNode: nodeJSON(w.Node, w.Position, w.Since, w.Bound),
			WaitedS: sinceS(w.Since, v.At), WaitsOn: model.SanitizeString(w.Node.Watches(), 0),
			Watch: watchWord(w.Node.Link), Wakes: w.Wakes, Reason: w.Reason, Text: v.waiterText(w)})
	}
	if text := v.NextText(); text != "" {
		j.Next = &JSONNext{WhenGone: names(v.Next.Gone), Holds: names(v.Next.Holds), Text: text}
	}
	for _, w := range v.Warnings {
		j.Warnings = append(j.Warnings, w.JSON())
	}
	if v.Act != nil {
		j.Act = &JSONAct{Command: v.Act.Command, Why: v.Act.Why, Text: v.ActText()}
		if v.Act.Node != nil {
			j.Act.Node = model.SanitizeString(v.Act.Node.Name, 0)
		}
	}
	return j
}

// holderJSON is one holder of JSON.
func (v Verdict) holderJSON(h Holder) JSONHolder {
	j := JSONHolder{JSONNode: nodeJSON(h.Node, h.Position, h.Since, h.Bound), HeldS: sinceS(h.Since, v.At),
		ClientAlive: h.Alive, OutOfOrder: h.OutOfOrder}
	if h.Known {
		j.HealthJSON = h.Liveness.JSON() // as ls --json, as of when the servers were asked
	}
	return j
}

// nodeJSON is what JSON says of a holder's or a waiter's node.
func nodeJSON(n *model.Node, position int, since time.Time, b model.Bound) JSONNode {
	j := JSONNode{Node: model.SanitizeString(n.Name, 0), Seq: n.Seq, Position: position,
		Session: model.SessionHex(n.Session), Client: model.SanitizeString(n.Client(), 0),
		Identity: model.SanitizeString(n.Identity(), 0), Recipe: n.Recipe.String(), Kind: n.KindName(),
		Since: jsonTime(since)}
	if !since.IsZero() {
		j.SinceBound = b.String()
	}
	return j
}

// watchWord is a waiter's link as JSON's "watch" says it.
func watchWord(l model.LinkStatus) string {
	if l == model.LinkNone {
		return model.LinkInferred.String() // a waiter always waits on something; the servers did not say
	}
	return l.String()
}

// names are the sanitized names of ns.
func names(ns []*model.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = model.SanitizeString(n.Name, 0)
	}
	return out
}

// sanitized is ns, each sanitized; nil for none.
func sanitized(ns []string) []string {
	if len(ns) == 0 {
		return nil
	}
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = model.SanitizeString(n, 0)
	}
	return out
}

// sinceS is the seconds from since to at, to the tenth; nil when since is
// unknown.
func sinceS(since, at time.Time) *float64 {
	if since.IsZero() {
		return nil
	}
	return tenths(max(0, at.Sub(since)))
}

// tenths is d in seconds to the tenth.
func tenths(d time.Duration) *float64 {
	v := math.Round(d.Seconds()*10) / 10
	return &v
}

// jsonTime is a time as every --json of zklock writes it: RFC 3339, UTC,
// milliseconds; "" when unknown.
func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(model.RFC3339Milli)
}
