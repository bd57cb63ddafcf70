package zkview

import (
	"github.com/zklock/zklock/model"
)

// tellExpiries turns the departures in changes that went with their
// session's expiry into session-lost changes said "expired": a holder or
// waiter whose session the servers last saw (in prev, the snapshot
// before: node health from the AdminServer or the four-letter words)
// silent past half its timeout, gone within a tick of the expiry that
// silence made due (model.CauseOf). Anything zklock cannot prove stays a
// release or a give-up. One queue's step cannot tell a close (all of a
// session's nodes at once), so no departure here is said "closed".
func tellExpiries(prev *model.Snapshot, changes []model.Change) {
	if prev == nil || !prev.ServerView {
		return
	}
	for i := range changes {
		c := &changes[i]
		if c.Kind != model.ChangeReleased && c.Kind != model.ChangeGaveUp {
			continue
		}
		n := nodeIn(prev, c.Path, c.Node.Name, c.Node.Seq)
		if n == nil {
			continue
		}
		h := n.Health()
		if !h.Known() || h.At.IsZero() {
			continue
		}
		seen := model.SessionSeen{At: h.At, Timeout: h.Timeout}
		if d, ok := h.Silent(h.At); ok {
			seen.Silent = d
		}
		if d, ok := h.ExpiresIn(h.At); ok {
			seen.ExpiresIn = d
		}
		if model.CauseOf(seen, true, c.At, false) == model.CauseExpired {
			c.Kind, c.Cause = model.ChangeSessionLost, model.CauseExpired
			c.Node.Session = n.Session
		}
	}
}

// smallQueue bounds the queues nodeIn scans by name when the sequence
// does not find the node (a Kazoo lease, named without one).
const smallQueue = 64

// nodeIn is the node named name (sequence seq) in snap's queue at path,
// nil when snap has none.
func nodeIn(snap *model.Snapshot, path, name string, seq int32) *model.Node {
	qi, ok := snap.Queues.Find(path)
	if !ok {
		return nil
	}
	q := snap.Queues.At(qi)
	ns := q.Nodes
	if i := ns.Search(seq); i < ns.Len() {
		if n := ns.At(i); n.Name == name {
			return n
		}
	}
	if ns.Len() > smallQueue {
		return nil // not worth a scan on the event path: left a release
	}
	for _, n := range ns.All() { // a name without a sequence (a lease), or equal sequences
		if n.Name == name {
			return n
		}
	}
	return nil
}
