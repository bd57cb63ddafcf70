package timeline

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
)

// StreamSchema is the version of the `zklock watch --json` object (the
// "schema" field of every line). It changes only when a field changes
// meaning or goes away; new fields may appear within one version.
const StreamSchema = 1

// ChangeKind is what happened, as `watch --json` names it in "event".
type ChangeKind int

const (
	// ChangeJoined: a lock node appeared in a queue.
	ChangeJoined ChangeKind = iota
	// ChangeAcquired: a node became a holder (by sequence order).
	ChangeAcquired
	// ChangeReleased: a holder's node went away.
	ChangeReleased
	// ChangeGaveUp: a waiter's node went away before it held.
	ChangeGaveUp
	// ChangeSessionLost: a node went away with its session (see Diff for
	// when the model can tell).
	ChangeSessionLost
	ChangeWarningRaised
	ChangeWarningCleared
	// ChangeStale: the Watcher lost its link; the model may be out of
	// date until ChangeFresh.
	ChangeStale
	ChangeFresh
	// ChangePathAppeared: a watched lock parent came into existence (or
	// a lock parent under a root got its first lock node).
	ChangePathAppeared
	// ChangePathVanished: a lock parent was deleted (or left the model).
	ChangePathVanished
	// ChangeAdmitted: a semaphore contender's node left the admission
	// lock because its contender got a lease (Change.Lease): it did not
	// give up, and it never held anything itself.
	ChangeAdmitted
)

func (k ChangeKind) String() string {
	switch k {
	case ChangeJoined:
		return "joined"
	case ChangeAcquired:
		return "acquired"
	case ChangeReleased:
		return "released"
	case ChangeGaveUp:
		return "gave-up"
	case ChangeSessionLost:
		return "session-lost"
	case ChangeWarningRaised:
		return "warning-raised"
	case ChangeWarningCleared:
		return "warning-cleared"
	case ChangeStale:
		return "stale"
	case ChangeFresh:
		return "fresh"
	case ChangePathAppeared:
		return "path-appeared"
	case ChangePathVanished:
		return "path-vanished"
	case ChangeAdmitted:
		return "admitted"
	}
	return "unknown"
}

// Change is one thing that happened between two snapshots.
type Change struct {
	Kind ChangeKind
	At   time.Time // the snapshot that showed it (Snapshot.At)
	Path string
	Type model.QueueType
	// Node is the node concerned, as the newer snapshot shows it (as the
	// older one did for a node that went away).
	Node model.Node
	// From is the node whose release let Node hold (acquired), "" when
	// the Watcher did not see one.
	From string
	// Lease is the lease an admitted contender got (admitted).
	Lease string
	// Held is how long a node that went away had held; Waited how long a
	// node that acquired or went away had waited. Zero when the start of
	// the role is not known exactly.
	Held, Waited time.Duration
	Warning      model.Warning   // warning-raised, warning-cleared
	Conn         model.Conn      // stale, fresh
	State        model.PathState // path-appeared, path-vanished
}

