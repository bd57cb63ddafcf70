package model

import (
	"strings"
	"unicode/utf8"

	"github.com/zklock/zklock/lockops/ordering"
)

// LeaseCounts are a semaphore's holders (leases held) and waiters
// (contenders waiting for one: each has a node in the admission lock; a
// Curator lease beyond the limit is its contender's second node, not a
// second waiter).
func (q *Queue) LeaseCounts() (holders, waiting int) {
	for _, n := range q.Nodes.All() {
		switch {
		case n.Lease && n.Role == ordering.RoleHolder:
			holders++
		case !n.Lease:
			waiting++
		}
	}
	return holders, waiting
}

// LimitText is a semaphore's holders against its limit: "2/3" or
// "2 (limit unknown)".
func (q *Queue) LimitText() string {
	h, _ := q.LeaseCounts()
	return LimitText(h, q.Limit())
}

// WatchesChildren says whether the node waits on a children watch (a
// semaphore's lease waiter): its Watches is then the watched path, with
// a leading "/", which no child name can have.
func (n Node) WatchesChildren() bool { return strings.HasPrefix(n.Watches(), "/") }

// KindName is the node's kind as `ls` names it: "lease" for a semaphore's
// lease node, else mutex, read or write.
func (n Node) KindName() string {
	if n.Lease {
		return "lease"
	}
	return n.Kind.String()
}

// RelName is the node's name as seen from its queue's path p: the name
// of a child of p, "leases/<name>" below it, the full path elsewhere
// (Kazoo's lock sibling).
func (n Node) RelName(p string) string {
	if n.Parent() == "" {
		return n.Name
	}
	return Under(p, n.Parent(), n.Name)
}

// under names child name of dir as seen from p: relative below p, the
// full path elsewhere (Kazoo's lock sibling).
func Under(p, dir, name string) string {
	switch {
	case dir == p:
		return name
	case strings.HasPrefix(dir, p+"/"):
		return dir[len(p)+1:] + "/" + name
	}
	return ChildPath(dir, name)
}

// RoleWord is how the console and `ls` name a node's role in a queue of
// type t: leader and follower in an election, holder and waiting
// otherwise (ordering.Role's own words, which `ls --json` keeps).
func RoleWord(t QueueType, r ordering.Role) string {
	if t == TypeElection {
		if r == ordering.RoleHolder {
			return "leader"
		}
		return "follower"
	}
	return r.String()
}

// Key is the node's identity within its queue, as the timeline matches
// nodes between snapshots: its parent and name, or, for a session the
// servers show waiting with no node of its own (a plain ephemeral lock's
// waiter), that session.
func (n *Node) Key() string {
	if n.Name == "" {
		return "\x00" + SessionHex(n.Session)
	}
	return n.Parent() + "\x00" + n.Name
}

// DataText is the node's data as sanitized text, "…" when only its first
// bytes were kept; max > 0 cuts it to max cells. It is the one text of a
// node's data that `ls`, its JSON and the watch stream show.
func (n Node) DataText(max int) string {
	d := n.Data()
	cut := int(n.DataLen) > len(d)
	if cut {
		// Do not show the half of a character the cut made: a start byte
		// near the end whose rune is incomplete.
		for k := 1; k < utf8.UTFMax && k <= len(d); k++ {
			if c := d[len(d)-k]; c >= 0xc0 {
				if !utf8.FullRune(d[len(d)-k:]) {
					d = d[:len(d)-k]
				}
				break
			}
		}
	}
	s := Sanitize(d, 0)
	if cut {
		s += ellipsis
	}
	if max > 0 {
		s = SanitizeString(s, max)
	}
	return s
}
