package model

import (
	"strings"

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