// Diff tells what changed from prev to next, in a stable order: the
// connection first, then per path (sorted) its appearance, the nodes that
// went away (in prev's order), the nodes that took the lock, the nodes
// that joined (each joined node followed by its acquisition when it
// holds), the semaphore contenders admitted (after the lease each got),
// the warnings cleared, then raised, and its disappearance.
//
// Nodes are matched by identity (their parent and name; a waiter of a
// plain ephemeral lock, which owns no node, by its session), so a
// snapshot that merged several changes still yields each node's joined,
// acquired and released once. What the merged snapshots hid stays hidden
// (a node that joined and left between them), except a waiter that took
// the lock and left between them: the queue's handoff history says so,
// and it is told acquired, then released.
//
// prev nil is the start: nothing has changed yet. A queue read for the
// first time (not in prev, or not read yet there) tells as joined only
// its nodes created after prev was taken; the others were there before
// the watch began. Paths that cannot be read in next (pending, NoAuth,
// an error) tell no node change: nothing is known of them.
//
// session-lost: ZooKeeper deletes an ephemeral node that way, and no
// listing tells it from a delete. The model says session-lost when every
// node of a session went away in one step and there were two or more (a
// client does not release two locks in one request; a session's end
// removes them together; a semaphore contender's nodes in one semaphore,
// its admission-lock node and its lease, count as one: its client deletes
// both when it gives up). Otherwise the node is released or gave-up;
// or admitted: a node of a semaphore's admission lock that left once its
// session held a lease made after it (see admissions), which did not
// give up.
//
// The per-queue warning `stale` is not told: the connection's stale and
// fresh say it once for every queue.
//
// Snapshots are immutable: Diff only reads them.
func Diff(prev, next *model.Snapshot) []Change {
	if prev == nil || next == nil {
		return nil
	}
	at := next.At
	var out []Change
	switch {
	case !prev.Stale && next.Stale:
		out = append(out, Change{Kind: ChangeStale, At: at, Conn: next.Conn})
	case prev.Stale && !next.Stale:
		out = append(out, Change{Kind: ChangeFresh, At: at, Conn: next.Conn})
	}
	lost := lostSessions(prev, next)
	i, j := 0, 0
	for i < prev.Queues.Len() || j < next.Queues.Len() {
		var pq, nq *model.Queue
		switch {
		case i == prev.Queues.Len():
			nq = next.Queues.At(j)
			j++
		case j == next.Queues.Len():
			pq = prev.Queues.At(i)
			i++
		case prev.Queues.At(i).Path == next.Queues.At(j).Path:
			pq, nq = prev.Queues.At(i), next.Queues.At(j)
			i++
			j++
		case prev.Queues.At(i).Path < next.Queues.At(j).Path:
			pq = prev.Queues.At(i)
			i++
		default:
			nq = next.Queues.At(j)
			j++
		}
		if pq != nil && nq != nil && sameQueue(pq, nq) {
			continue
		}
		out = diffQueue(out, prev.At, at, pq, nq, lost)
	}
	return out
}

// sameQueue reports, cheaply, that the watcher published the very same
// queue again (it reuses a queue that did not change).
func sameQueue(a, b *model.Queue) bool {
	return a.State == b.State && len(a.Warnings) == len(b.Warnings) &&
		len(a.Handoffs) == len(b.Handoffs) && a.Nodes.Shares(b.Nodes) &&
		(len(a.Warnings) == 0 || &a.Warnings[0] == &b.Warnings[0]) &&
		(len(a.Handoffs) == 0 || &a.Handoffs[0] == &b.Handoffs[0])
}

// exists is a path's existence as `ls --json` says it.
func exists(q *model.Queue) bool {
	return q != nil && (q.State == model.PathPresent || q.State == model.PathNoAuth)
}

// diffQueue appends the changes of one path; pq or nq is nil when the
// path is not in that snapshot.
func diffQueue(out []Change, prevAt, at time.Time, pq, nq *model.Queue, lost map[int64]bool) []Change {
	q := nq
	if q == nil {
		q = pq
	}
	base := Change{At: at, Path: q.Path, Type: q.Type}
	if base.Type == model.TypeUnknown && pq != nil {
		base.Type = pq.Type // a queue that just emptied is still what it was
	}
	// Nodes are known in a snapshot when the path was listed, or seen
	// absent (known empty); unknown while pending, NoAuth or in error.
	known := func(x *model.Queue) bool {
		return x != nil && (x.State == model.PathPresent || x.State == model.PathAbsent)
	}
	gone := nq == nil // left the model: as if deleted

	prevKnown := known(pq) && pq.State == model.PathPresent
	firstRead := !known(pq) && nq != nil && nq.State == model.PathPresent

	if pq != nil && pq.State == model.PathAbsent && exists(nq) {
		c := base
		c.Kind, c.State = ChangePathAppeared, nq.State
		out = append(out, c)
	}
	if firstRead && pq == nil && hasNodeAfter(nq, prevAt) {
		// A lock parent under a root met for the first time: it appears
		// with its first node.
		c := base
		c.Kind, c.State = ChangePathAppeared, nq.State
		out = append(out, c)
	}

	switch {
	case firstRead:
		for _, n := range nq.Nodes.All() {
			if n.Ctime.IsZero() || !n.Ctime.After(prevAt) {
				continue // there before the watch began
			}
			out = appendJoined(out, base, n, nq)
		}
	case prevKnown && (gone || known(nq)):
		var next model.Nodes
		if !gone && nq.State == model.PathPresent {
			next = nq.Nodes
		}
		out = diffNodes(out, base, prevAt, pq, nq, next, lost)
	case pq != nil && pq.State == model.PathAbsent && nq != nil && nq.State == model.PathPresent:
		for _, n := range nq.Nodes.All() {
			out = appendJoined(out, base, n, nq)
		}
	}

	out = diffWarnings(out, base, pq, nq)

	if exists(pq) && (nq == nil || nq.State == model.PathAbsent) {
		c := base
		c.Kind, c.State = ChangePathVanished, model.PathAbsent
		out = append(out, c)
	}
	return out
}

