package timeline

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

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
// both when it gives up), or when what the servers told of the session
// proves it expired (DiffSeen; the change's Cause, model.CauseOf).
// Otherwise the node is released (a holder, or a node that believed it
// held in a split queue) or gave-up; or admitted: a node of a
// semaphore's admission lock that left once its session held a lease
// made after it (see admissions), which did not give up.
//
// The per-queue warning `stale` is not told: the connection's stale and
// fresh say it once for every queue.
//
// Snapshots are immutable: Diff only reads them.
func Diff(prev, next *model.Snapshot) []model.Change { return DiffSeen(prev, next, nil) }

// Seen is what the servers last told of a session before a step
// (model.SessionSeen, as `ls --json` gives silent_s, timeout_s and
// expires_in_s), false when they told nothing.
type Seen func(session int64) (model.SessionSeen, bool)

// DiffSeen is Diff told what the servers saw of each session (seen, nil
// when nothing): the session-lost changes say why their session ended
// where that proves it, and a node gone with its expired session is
// session-lost even when it was its session's only one.
func DiffSeen(prev, next *model.Snapshot, seen Seen) []model.Change {
	if prev == nil || next == nil {
		return nil
	}
	at := next.At
	var out []model.Change
	switch {
	case !prev.Stale && next.Stale:
		out = append(out, model.Change{Kind: model.ChangeStale, At: at, Conn: next.Conn})
	case prev.Stale && !next.Stale:
		out = append(out, model.Change{Kind: model.ChangeFresh, At: at, Conn: next.Conn})
	}
	lost := sessionEnds{together: lostSessions(prev, next), seen: seen, at: next.At}
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
	return a.State == b.State && len(a.Warnings()) == len(b.Warnings()) &&
		len(a.Handoffs()) == len(b.Handoffs()) && a.Nodes.Shares(b.Nodes) &&
		(len(a.Warnings()) == 0 || &a.Warnings()[0] == &b.Warnings()[0]) &&
		(len(a.Handoffs()) == 0 || &a.Handoffs()[0] == &b.Handoffs()[0])
}

// exists is a path's existence as `ls --json` says it.
func exists(q *model.Queue) bool {
	return q != nil && (q.State == model.PathPresent || q.State == model.PathNoAuth)
}

