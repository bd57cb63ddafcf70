package sessions

import (
	"math"
	"time"

	"github.com/zklock/zklock/model"
)

// JSONSessions is `zklock sessions --json`, one object:
//
//	{
//	  "schema": 1,                      SessionsSchema
//	  "at": "2026-11-23T00:53:54.123Z",  when the snapshot was taken
//	  "sessions": [                     every session owning a node in the
//	                                    watched queues, by "blocks" (most
//	                                    first: the session to look at
//	                                    first), then blocks_direct,
//	                                    oldest_wait, session
//	    {
//	      "session": "0x1000a...",     the session id
//	      "client": "10.0.0.7:4711",   its ip:port, "" when the servers do
//	                                   not tell (four-letter words)
//	      "identity": "broker 2",      the session as a system names it (its
//	                                   first node's identity, also on each
//	                                   node as "identity"); absent for a
//	                                   plain recipe
//	      "holds": [                   the nodes it holds, by path and
//	        {"path": "/locks/a",       sequence
//	         "node": "_c_...-lock-0000000007",
//	         "parent": "/sem/x/leases",  only when the node is not a child
//	                                   of path (a semaphore's nodes)
//	         "kind": "lease",          as ls --json: lease | mutex | read |
//	                                   write
//	         "admission_lock": true,   only on a semaphore's admission-lock
//	                                   node (its contender waits for a
//	                                   lease; not a lease itself)
//	         "since": "...",           when it took the lock, and how to
//	         "since_bound": "exact"}   read it: both as ls --json gives
//	      ],                           them (RFC 3339, UTC)
//	      "waits": [...],              the nodes it waits with, same
//	                                   fields; since: when it began waiting
//	      "waits_for": ["0x..."],      the sessions it waits for directly
//	      "blocks_direct": 1,          other sessions waiting for it directly
//	      "blocks": 4,                 other sessions waiting for it directly
//	                                   or through others
//	      "oldest_wait": 12.3,         seconds the longest-waiting session it
//	                                   blocks has waited; 0 when it blocks none
//	      "member": "zk2:2181",        as ls --json: the member it is
//	      "silent_s": 1.2,             connected to, seconds since that
//	      "timeout_s": 30,             member last heard it, its timeout,
//	      "expires_in_s": 28.8         seconds until the leader expires it
//	                                   if it stays silent; each absent where
//	                                   no member tells
//	    }
//	  ],
//	  "deadlocks": [                   cycles of the wait-for graph; [] when none
//	    {
//	      "sessions": ["0x1", "0x2"],  in wait order: each waits for the next,
//	                                   the last for the first; the lowest first
//	      "paths": ["/locks/b", "/locks/a"],  where they wait, in wait order
//	      "state": "deadlock",         deadlock: it has stood 5s or more with
//	                                   no handoff on any of its waits | cycle:
//	                                   younger, or its age unknown | self-wait:
//	                                   one session waits behind its own node
//	      "since": "...",              it has stood, unchanged, at least since
//	      "waits": [                   one per session, in wait order
//	        {"session": "0x1", "client": "...", "path": "/locks/b",
//	         "node": "...",            its waiting node
//	         "holder": "0x2",          the session it waits for
//	         "holder_node": "...",     the node it waits behind
//	         "since": "..."}           that wait has stood since
//	      ]
//	    }
//	  ]
//	}
//
// A session is not a thread: two threads of one process sharing one
// session show as one session that holds and waits, and a cycle through
// it may unwind by itself. How long a cycle has stood with no progress is
// what to judge by. Every string read from ZooKeeper is sanitized.
type JSONSessions struct {
	Schema    int            `json:"schema"`
	At        string         `json:"at"`
	Sessions  []JSONSession  `json:"sessions"`
	Deadlocks []JSONDeadlock `json:"deadlocks"`
}

// SessionsSchema is the version of JSONSessions, carried in its schema
// field. It changes only when a field changes meaning or goes away; new
// fields may appear within a version.
const SessionsSchema = 1

// JSONSession is one session of JSONSessions.
type JSONSession struct {
	Session      string            `json:"session"`
	Client       string            `json:"client"`
	Identity     string            `json:"identity,omitempty"`
	Holds        []JSONSessionNode `json:"holds"`
	Waits        []JSONSessionNode `json:"waits"`
	WaitsFor     []string          `json:"waits_for"`
	BlocksDirect int               `json:"blocks_direct"`
	Blocks       int               `json:"blocks"`
	OldestWait   float64           `json:"oldest_wait"`
	model.HealthJSON
}