// hasNodeAfter reports whether q has a node created after t.
func hasNodeAfter(q *model.Queue, t time.Time) bool {
	for _, n := range q.Nodes.All() {
		if c := n.Ctime; !c.IsZero() && c.After(t) {
			return true
		}
	}
	return false
}

// diffNodes compares a queue's nodes by identity; nq may be nil (the
// queue left the model), next is its node list (nil when gone). A
// semaphore contender admitted to a lease is told after the lease's own
// changes: it leaves the admission lock once it holds the lease.
func diffNodes(out []Change, base Change, prevAt time.Time, pq, nq *model.Queue, next model.Nodes, lost map[int64]bool) []Change {
	at := base.At
	nextBy := make(map[string]*model.Node, next.Len())
	for _, n := range next.All() {
		nextBy[n.Key()] = n
	}
	prevBy := make(map[string]*model.Node, pq.Nodes.Len())
	for _, p := range pq.Nodes.All() {
		prevBy[p.Key()] = p
	}
	var admitted []Change
	adm := admissions{pq: pq, prevBy: prevBy, next: next}
	// Departures, in the previous order.
	for _, p := range pq.Nodes.All() {
		if _, ok := nextBy[p.Key()]; ok {
			continue
		}
		wasHolder := p.Role == lockops.RoleHolder
		if !wasHolder && nq != nil {
			// It may have held between the two snapshots: the handoff
			// history knows.
			if h, ok := handoffTo(nq, p.Name, prevAt); ok {
				out = appendTransient(out, base, p, h, at, lost[p.Session])
				continue
			}
		}
		c := base
		c.Node = *p
		switch {
		case lost[p.Session]:
			c.Kind = ChangeSessionLost
		case wasHolder:
			c.Kind = ChangeReleased
		default:
			c.Kind = ChangeGaveUp
			if lease, ok := adm.leaseOf(p); ok {
				c.Kind, c.Lease = ChangeAdmitted, lease
			}
		}
		if wasHolder {
			c.Held = held(p, at)
		} else {
			c.Waited = waited(p, at)
		}
		if c.Kind == ChangeAdmitted {
			admitted = append(admitted, c)
			continue
		}
		out = append(out, c)
	}
	if nq == nil {
		return out
	}
	// Nodes that were there and took the lock.
	for _, n := range next.All() {
		p, ok := prevBy[n.Key()]
		if !ok || p.Role == lockops.RoleHolder || n.Role != lockops.RoleHolder {
			continue
		}
		c := base
		c.Kind, c.Node = ChangeAcquired, *n
		if h, ok := handoffTo(nq, n.Name, prevAt); ok {
			c.From = h.From
		}
		c.Waited = waited(p, acquiredAt(n, at))
		out = append(out, c)
	}
	// Nodes that joined.
	for _, n := range next.All() {
		if _, ok := prevBy[n.Key()]; ok {
			continue
		}
		out = appendJoined(out, base, n, nq)
	}
	return append(out, admitted...)
}

// appendTransient tells a waiter that took the lock and let it go
// between two snapshots (h: its handoff): acquired, then released (or
// session-lost).
func appendTransient(out []Change, base Change, p *model.Node, h model.Handoff, at time.Time, lost bool) []Change {
	c := base
	c.Kind, c.Node, c.From = ChangeAcquired, *p, h.From
	c.Node.Role = lockops.RoleHolder
	c.Waited = waited(p, h.At)
	out = append(out, c)
	c = base
	c.Kind, c.Node = ChangeReleased, *p
	c.Node.Role = lockops.RoleHolder
	if lost {
		c.Kind = ChangeSessionLost
	}
	c.Held = at.Sub(h.At)
	return append(out, c)
}

// appendJoined tells a new node: joined, then acquired when it holds.
func appendJoined(out []Change, base Change, n *model.Node, q *model.Queue) []Change {
	c := base
	c.Kind, c.Node = ChangeJoined, *n
	out = append(out, c)
	if n.Role == lockops.RoleHolder {
		c.Kind = ChangeAcquired
		if h, ok := handoffTo(q, n.Name, time.Time{}); ok {
			c.From = h.From
		}
		if !n.Ctime.IsZero() && n.SinceExact && n.Since.After(n.Ctime) {
			c.Waited = n.Since.Sub(n.Ctime)
		}
		out = append(out, c)
	}
	return out
}

