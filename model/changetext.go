package model

import (
	"fmt"
	"strings"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// Text is the change as the console's event log says it: one line, its
// strings read from ZooKeeper sanitized (node names cut as ShortName
// cuts them). The console then names lock nodes by sequence number.
func (c Change) Text() string {
	if c.Said != "" {
		return c.Said
	}
	switch {
	case c.Kind == ChangeJoined || c.Kind == ChangeAcquired || c.Kind.Departure():
		return c.nodeText()
	case c.Kind == ChangeConn || c.Kind == ChangeStale || c.Kind == ChangeFresh:
		return c.connText()
	case c.Kind.LogWord() == "path":
		return c.pathText()
	case c.Kind.LogWord() == "warning":
		return c.warningText()
	}
	return c.infoText()
}

// nodeText tells a node that joined, took the lock or went away.
func (c Change) nodeText() string {
	n := &c.Node
	me := ShortName(n.Name)
	if n.Lease {
		return c.leaseText()
	}
	switch c.Kind {
	case ChangeJoined:
		switch {
		case n.Role == ordering.RoleHolder:
			return fmt.Sprintf("%s created (%s %s): holds", me, n.Recipe, n.Kind)
		case n.Believes == ordering.RoleHolder:
			// Split holders: its own recipe sees no node before it.
			return fmt.Sprintf("%s created (%s %s): believes it holds (its recipe sees no node before it), by sequence it waits", me, n.Recipe, n.Kind)
		case n.Watches() != "":
			return fmt.Sprintf("%s created (%s %s): waits, watching %s", me, n.Recipe, n.Kind, ShortName(n.Watches()))
		}
		return fmt.Sprintf("%s created (%s %s): waits", me, n.Recipe, n.Kind)
	case ChangeAcquired:
		if c.From == "" {
			return me + " holds"
		}
		// "gone", not "released": a listing cannot tell a release from an
		// expired session or a force-release.
		return fmt.Sprintf("%s gone → %s holds after %s", ShortName(c.From), me, GapText(c.Gap))
	}
	return c.departureText()
}

// departureText tells a node that went away: how (its session's end when
// that is known), how long it held or waited, what it admitted, whom it
// wakes.
func (c Change) departureText() string {
	n := &c.Node
	var b strings.Builder
	b.WriteString(ShortName(n.Name) + " deleted")
	if c.Kind == ChangeSessionLost {
		session := "its session"
		if s := SessionHex(n.Session); s != "" {
			session = "session " + s
		}
		switch c.Cause {
		case CauseExpired:
			b.WriteString(": " + session + " expired")
		case CauseClosed:
			b.WriteString(": " + session + " closed")
		default:
			b.WriteString(" with " + strings.Replace(session, "session ", "its session ", 1))
		}
	}
	// A split holder (it believed it held, by sequence it waited) is
	// told by what it believed, and the sequence's word beside it.
	split := n.Role != ordering.RoleHolder && n.Believes == ordering.RoleHolder
	switch {
	case split && c.Held > 0:
		fmt.Fprintf(&b, " (believed it held %s%s; by sequence it waited)", boundWords(c.HeldBound), GapText(c.Held))
	case split:
		b.WriteString(" (believed it held; by sequence it waited)")
	case n.Role == ordering.RoleHolder && c.Held > 0:
		fmt.Fprintf(&b, " (held %s%s)", boundWords(c.HeldBound), GapText(c.Held))
	case n.Role != ordering.RoleHolder && c.Waited > 0:
		fmt.Fprintf(&b, " (waited %s)", GapText(c.Waited))
	}
	if c.Kind == ChangeAdmitted {
		fmt.Fprintf(&b, ": admitted to lease %s", ShortName(c.Lease))
	}
	if len(c.Wakes) > 0 {
		wakes := make([]string, len(c.Wakes))
		for i, w := range c.Wakes {
			wakes[i] = ShortName(w)
		}
		fmt.Fprintf(&b, "; wakes %s", strings.Join(wakes, ", "))
	}
	return b.String()
}

// GoneWords says, for a room, how a node that went away went, as far as
// zklock can tell: a listing cannot tell a release from a session's end,
// so only a session-lost change with its Cause says "expired" or
// "closed".
func (c Change) GoneWords() string {
	switch {
	case c.Kind == ChangeSessionLost && c.Cause == CauseExpired:
		return "its session expired"
	case c.Kind == ChangeSessionLost && c.Cause == CauseClosed:
		return "its client closed its session"
	case c.Kind == ChangeSessionLost:
		return "its session ended"
	case c.Kind == ChangeAdmitted:
		return "its contender was admitted to a lease"
	case c.Node.Role != ordering.RoleHolder && c.Node.Believes == ordering.RoleHolder:
		return "it believed it held; released, or its session ended"
	}
	return "released, or its session ended"
}

// boundWords is how a hold's duration of bound b reads in a sentence:
// "", "at most " or "at least ".
func boundWords(b Bound) string {
	switch b {
	case BoundEarliest:
		return "at most "
	case BoundLatest:
		return "at least "
	}
	return ""
}

// leaseText tells a semaphore's lease taken, waiting or returned.
func (c Change) leaseText() string {
	n := &c.Node
	me, limit := ShortName(n.Name), LimitText(c.Holders, c.Limit)
	switch {
	case c.Kind == ChangeAcquired:
		return fmt.Sprintf("lease %s taken by %s: holders %s", me, sessionWords(n.Session), limit)
	case c.Kind == ChangeJoined && n.Role != ordering.RoleHolder:
		return fmt.Sprintf("lease %s created beyond the limit: %s waits for one (holders %s)", me, sessionWords(n.Session), limit)
	case c.Kind == ChangeJoined:
		return fmt.Sprintf("lease %s created: holders %s", me, limit)
	}
	text := "lease " + me + " returned"
	if t := n.TenureText(c.At); n.Role == ordering.RoleHolder && t != "" {
		text += " (held " + t + ")"
	}
	return text + ": holders " + limit
}

// sessionWords names a session in a sentence.
func sessionWords(id int64) string {
	if s := SessionHex(id); s != "" {
		return s
	}
	return "an unknown session"
}

// connText tells the Watcher's connection.
func (c Change) connText() string {
	server := SanitizeString(c.Conn.Server, 80)
	switch {
	case c.Kind == ChangeStale:
		return "the model is stale: the connection is " + c.Conn.State.String()
	case c.Kind == ChangeFresh:
		return "the model is fresh again: the connection is " + c.Conn.State.String()
	}
	switch c.Conn.State {
	case StateConnected:
		switch c.Resume {
		case ResumeNew:
			return fmt.Sprintf("new session 0x%x on %s: re-reading every path (the old session expired)", c.Conn.SessionID, server)
		case ResumeSession:
			return fmt.Sprintf("reconnected to %s, session 0x%x: re-listing every path", server, c.Conn.SessionID)
		}
		return fmt.Sprintf("connected to %s, session 0x%x", server, c.Conn.SessionID)
	case StateDisconnected:
		return "disconnected: the model is stale until the link is back"
	case StateExpired:
		return fmt.Sprintf("session 0x%x expired: a new one is being made", c.Conn.SessionID)
	case StateClosed:
		return "session closed"
	}
	return "connecting"
}

// pathText tells what became of a lock parent.
func (c Change) pathText() string {
	p := SanitizeString(c.Path, 0)
	switch c.Kind {
	case ChangePathAppeared:
		return p + " appeared"
	case ChangePathVanished:
		if c.Unwatched {
			return fmt.Sprintf("%s vanished (it held %d lock nodes)", p, c.Count)
		}
		return p + " was deleted: watching until it appears again"
	case ChangePathAbsent:
		return p + " does not exist: watching until it appears"
	case ChangePathUnreadable:
		if c.State == PathNoAuth {
			return fmt.Sprintf("%s: no permission to list it (%s)", p, SanitizeString(c.Err, 200))
		}
		return fmt.Sprintf("%s: %s", p, SanitizeString(c.Err, 200))
	case ChangePathRecreated:
		return p + " was deleted and created again: reading its nodes afresh"
	}
	if c.Type == TypeSemaphore {
		return "found semaphore " + p
	}
	return "found lock parent " + p
}

// warningText tells a warning or a cross-lock cycle raised or cleared.
// A warning's Message is sanitized already (Warning).
func (c Change) warningText() string {
	switch c.Kind {
	case ChangeWarningRaised:
		return c.Warning.Code + ": " + c.Warning.Message
	case ChangeWarningCleared:
		if c.Path == "" {
			return c.Warning.Code + " cleared"
		}
		return c.Warning.Code + " cleared on " + SanitizeString(c.Path, 0)
	case ChangeCycle:
		return c.Cycle.Text(c.At)
	}
	return "cross-lock cycle cleared: " + CycleText(c.Cycle.Sessions)
}

// infoText tells what the Watcher noticed of its own reading.
func (c Change) infoText() string {
	p := SanitizeString(c.Path, 0)
	switch c.Kind {
	case ChangeListed:
		if c.Type == TypeSemaphore {
			recipe := "an empty"
			if c.Count > 0 {
				recipe = c.Node.Recipe.String()
			}
			return fmt.Sprintf("%s: %s semaphore, holders %s, %d waiting", p, recipe, LimitText(c.Holders, c.Limit), c.Waiting)
		}
		holder := "no holder"
		if c.Holders > 0 {
			holder = "held by " + SanitizeString(c.Node.Name, 60)
			if c.Holders > 1 {
				holder += fmt.Sprintf(" and %d more", c.Holders-1)
			}
		}
		return fmt.Sprintf("listed %s: %d lock nodes, %s", p, c.Count, holder)
	case ChangeBurst:
		return fmt.Sprintf("%s: %d nodes created, %d deleted", p, c.Created, c.Deleted)
	case ChangeWatchVerified:
		return fmt.Sprintf("%s: its session 0x%x has a watch on %s (wchc)", ShortName(c.Node.Name), c.Node.Session, ShortName(c.Node.Watches()))
	case ChangeServerView:
		if c.Note != "" {
			return c.Note
		}
		return fmt.Sprintf("server view: %d members answered cons and wchc; links verified", c.Count)
	case ChangeWatchMode:
		return fmt.Sprintf("the server refuses persistent watches (%s): watching with children watches, re-listing at every change", c.Err)
	case ChangeOverflow:
		return p + " changed faster than it was read: reading it afresh"
	case ChangeParentsCapped:
		return fmt.Sprintf("discovery stopped at %d lock parents (MaxParents)", c.Count)
	case ChangeNodesCapped:
		return fmt.Sprintf("discovery stopped at %d watched nodes", c.Count)
	case ChangeDiscovering:
		d := c.Discovery
		return fmt.Sprintf("discovering %s: %d nodes read of %d found, %d lock parents, %s",
			p, d.Read, d.Found, d.Parents, d.Took.Round(time.Millisecond))
	}
	return c.Note
}

// Text is a deadlock in one line: its state, its sessions and where
// each waits, its age at now.
func (d Deadlock) Text(now time.Time) string {
	var b strings.Builder
	switch d.State {
	case CycleDeadlock:
		fmt.Fprintf(&b, "cross-lock deadlock, no handoff for %s: ", GapText(now.Sub(d.Since)))
	case CycleSelfWait:
		b.WriteString("self-wait: ")
	default:
		fmt.Fprintf(&b, "cross-lock cycle, %s old (a deadlock if it stands %s with no handoff): ", GapText(now.Sub(d.Since)), DeadlockAfter)
	}
	for i, wt := range d.Waits {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s waits on %s %s held by %s", SessionHex(wt.Session), SanitizeString(wt.Path, 0),
			NodeRef(wt.Node, 24), SessionHex(wt.Holder))
		if wt.Holder == wt.Session {
			fmt.Fprintf(&b, " (its own %s)", NodeRef(wt.HolderNode, 24))
		}
	}
	return b.String()
}

// CycleText is a cycle's sessions in wait order, back to the first:
// "0x1 → 0x2 → 0x1", or "0x1" for one session (a self-wait).
func CycleText(ss []int64) string {
	parts := make([]string, 0, len(ss)+1)
	for _, s := range ss {
		parts = append(parts, SessionHex(s))
	}
	if len(ss) > 1 {
		parts = append(parts, SessionHex(ss[0]))
	}
	return strings.Join(parts, " → ")
}
