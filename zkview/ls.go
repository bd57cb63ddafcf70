package zkview

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"zklock/lockops"
)

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
//	                                   unknown (no lock node, or no recipe
//	                                   explains the children). election:
//	                                   Curator LeaderLatch nodes, or a path
//	                                   the context's `elections:` names;
//	                                   its holder is the leader, its
//	                                   waiters the followers ("role" stays
//	                                   holder | waiting)
//	    "limit": 3,                    semaphores only: the number of leases,
//	                                   absent when unknown
//	    "limit_source": "deduced",     semaphores only: config (the context's
//	                                   `semaphores:`) | parent-data (Kazoo's
//	                                   max_leases) | deduced (a Curator lease
//	                                   waits: the limit is the other leases);
//	                                   absent when unknown
//	    "warnings": [                  [] when healthy
//	      {
//	        "code": "split-holders",   split-holders | deadlock | mixed-recipes |
//	                                   missing-watch | herd | stale |
//	                                   over-limit (more leases held than
//	                                   the semaphore's known limit) |
//	                                   self-wait (a node waits behind a node
//	                                   of its own session; nodes: the
//	                                   waiting ones)
//	        "message": "...",          one line, sanitized
//	        "nodes": ["..."]           the nodes concerned, in sequence order
//	                                   (deadlock: in wait order); [] for stale
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
//	        "role": "holder",          holder | waiting: by sequence order
//	        "session": "0x1000a...",   the node's ephemeralOwner ("0x0": a
//	                                   persistent node; "" when unread)
//	        "client": "10.0.0.7:4711", ip:port of that session, "" when the
//	                                   servers do not tell (four-letter words)
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
//	        "since": "2026-11-23T00:53:55.001Z", when it took its role
//	        "since_bound": "exact"     exact | earliest (the role began at
//	                                   or after since: a holder found
//	                                   holding, held at most now-since) |
//	                                   latest (began at or before since)
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
	Limit    int           `json:"limit,omitempty"`
	LimitSrc string        `json:"limit_source,omitempty"`
	Warnings []JSONWarning `json:"warnings"`
	Queue    []JSONNode    `json:"queue"`
	Other    []string      `json:"other"`
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
	Watches       string `json:"watches"`
	WatchVerified *bool  `json:"watch_verified"`
	Believes      string `json:"believes"`
	Data          string `json:"data"`
	Ctime         string `json:"ctime"`
	Since         string `json:"since"`
	SinceBound    string `json:"since_bound"`
}

// rfc3339Milli is RFC 3339 with ZooKeeper's millisecond precision.
const rfc3339Milli = "2006-01-02T15:04:05.000Z07:00"

// ToJSON turns a snapshot into `ls --json`'s value (see JSONPath).
func ToJSON(snap *Snapshot) []JSONPath {
	out := make([]JSONPath, 0, len(snap.Queues))
	for _, q := range snap.Queues {
		p := JSONPath{
			Schema:   LsSchema,
			Path:     SanitizeString(q.Path, 0),
			Exists:   q.State == PathPresent || q.State == PathNoAuth,
			Type:     q.Type.String(),
			Limit:    q.Limit,
			LimitSrc: q.LimitSource,
			Warnings: make([]JSONWarning, 0, len(q.Warnings)),
			Queue:    make([]JSONNode, 0, len(q.Nodes)),
			Other:    make([]string, 0, len(q.Other)),
		}
		for _, w := range q.Warnings {
			jw := JSONWarning{Code: w.Code, Message: SanitizeString(w.Message, 0), Nodes: make([]string, 0, len(w.Nodes))}
			for _, n := range w.Nodes {
				jw.Nodes = append(jw.Nodes, SanitizeString(n, 0))
			}
			p.Warnings = append(p.Warnings, jw)
		}
		for _, n := range q.Nodes {
			jn := JSONNode{
				Node:     SanitizeString(n.Name, 0),
				Seq:      n.Seq,
				Kind:     n.KindName(),
				Parent:   SanitizeString(n.Parent, 0),
				Recipe:   n.Recipe.String(),
				Role:     n.Role.String(),
				Client:   SanitizeString(n.Client, 0),
				Watches:  SanitizeString(n.Watches, 0),
				Believes: n.Believes.String(),
				Data:     n.DataText(0),
			}
			if !n.Ctime.IsZero() {
				jn.Session = fmt.Sprintf("0x%x", n.Session)
				jn.Ctime = n.Ctime.UTC().Format(rfc3339Milli)
			} else if n.Name == "" {
				jn.Session = fmt.Sprintf("0x%x", n.Session) // a waiter known by its session only
			}
			if start, b := n.Tenure(); !start.IsZero() {
				jn.Since, jn.SinceBound = start.UTC().Format(rfc3339Milli), b.String()
			}
			switch n.Link {
			case LinkVerified:
				jn.WatchVerified = new(bool)
				*jn.WatchVerified = true
			case LinkMissing:
				jn.WatchVerified = new(bool)
			}
			p.Queue = append(p.Queue, jn)
		}
		for _, o := range q.Other {
			p.Other = append(p.Other, SanitizeString(o, 0))
		}
		out = append(out, p)
	}
	return out
}

// WriteJSON writes `ls --json` (see JSONPath for the schema).
func WriteJSON(w io.Writer, snap *Snapshot) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ToJSON(snap)); err != nil {
		return fmt.Errorf("zkview: write json: %w", err)
	}
	return nil
}

// CheckCode is `ls --check`'s exit code: 2 when any queue has a
// split-holders, deadlock, missing-watch or over-limit warning, or the
// sessions show a cross-lock deadlock (DeadlockCode), else 0.
func CheckCode(snap *Snapshot) int {
	for _, q := range snap.Queues {
		for _, w := range q.Warnings {
			switch w.Code {
			case WarnSplitHolders, WarnDeadlock, WarnMissingWatch, WarnOverLimit:
				return 2
			}
		}
	}
	return DeadlockCode(snap)
}

