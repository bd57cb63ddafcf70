package model

import "fmt"

// JSONPath is one lock parent in `zklock ls --json`. The output is a JSON
// array with one object per path, sorted by path:
//
//	[
//	  {
//	    "schema": 1,                   LsSchema, in every path object
//	    "path": "/locks/job",          the lock parent
//	    "exists": true,                false when the path does not exist
//	                                   (also while it was never read)
//	    "type": "mutex",               mutex | rwlock | semaphore | election |
//	                                   queue (a system's entries taken in
//	                                   order: ClickHouse's DDL queue) |
//	                                   unknown (no lock node, or no recipe
//	                                   explains the children). election:
//	                                   Curator LeaderLatch nodes, or a path
//	                                   the context's `elections:` names;
//	                                   its holder is the leader, its
//	                                   waiters the followers ("role" stays
//	                                   holder | waiting). The library
//	                                   recipes that are no lock (see
//	                                   docs/recipes.md): barrier | queue |
//	                                   membership | counter | lease
//	    "system": "solr",              the system whose layout the path
//	                                   follows: kafka | hbase | solr |
//	                                   hadoop-ha | clickhouse | druid |
//	                                   flink | nifi | storm | helix |
//	                                   pulsar | mesos | marathon; absent for
//	                                   a plain library recipe
//	    "label": "solr overseer",      the system's coordination named for a
//	                                   person ("hdfs ns1", "kafka
//	                                   controller"); with system only
//	    "limit": 3,                    semaphores only: the number of leases,
//	                                   absent when unknown
//	    "limit_source": "deduced",     semaphores only: config (the context's
//	                                   `semaphores:`) | parent-data (Kazoo's
//	                                   max_leases) | deduced (a Curator lease
//	                                   waits: the limit is the other leases);
//	                                   absent when unknown
//	    "ready": false,                barrier: a double barrier's ready node
//	    "entered": 2,                  exists / its participants (neither
//	                                   library stores how many it needs)
//	    "set": true,                   barrier: a single barrier (a path the
//	    "waiters": 2,                  context's `barriers:` names) exists /
//	                                   the sessions the servers show
//	                                   waiting on it (absent without the
//	                                   server view); set false: open
//	    "value": 42,                   counter: its value
//	    "holder": "worker-1",          lease: its holder and the end of its
//	    "expires": "2026-...Z"         lease (UTC; past it, free to take)
//	    "depth": 3,                    queue: its items (taken ones too),
//	    "oldest": "2026-...Z"          and the oldest one's ctime
//	    "warnings": [                  [] when healthy
//	      {
//	        "code": "split-holders",   split-holders | deadlock | mixed-recipes |
//	                                   missing-watch | herd | stale |
//	                                   over-limit (more leases held than
//	                                   the semaphore's known limit) |
//	                                   self-wait (a node waits behind a node
//	                                   of its own session; nodes: the
//	                                   waiting ones) | leader-mismatch (a
//	                                   system's leader record disagrees
//	                                   with its election; message names
//	                                   both; `ls --check` fails once it
//	                                   has lasted 10 s)
//	        "message": "...",          one line, sanitized
//	        "nodes": ["..."]           the nodes concerned, in sequence order
//	                                   (deadlock: in wait order); [] for stale;
//	                                   leader-mismatch: full paths, the
//	                                   record then the election's holder
//	        "since": "2026-...Z"       leader-mismatch only: first seen
//	                                   (RFC 3339, UTC)
//	      }
//	    ],
//	    "queue": [                     lock nodes in sequence order (the
//	                                   parsed 32-bit sequence, wrap-aware).
//	                                   A semaphore: its lease holders, then
//	                                   its waiters in the order they will
//	                                   be served (a Curator lease created
//	                                   beyond the limit, then the admission
//	                                   lock's nodes, its holder first: it
//	                                   waits for a lease)
//	      {
//	        "node": "_c_...-lock-0000000007",  the child's name ("" for a
//	                                   waiter of a plain ephemeral lock: it
//	                                   owns no node; the path's last element
//	                                   when the watched path is itself the
//	                                   ephemeral lock node)
//	        "seq": 7,                  the sequence ZooKeeper appended (may be
//	                                   negative after the counter wraps; 0
//	                                   for the plain ephemeral lock, whose
//	                                   node has none)
//	        "kind": "mutex",           mutex | read | write (a LeaderLatch
//	                                   participant is a mutex node) | lease
//	                                   (a semaphore's lease node; Kazoo's
//	                                   have no sequence: seq 0)
//	        "parent": "/sem/x/locks",  only when the node is not a child of
//	                                   path: a semaphore's leases/ or locks/
//	                                   (Curator), <path>-__lock__ (Kazoo)
//	        "recipe": "curator",       curator | kazoo | gozk | plain |
//	                                   ephemeral (the plain ephemeral-node
//	                                   lock: one ephemeral node, its
//	                                   waiters the sessions the servers
//	                                   show watching it, flagged herd)
//	        "role": "holder",          holder | waiting: by sequence order;
//	                                   in a recipe that is no lock its part:
//	                                   entered | member | item | taken | lease
//	                                   | barrier (a single barrier's node) |
//	                                   waiter (a session waiting on it: it
//	                                   owns no node, "node" is "")
//	        "session": "0x1000a...",   the node's ephemeralOwner ("0x0": a
//	                                   persistent node; "" when unread)
//	        "client": "10.0.0.7:4711", ip:port of that session, "" when the
//	                                   servers do not tell (four-letter words)
//	        "identity": "broker 2",    the participant as its system names
//	                                   it (Kafka broker, Solr node name,
//	                                   NameNode id and host, ClickHouse
//	                                   replica); absent when unknown
//	        "watches": "...",          the node it waits on by its own recipe's
//	                                   rule; "" when it believes it holds; a
//	                                   path (leading "/") for a children
//	                                   watch on it: a semaphore's lease
//	                                   waiter (never verified: `wchc` lists
//	                                   data watches only)
//	        "watch_verified": true,    true: its session has that watch on the
//	                                   servers; false: it has not (a waiter
//	                                   that will never wake); null for a
//	                                   holder, or when the servers do not tell
//	        "believes": "holder",      holder | waiting: by its own recipe
//	                                   (differs from role only in a split queue)
//	        "data": "user@host pid 42",  the first bytes of its data as
//	                                   sanitized text ("…" when cut)
//	        "ctime": "2026-11-23T00:53:54.123Z"  creation, RFC 3339, UTC
//	        "czxid": 4294967310,       the zxid that created the node: its
//	                                   holder's fencing token (a number; 0
//	                                   when unread)
//	        "since": "2026-11-23T00:53:55.001Z", when it took its role
//	        "since_bound": "exact"     exact | earliest (the role began at
//	                                   or after since: a holder found
//	                                   holding, held at most now-since) |
//	                                   latest (began at or before since)
//	        "member": "zk2:2181",      the member its session is connected
//	                                   to; this and the three below are
//	                                   absent where no member tells
//	        "silent_s": 14.2,          seconds since that member last heard
//	                                   the session (cons lresp, AdminServer
//	                                   last_response_time), as of the read
//	        "timeout_s": 30,           its negotiated session timeout
//	        "expires_in_s": 15.8       seconds until the leader expires the
//	                                   session if it stays silent (its
//	                                   expiry bucket; within a tick)
//	      }
//	    ],
//	    "other": ["stray"]             children that are not lock nodes (a
//	                                   semaphore's are read, not listed;
//	                                   strays below it by their path from
//	                                   here: "leases/x")
//	  }
//	]
//
// Every string read from ZooKeeper (path, node, watches, data, other)
// went through SanitizeString: control characters, escape sequences and
// invalid UTF-8 appear escaped (`\x1b`), never raw.
type JSONPath struct {
	Schema   int           `json:"schema"`
	Path     string        `json:"path"`
	Exists   bool          `json:"exists"`
	Type     string        `json:"type"`
	System   string        `json:"system,omitempty"`
	Label    string        `json:"label,omitempty"`
	Limit    int           `json:"limit,omitempty"`
	LimitSrc string        `json:"limit_source,omitempty"`
	Warnings []JSONWarning `json:"warnings"`
	Queue    []JSONNode    `json:"queue"`
	Other    []string      `json:"other"`
	JSONFacts
}

