package queuepane

import (
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// silentHolder reports whether n holds (by sequence or by its own
// recipe) and its member had not heard its session for more than half its
// timeout at the last poll: the silent-holder warning's rule, judged at
// the poll so that the queue's layout changes with the snapshots, not
// with the clock.
func silentHolder(n *model.Node) bool {
	h := n.Health()
	return (n.Role == ordering.RoleHolder || n.Believes == ordering.RoleHolder) && h.SilentTooLong(h.At)
}