// WriteText writes `ls`: per path a heading, its warnings, and a table of
// its queue in sequence order. Every text read from ZooKeeper is
// sanitized.
func WriteText(w io.Writer, snap *Snapshot) error {
	var b strings.Builder
	switch {
	case snap.ServerView:
		fmt.Fprintf(&b, "server view: cons/wchc at %s", snap.ServerViewAt.Format("15:04:05"))
		if snap.ServerViewNote != "" {
			fmt.Fprintf(&b, " (%s)", SanitizeString(snap.ServerViewNote, 0))
		}
		b.WriteString("\n")
	case snap.ServerViewNote != "":
		fmt.Fprintf(&b, "server view: off: %s\n", SanitizeString(snap.ServerViewNote, 0))
	}
	if snap.Stale {
		fmt.Fprintf(&b, "STALE: %s since %s\n", snap.Conn.State, snap.Conn.Since.Format("15:04:05"))
	}
	if snap.DiscoveryCapped {
		b.WriteString("discovery stopped at its bound: more lock parents may exist\n")
	}
	for i, q := range snap.Queues {
		if i > 0 || b.Len() > 0 {
			b.WriteString("\n")
		}
		writeQueueText(&b, q, snap.At)
	}
	if len(snap.Queues) == 0 {
		b.WriteString("no lock parents\n")
	}
	for _, d := range snap.Deadlocks {
		// Across queues: spelled out by `zklock sessions`.
		fmt.Fprintf(&b, "\nsessions: %s\n", DeadlockText(d, snap.At))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("zkview: write text: %w", err)
	}
	return nil
}

func writeQueueText(b *strings.Builder, q Queue, now time.Time) {
	path := SanitizeString(q.Path, 0)
	switch q.State {
	case PathAbsent:
		fmt.Fprintf(b, "%s: does not exist\n", path)
		return
	case PathNoAuth:
		fmt.Fprintf(b, "%s: no permission to list (%s)\n", path, SanitizeString(q.Err, 0))
		return
	case PathError:
		fmt.Fprintf(b, "%s: error: %s\n", path, SanitizeString(q.Err, 0))
		return
	case PathPending:
		fmt.Fprintf(b, "%s: not read yet\n", path)
		return
	}
	holders := 0
	for _, n := range q.Nodes {
		if n.Role == lockops.RoleHolder {
			holders++
		}
	}
	if q.Type == TypeElection {
		fmt.Fprintf(b, "%s: election, %d participants, %d leading, %d following\n", path, len(q.Nodes), holders, len(q.Nodes)-holders)
	} else if q.Type == TypeSemaphore {
		_, waiting := q.LeaseCounts()
		fmt.Fprintf(b, "%s: semaphore, holders %s%s, %d waiting\n", path, q.LimitText(), limitFrom(q.LimitSource), waiting)
	} else {
		fmt.Fprintf(b, "%s: %d lock nodes, %d holding, %d waiting\n", path, len(q.Nodes), holders, len(q.Nodes)-holders)
	}
	for _, w := range q.Warnings {
		fmt.Fprintf(b, "  WARNING %s: %s\n", w.Code, SanitizeString(w.Message, 0))
	}
	if len(q.Nodes) > 0 {
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tSEQ\tROLE\tKIND\tRECIPE\tSESSION\tCLIENT\tWAITS ON\tAGE\tDATA\tNODE")
		for i, n := range q.Nodes {
			role := RoleWord(q.Type, n.Role)
			if n.Believes != n.Role {
				role += " (believes " + RoleWord(q.Type, n.Believes) + ")"
			}
			seq, node := strconv.Itoa(int(n.Seq)), SanitizeString(n.RelName(q.Path), 0)
			if n.Recipe == lockops.RecipeEphemeral || n.Lease && n.Recipe == lockops.RecipeKazoo {
				seq = "-" // the plain ephemeral lock's node has no sequence
			}
			if n.Name == "" {
				node = "- (no node: an exists watch)"
			}
			waits := "-"
			switch {
			case n.WatchesChildren():
				waits = "children of " + SanitizeString(n.Watches, 0) + " " + n.Link.String()
			case n.Watches != "":
				waits = NodeRef(n.Watches, 24) + " " + n.Link.String()
			}
			if n.Herd {
				waits += " HERD"
			}
			session, client := "-", "-"
			if !n.Ctime.IsZero() || n.Name == "" {
				session = fmt.Sprintf("0x%x", n.Session)
			}
			if n.Client != "" {
				client = SanitizeString(n.Client, 0)
			}
			data := n.DataText(32)
			if data == "" {
				data = "-"
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, seq, role, n.KindName(), n.Recipe,
				session, client, waits, age(n, now), data, node)
		}
		tw.Flush()
	}
	if len(q.Other) > 0 {
		others := make([]string, len(q.Other))
		for i, o := range q.Other {
			others[i] = SanitizeString(o, 0)
		}
		fmt.Fprintf(b, "  other children: %s\n", strings.Join(others, ", "))
	}
}

// age is "held 1.2s" (or "held ≤2.0s" for a holder found holding, bounded
// by its creation; see Node.Tenure) or "waits 3.0s".
func age(n Node, now time.Time) string {
	t := n.TenureText(now)
	switch {
	case t == "":
		return "-"
	case n.Role == lockops.RoleHolder:
		return "held " + t
	}
	return "waits " + t
}

// limitFrom is " (deduced)" and the like after a semaphore's limit.
func limitFrom(src string) string {
	if src == "" {
		return ""
	}
	return " (" + src + ")"
}