// LsSchema is the version of JSONPath, carried by every path object of
// `zklock ls --json` (and of replay's snapshot lines). It changes only
// when a field changes meaning or goes away; new fields may appear
// within a version.
const LsSchema = 1

// JSONWarning is one warning of a JSONPath.
type JSONWarning struct {
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Nodes   []string `json:"nodes"`
	Since   string   `json:"since,omitempty"`
}

// JSONNode is one lock node of a JSONPath's queue.
type JSONNode struct {
	Node          string `json:"node"`
	Seq           int32  `json:"seq"`
	Kind          string `json:"kind"`
	Parent        string `json:"parent,omitempty"`
	Recipe        string `json:"recipe"`
	Role          string `json:"role"`
	Session       string `json:"session"`
	Client        string `json:"client"`
	Identity      string `json:"identity,omitempty"`
	Watches       string `json:"watches"`
	WatchVerified *bool  `json:"watch_verified"`
	Believes      string `json:"believes"`
	Data          string `json:"data"`
	Ctime         string `json:"ctime"`
	Czxid         int64  `json:"czxid"`
	Since         string `json:"since"`
	SinceBound    string `json:"since_bound"`
	HealthJSON
}

// rfc3339Milli is RFC 3339 with ZooKeeper's millisecond precision.
const RFC3339Milli = "2006-01-02T15:04:05.000Z07:00"

