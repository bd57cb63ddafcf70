package verdict

import (
	"time"

	"github.com/zklock/zklock/model"
)

// Liveness is what the servers know of the liveness of a node's session
// (model.Health: the member it is connected to, when that member last
// heard it, its negotiated timeout, when the leader expires it if it
// stays silent, as of when they were asked). It is the one place where
// silence and expiry come into a verdict.
type Liveness = model.Health

// LivenessOf reads the liveness of a node's session; false when no member
// tells. Judge reads Node.Health (NodeLiveness) unless told otherwise.
type LivenessOf func(n *model.Node) (Liveness, bool)

// NodeLiveness is the liveness the snapshot carries for n's session:
// what the AdminServer or the four-letter words told the Watcher.
func NodeLiveness(n *model.Node) (Liveness, bool) {
	h := n.Health()
	return h, h.Known()
}

// Alive is a holder's client as a verdict says it.
type Alive string

const (
	// AliveYes: a member heard the session within half its timeout.
	AliveYes Alive = "alive"
	// AliveSilent: silent for more than half its timeout (paused, hung,
	// cut off): the server expires it unless it speaks again; the
	// silent-holder warning's rule (model.Health.SilentTooLong).
	AliveSilent Alive = "silent"
	// AliveUnknown: no member tells (neither the AdminServer nor `cons`
	// answered for it), or the read is stale.
	AliveUnknown Alive = "unknown"
)

// aliveOf judges l at at; known is false when no member tells.
func aliveOf(l Liveness, known bool, at time.Time) Alive {
	switch {
	case !known:
		return AliveUnknown
	case l.SilentTooLong(at):
		return AliveSilent
	case l.Timeout > 0:
		if _, heard := l.Silent(at); heard {
			return AliveYes
		}
	}
	return AliveUnknown
}