// handoffTo finds the newest handoff of q to node seen after t.
func handoffTo(q *model.Queue, node string, t time.Time) (model.Handoff, bool) {
	if node == "" {
		return model.Handoff{}, false
	}
	for k := len(q.Handoffs) - 1; k >= 0; k-- {
		h := q.Handoffs[k]
		if !h.At.After(t) {
			break
		}
		if h.To == node {
			return h, true
		}
	}
	return model.Handoff{}, false
}

// acquiredAt is when a holder took the lock: its exact Since, else at.
func acquiredAt(n *model.Node, at time.Time) time.Time {
	if n.SinceExact && !n.Since.IsZero() {
		return n.Since
	}
	return at
}

// held is how long a holder held until at, 0 when its start is unknown.
func held(n *model.Node, at time.Time) time.Duration {
	if start, b := n.Tenure(); b == model.BoundExact && !start.IsZero() && at.After(start) {
		return at.Sub(start)
	}
	return 0
}

// waited is how long a waiter waited until at: from its creation.
func waited(n *model.Node, at time.Time) time.Duration {
	start := n.Ctime
	if start.IsZero() && n.SinceExact {
		start = n.Since
	}
	if start.IsZero() || !at.After(start) {
		return 0
	}
	return at.Sub(start)
}

// lostSessions are the sessions whose nodes all went away from prev to
// next, two or more of them (see Diff). A session with a node on a path
// whose nodes next does not know may still own it: not lost.
func lostSessions(prev, next *model.Snapshot) map[int64]bool {
	type count struct{ had, left int }
	var counts map[int64]*count
	for _, q := range prev.Queues.All() {
		var once map[int64]bool // a semaphore's sessions counted
		for _, n := range q.Nodes.All() {
			s := n.Session
			if s == 0 {
				continue
			}
			if counts == nil {
				counts = map[int64]*count{}
			}
			c := counts[s]
			if c == nil {
				c = &count{}
				counts[s] = c
			}
			if q.Type == model.TypeSemaphore {
				// A contender's admission-lock node and its lease are one
				// acquisition, which its client ends with two deletes.
				if once[s] {
					continue
				}
				if once == nil {
					once = map[int64]bool{}
				}
				once[s] = true
			}
			c.had++
		}
	}
	if counts == nil {
		return nil
	}
	for _, q := range next.Queues.All() {
		if q.State != model.PathPresent && q.State != model.PathAbsent {
			// Unknown: count its sessions' previous nodes there as left.
			for _, pq := range prev.Queues.All() {
				if pq.Path != q.Path {
					continue
				}
				for _, n := range pq.Nodes.All() {
					if c := counts[n.Session]; c != nil {
						c.left++
					}
				}
			}
			continue
		}
		for _, n := range q.Nodes.All() {
			if c := counts[n.Session]; c != nil {
				c.left++
			}
		}
	}
	var lost map[int64]bool
	for s, c := range counts {
		if c.had >= 2 && c.left == 0 {
			if lost == nil {
				lost = map[int64]bool{}
			}
			lost[s] = true
		}
	}
	return lost
}

