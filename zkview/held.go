package zkview

import "sync/atomic"

// heldEvents counts the watch events the Watcher has received and not
// yet brought into its model, and what that count was at each build: the
// lag measured on the receive side (a snapshot published while events
// wait shows the model behind by them). received and applied are
// counted outside the Watcher's lock; the rest is guarded by it.
type heldEvents struct {
	received atomic.Int64 // events taken from the watches
	applied  atomic.Int64 // of those, merged into the model (or made moot)
	builds   int          // snapshots built
	max      int64        // the most events held at a build
	sum      int64        // events held at the builds, summed
}

// atBuildLocked records the events held as a snapshot is built. The
// count is at most a batch high: a batch merged under the lock is counted
// applied a moment later.
func (h *heldEvents) atBuildLocked() {
	held := h.received.Load() - h.applied.Load()
	h.builds++
	h.max = max(h.max, held)
	h.sum += held
}