// ToJSON turns a snapshot into `ls --json`'s value (see JSONPath).
func ToJSON(snap *Snapshot) []JSONPath {
	out := make([]JSONPath, 0, snap.Queues.Len())
	for _, q := range snap.Queues.All() {
		out = append(out, PathJSON(q))
	}
	return out
}

// PathJSON is one queue's object of `ls --json` (see JSONPath): a writer
// of many lock parents turns them one at a time, holding one, not all.
func PathJSON(q *Queue) JSONPath {
	p := JSONPath{
		Schema:    LsSchema,
		Path:      SanitizeString(q.Path, 0),
		Exists:    q.State == PathPresent || q.State == PathNoAuth,
		Type:      q.Type.String(),
		System:    q.System(),
		Label:     SanitizeString(q.Label(), 0),
		Limit:     q.Limit(),
		LimitSrc:  q.LimitSource(),
		Warnings:  make([]JSONWarning, 0, len(q.Warnings())),
		Queue:     make([]JSONNode, 0, q.Nodes.Len()),
		Other:     make([]string, 0, len(q.Other())),
		JSONFacts: factsJSON(q.Facts()),
	}
	for _, w := range q.Warnings() {
		p.Warnings = append(p.Warnings, w.JSON())
	}
	for _, n := range q.Nodes.All() {
		p.Queue = append(p.Queue, nodeJSON(n))
	}
	for _, o := range q.Other() {
		p.Other = append(p.Other, SanitizeString(o, 0))
	}
	return p
}

// JSON is w as `ls --json` writes it (JSONWarning), its strings
// sanitized; `zklock why -o json` writes a lock's warnings the same way.
func (w Warning) JSON() JSONWarning {
	jw := JSONWarning{Code: w.Code, Message: SanitizeString(w.Message, 0), Nodes: make([]string, 0, len(w.Nodes))}
	if !w.Since.IsZero() {
		jw.Since = w.Since.UTC().Format(RFC3339Milli)
	}
	for _, n := range w.Nodes {
		jw.Nodes = append(jw.Nodes, SanitizeString(n, 0))
	}
	return jw
}

// nodeJSON is one lock node of a JSONPath's queue.
func nodeJSON(n *Node) JSONNode {
	jn := JSONNode{
		Node:     SanitizeString(n.Name, 0),
		Seq:      n.Seq,
		Kind:     n.KindName(),
		Parent:   SanitizeString(n.Parent(), 0),
		Recipe:   n.Recipe.String(),
		Role:     n.Role.String(),
		Client:   SanitizeString(n.Client(), 0),
		Identity: SanitizeString(n.Identity(), 0),
		Watches:  SanitizeString(n.Watches(), 0),
		Believes: n.Believes.String(),
		Data:     n.DataText(0),
		Czxid:    n.Czxid,
	}
	jn.HealthJSON = n.Health().JSON()
	if n.Part() != "" {
		jn.Role = n.Part()
	}
	if !n.Ctime().IsZero() {
		jn.Session = fmt.Sprintf("0x%x", n.Session)
		jn.Ctime = n.Ctime().UTC().Format(RFC3339Milli)
	} else if n.Name == "" {
		jn.Session = fmt.Sprintf("0x%x", n.Session) // a waiter known by its session only
	}
	if start, b := n.Tenure(); !start.IsZero() {
		jn.Since, jn.SinceBound = start.UTC().Format(RFC3339Milli), b.String()
	}
	switch n.Link {
	case LinkVerified:
		jn.WatchVerified = new(bool)
		*jn.WatchVerified = true
	case LinkMissing:
		jn.WatchVerified = new(bool)
	}
	return jn
}