// diffWarnings tells the warning codes a queue cleared, then raised.
// A code is one incident while it stays on the queue, whatever nodes it
// names; a queue that left the model clears its warnings.
func diffWarnings(out []Change, base Change, pq, nq *model.Queue) []Change {
	var before, after []model.Warning
	if pq != nil {
		before = pq.Warnings
	}
	if nq != nil {
		after = nq.Warnings
	}
	has := func(ws []model.Warning, code string) bool {
		for _, w := range ws {
			if w.Code == code {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	for _, w := range before {
		if w.Code == model.WarnStale || seen[w.Code] || has(after, w.Code) {
			continue
		}
		seen[w.Code] = true
		c := base
		c.Kind, c.Warning = ChangeWarningCleared, w
		out = append(out, c)
	}
	for _, w := range after {
		if w.Code == model.WarnStale || seen[w.Code] || has(before, w.Code) {
			continue
		}
		seen[w.Code] = true
		c := base
		c.Kind, c.Warning = ChangeWarningRaised, w
		out = append(out, c)
	}
	return out
}

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
//	  "role": "holder",              its role when it happened: holder |
//	                                 waiting (session-lost: the role it had)
//	  "session": "0x1000a...",       its ephemeralOwner
//	  "client": "10.0.0.7:4711",     ip:port when the servers tell
//	  "data": "user@host pid 42",    its first bytes of data, sanitized
//	  "from": "_c_...-0000000006",   acquired: the node whose release let
//	                                 it hold, when the monitor saw it
//	  "lease": "_c_...-lease-0000000009",  admitted: the lease that a
//	                                 semaphore contender's admission-lock
//	                                 node left for (the node is the lock's)
//	  "held_s": 1.25,                released, session-lost: how long it held
//	  "waited_s": 0.5,               acquired, gave-up, admitted, session-lost: how
//	                                 long it waited (from its creation)
//	                                 (both only when known)
//	  warning events:
//	  "code": "split-holders", "message": "...", "nodes": ["..."],
//	  stale, fresh:
//	  "state": "disconnected",       the Watcher's connection (stale, fresh)
//	                                 or the path (present, noauth, absent)
//	  "monitor_session": "0x..."     the Watcher's own session (stale, fresh)
//	}
//
// Optional fields are left out when empty. Every string read from
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
	Session string   `json:"session,omitempty"`
	Client  string   `json:"client,omitempty"`
	Data    string   `json:"data,omitempty"`
	From    string   `json:"from,omitempty"`
	Lease   string   `json:"lease,omitempty"`
	HeldS   *float64 `json:"held_s,omitempty"`
	WaitedS *float64 `json:"waited_s,omitempty"`
	Code    string   `json:"code,omitempty"`
	Message string   `json:"message,omitempty"`
	Nodes   []string `json:"nodes,omitempty"`
	State   string   `json:"state,omitempty"`
	Monitor string   `json:"monitor_session,omitempty"`
}

// ToJSON is the change as one `watch --json` object.
func (c Change) ToJSON() JSONChange {
	j := JSONChange{Schema: StreamSchema, Time: c.At.UTC().Format(model.RFC3339Milli), Event: c.Kind.String()}
	switch c.Kind {
	case ChangeStale, ChangeFresh:
		j.State = c.Conn.State.String()
		j.Monitor = model.SessionHex(c.Conn.SessionID)
		return j
	}
	j.Path, j.Type = model.SanitizeString(c.Path, 0), c.Type.String()
	switch c.Kind {
	case ChangeWarningRaised, ChangeWarningCleared:
		j.Code, j.Message = model.SanitizeString(c.Warning.Code, 0), model.SanitizeString(c.Warning.Message, 0)
		j.Nodes = make([]string, 0, len(c.Warning.Nodes))
		for _, n := range c.Warning.Nodes {
			j.Nodes = append(j.Nodes, model.SanitizeString(n, 0))
		}
	case ChangePathAppeared, ChangePathVanished:
		j.State = c.State.String()
	default:
		n := &c.Node
		seq := n.Seq
		j.Node, j.Seq, j.Kind, j.Recipe = model.SanitizeString(n.Name, 0), &seq, n.KindName(), n.Recipe.String()
		j.Parent, j.Role = model.SanitizeString(n.Parent, 0), n.Role.String()
		j.Session, j.Client, j.Data = model.SessionHex(n.Session), model.SanitizeString(n.Client, 0), n.DataText(0)
		j.From, j.Lease = model.SanitizeString(c.From, 0), model.SanitizeString(c.Lease, 0)
		j.HeldS, j.WaitedS = seconds(c.Held), seconds(c.Waited)
	}
	return j
}

// seconds is d in seconds with millisecond precision, nil for 0.
func seconds(d time.Duration) *float64 {
	if d <= 0 {
		return nil
	}
	s := math.Round(d.Seconds()*1000) / 1000
	return &s
}

// ChangeWriter writes changes as NDJSON, one object per line.
type ChangeWriter struct {
	enc *json.Encoder
}

// NewChangeWriter writes `watch --json` lines to w.
func NewChangeWriter(w io.Writer) *ChangeWriter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &ChangeWriter{enc: enc}
}

// Write writes each change as one line.
func (cw *ChangeWriter) Write(cs []Change) error {
	for _, c := range cs {
		if err := cw.enc.Encode(c.ToJSON()); err != nil {
			return fmt.Errorf("timeline: write change: %w", err)
		}
	}
	return nil
}