// diffQueue appends the changes of one path; pq or nq is nil when the
// path is not in that snapshot.
func diffQueue(out []model.Change, prevAt, at time.Time, pq, nq *model.Queue, lost sessionEnds) []model.Change {
	q := nq
	if q == nil {
		q = pq
	}
	base := model.Change{At: at, Path: q.Path, Type: q.Type}
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
		c.Kind, c.State = model.ChangePathAppeared, nq.State
		out = append(out, c)
	}
	if firstRead && pq == nil && hasNodeAfter(nq, prevAt) {
		// A lock parent under a root met for the first time: it appears
		// with its first node.
		c := base
		c.Kind, c.State = model.ChangePathAppeared, nq.State
		out = append(out, c)
	}

	switch {
	case firstRead:
		for _, n := range nq.Nodes.All() {
			if n.Ctime().IsZero() || !n.Ctime().After(prevAt) {
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
		c.Kind, c.State, c.Unwatched = model.ChangePathVanished, model.PathAbsent, nq == nil
		if nq == nil {
			c.Count = pq.Nodes.Len()
		}
		out = append(out, c)
	}
	return out
}

// hasNodeAfter reports whether q has a node created after t.
func hasNodeAfter(q *model.Queue, t time.Time) bool {
	for _, n := range q.Nodes.All() {
		if c := n.Ctime(); !c.IsZero() && c.After(t) {
			return true
		}
	}
	return false
}

// diffNodes compares a queue's nodes by identity; nq may be nil (the
// queue left the model), next is its node list (nil when gone). A
// semaphore contender admitted to a lease is told after the lease's own
// changes: it leaves the admission lock once it holds the lease.
func diffNodes(out []model.Change, base model.Change, prevAt time.Time, pq, nq *model.Queue, next model.Nodes, lost sessionEnds) []model.Change {
	at := base.At
	nextBy := make(map[string]*model.Node, next.Len())
	for _, n := range next.All() {
		nextBy[n.Key()] = n
	}
	prevBy := make(map[string]*model.Node, pq.Nodes.Len())
	for _, p := range pq.Nodes.All() {
		prevBy[p.Key()] = p
	}
	var admitted []model.Change
	adm := admissions{pq: pq, prevBy: prevBy, next: next}
	// Departures, in the previous order.
	for _, p := range pq.Nodes.All() {
		if _, ok := nextBy[p.Key()]; ok {
			continue
		}
		wasHolder := p.Role == ordering.RoleHolder
		gone, cause := lost.of(p.Session)
		if !wasHolder && nq != nil {
			// It may have held between the two snapshots: the handoff
			// history knows.
			if h, ok := handoffTo(nq, p.Name, prevAt); ok {
				out = appendTransient(out, base, p, h, at, gone, cause)
				continue
			}
		}
		c := departed(base, p, gone, cause, &adm)
		if c.Kind == model.ChangeAdmitted {
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
		if !ok || p.Role == ordering.RoleHolder || n.Role != ordering.RoleHolder {
			continue
		}
		c := base
		c.Kind, c.Node = model.ChangeAcquired, *n
		if h, ok := handoffTo(nq, n.Name, prevAt); ok {
			c.From, c.Gap = h.From, h.Gap
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

// departed is the change of a node p that went away (not through a
// handoff between the snapshots): session-lost with its cause when its
// session ended (gone); released when it held, or believed it held (a
// split holder leaves as a holder would); else gave-up, or admitted when
// its semaphore contender got a lease. With how long it held or waited.
func departed(base model.Change, p *model.Node, gone bool, cause model.Cause, adm *admissions) model.Change {
	c := base
	c.Node = *p
	wasHolder := p.Role == ordering.RoleHolder
	believed := wasHolder || p.Believes == ordering.RoleHolder
	switch {
	case gone:
		c.Kind, c.Cause = model.ChangeSessionLost, cause
	case believed:
		c.Kind = model.ChangeReleased
	default:
		c.Kind = model.ChangeGaveUp
		if lease, ok := adm.leaseOf(p); ok {
			c.Kind, c.Lease = model.ChangeAdmitted, lease
		}
	}
	if believed {
		c.Held, c.HeldBound = held(p, base.At)
	}
	if !wasHolder {
		c.Waited = waited(p, base.At)
	}
	return c
}

// appendTransient tells a waiter that took the lock and let it go
// between two snapshots (h: its handoff): acquired, then released (or
// session-lost).
func appendTransient(out []model.Change, base model.Change, p *model.Node, h model.Handoff, at time.Time, lost bool, cause model.Cause) []model.Change {
	c := base
	c.Kind, c.Node, c.From, c.Gap = model.ChangeAcquired, *p, h.From, h.Gap
	c.Node.Role = ordering.RoleHolder
	c.Waited = waited(p, h.At)
	out = append(out, c)
	c = base
	c.Kind, c.Node = model.ChangeReleased, *p
	c.Node.Role = ordering.RoleHolder
	if lost {
		c.Kind, c.Cause = model.ChangeSessionLost, cause
	}
	c.Held = wallSince(h.At, at)
	return append(out, c)
}

// appendJoined tells a new node: joined, then acquired when it holds.
func appendJoined(out []model.Change, base model.Change, n *model.Node, q *model.Queue) []model.Change {
	c := base
	c.Kind, c.Node = model.ChangeJoined, *n
	out = append(out, c)
	if n.Role == ordering.RoleHolder {
		c.Kind = model.ChangeAcquired
		if h, ok := handoffTo(q, n.Name, time.Time{}); ok {
			c.From, c.Gap = h.From, h.Gap
		}
		if !n.Ctime().IsZero() && n.SinceExact && n.Since().After(n.Ctime()) {
			c.Waited = wallSince(n.Ctime(), n.Since())
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
	for k := len(q.Handoffs()) - 1; k >= 0; k-- {
		h := q.Handoffs()[k]
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
	if n.SinceExact && !n.Since().IsZero() {
		return n.Since()
	}
	return at
}

// held is how long a holder held until at, and how well that is known
// (model.Node.Tenure: exact, or from its creation for a holder found
// holding); a split holder, which by sequence waited, believed it held
// at most since its creation. 0 when its start is unknown.
func held(n *model.Node, at time.Time) (time.Duration, model.Bound) {
	start, b := n.Tenure()
	if n.Role != ordering.RoleHolder {
		start, b = n.Ctime(), model.BoundEarliest
	}
	if start.IsZero() || !at.After(start) {
		return 0, model.BoundLatest
	}
	return wallSince(start, at), b
}

// waited is how long a waiter waited until at: from its creation.
func waited(n *model.Node, at time.Time) time.Duration {
	start := n.Ctime()
	if start.IsZero() && n.SinceExact {
		start = n.Since()
	}
	if start.IsZero() || !at.After(start) {
		return 0
	}
	return wallSince(start, at)
}

// sessionEnds says which nodes that went away went with their session,
// and why: the sessions whose every node went in one step (together),
// and what the servers told of each session (seen).
type sessionEnds struct {
	together map[int64]bool
	seen     Seen
	at       time.Time
}

// of says whether a node of session s that went away went with its
// session, and the session's end's cause.
func (e sessionEnds) of(s int64) (bool, model.Cause) {
	if s == 0 {
		return false, model.CauseUnknown
	}
	var seen model.SessionSeen
	ok := false
	if e.seen != nil {
		seen, ok = e.seen(s)
	}
	cause := model.CauseOf(seen, ok, e.at, e.together[s])
	return e.together[s] || cause == model.CauseExpired, cause
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
func diffWarnings(out []model.Change, base model.Change, pq, nq *model.Queue) []model.Change {
	var before, after []model.Warning
	if pq != nil {
		before = pq.Warnings()
	}
	if nq != nil {
		after = nq.Warnings()
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
		c.Kind, c.Warning = model.ChangeWarningCleared, w
		out = append(out, c)
	}
	for _, w := range after {
		if w.Code == model.WarnStale || seen[w.Code] || has(before, w.Code) {
			continue
		}
		seen[w.Code] = true
		c := base
		c.Kind, c.Warning = model.ChangeWarningRaised, w
		out = append(out, c)
	}
	return out
}

// ChangeWriter writes changes as NDJSON, one object per line: each
// change's stream rendering (model.Change.ToJSON).
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
func (cw *ChangeWriter) Write(cs []model.Change) error {
	for _, c := range cs {
		if err := cw.enc.Encode(c.ToJSON()); err != nil {
			return fmt.Errorf("timeline: write change: %w", err)
		}
	}
	return nil
}

// wallSince is at less start by their wall clocks. A live snapshot's
// times also carry the monotonic clock, which Sub prefers; a recording
// keeps only the wall clock, so a replay, and the stream it tells, would
// differ from the live one by the two clocks' drift, a millisecond when
// a duration rounds at the edge.
func wallSince(start, at time.Time) time.Duration { return at.Round(0).Sub(start.Round(0)) }

// SeenIn is what prev's nodes say the servers told of their sessions
// (model.Node.Health, filled where the AdminServer or the four-letter words
// answer): the Seen that DiffSeen needs to tell an expiry or a close from a
// release. Nil when prev tells nothing of any session.
func SeenIn(prev *model.Snapshot) Seen {
	if prev == nil {
		return nil
	}
	var seen map[int64]model.SessionSeen
	for _, q := range prev.Queues.All() {
		for _, n := range q.Nodes.All() {
			h := n.Health()
			if n.Session == 0 || !h.Known() {
				continue
			}
			if _, ok := seen[n.Session]; ok {
				continue
			}
			s := model.SessionSeen{At: h.At, Timeout: h.Timeout}
			if d, ok := h.Silent(h.At); ok {
				s.Silent = d
			}
			if d, ok := h.ExpiresIn(h.At); ok {
				s.ExpiresIn = d
			}
			if seen == nil {
				seen = map[int64]model.SessionSeen{}
			}
			seen[n.Session] = s
		}
	}
	if seen == nil {
		return nil
	}
	return func(session int64) (model.SessionSeen, bool) {
		s, ok := seen[session]
		return s, ok
	}
}