// JSONSessionNode is one node a session holds or waits with.
type JSONSessionNode struct {
	Path       string `json:"path"`
	Node       string `json:"node"`
	Parent     string `json:"parent,omitempty"`
	Kind       string `json:"kind"`
	Admission  bool   `json:"admission_lock,omitempty"`
	Since      string `json:"since"`
	SinceBound string `json:"since_bound"`
	Identity   string `json:"identity,omitempty"`
}

// JSONDeadlock is one cycle of JSONSessions.
type JSONDeadlock struct {
	Sessions []string   `json:"sessions"`
	Paths    []string   `json:"paths"`
	State    string     `json:"state"`
	Since    string     `json:"since"`
	Waits    []JSONWait `json:"waits"`
}

// JSONWait is one wait of a JSONDeadlock.
type JSONWait struct {
	Session    string `json:"session"`
	Client     string `json:"client"`
	Path       string `json:"path"`
	Node       string `json:"node"`
	Holder     string `json:"holder"`
	HolderNode string `json:"holder_node"`
	Since      string `json:"since"`
}

// SessionsJSON turns a sessions view into `sessions --json`'s value.
func SessionsJSON(ss *Sessions) JSONSessions {
	out := JSONSessions{
		Schema:    SessionsSchema,
		At:        jsonTime(ss.At),
		Sessions:  make([]JSONSession, 0, len(ss.List)),
		Deadlocks: make([]JSONDeadlock, 0, len(ss.Deadlocks)),
	}
	nodes := func(ns []SessionNode) []JSONSessionNode {
		o := make([]JSONSessionNode, 0, len(ns))
		for _, n := range ns {
			jn := JSONSessionNode{Path: model.SanitizeString(n.Path, 0), Node: model.SanitizeString(n.Node, 0),
				Parent: model.SanitizeString(n.Parent, 0), Kind: n.Kind, Admission: n.Admission, Since: jsonTime(n.Since),
				Identity: model.SanitizeString(n.Identity, 0)}
			if !n.Since.IsZero() {
				jn.SinceBound = n.SinceBound.String()
			}
			o = append(o, jn)
		}
		return o
	}
	for _, s := range ss.List {
		js := JSONSession{
			Session:      model.SessionHex(s.Session),
			Client:       model.SanitizeString(s.Client, 0),
			Identity:     model.SanitizeString(s.Identity, 0),
			Holds:        nodes(s.Holds),
			Waits:        nodes(s.Waits),
			WaitsFor:     make([]string, 0, len(s.WaitsFor)),
			BlocksDirect: s.BlocksDirect,
			Blocks:       s.Blocks,
			OldestWait:   math.Round(s.OldestWait.Seconds()*1000) / 1000,
			HealthJSON:   s.Health.JSON(),
		}
		for _, w := range s.WaitsFor {
			js.WaitsFor = append(js.WaitsFor, model.SessionHex(w))
		}
		out.Sessions = append(out.Sessions, js)
	}
	for _, d := range ss.Deadlocks {
		jd := JSONDeadlock{State: d.State, Since: jsonTime(d.Since),
			Sessions: make([]string, 0, len(d.Sessions)), Paths: make([]string, 0, len(d.Paths)), Waits: make([]JSONWait, 0, len(d.Waits))}
		for _, s := range d.Sessions {
			jd.Sessions = append(jd.Sessions, model.SessionHex(s))
		}
		for _, p := range d.Paths {
			jd.Paths = append(jd.Paths, model.SanitizeString(p, 0))
		}
		for _, w := range d.Waits {
			jd.Waits = append(jd.Waits, JSONWait{
				Session: model.SessionHex(w.Session), Client: model.SanitizeString(w.Client, 0),
				Path: model.SanitizeString(w.Path, 0), Node: model.SanitizeString(w.Node, 0),
				Holder: model.SessionHex(w.Holder), HolderNode: model.SanitizeString(w.HolderNode, 0),
				Since: jsonTime(w.Since),
			})
		}
		out.Deadlocks = append(out.Deadlocks, jd)
	}
	return out
}

// jsonTime is a time as `--json` writes them: RFC 3339, UTC, milliseconds;
// "" when unknown.
func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(model.RFC3339Milli)
}
