package lockops

import (
	"bytes"
	"slices"
	"sync"
	"sync/atomic"
)

// sentWatch tells when a request carrying given bytes has been written to
// the connection. ZooKeeper handles one session's requests in the order
// they arrive, and a read waits for the session's earlier writes to
// commit; so a listing sent once the create is on the wire is answered
// after the create and shows its node. That lets Acquire pipeline the two
// (one round trip instead of two) without relying on go-zookeeper's
// internals for correctness: a listing that misses the own node is simply
// made again.
//
// go-zookeeper writes each request with one Write of the whole packet, so
// a path is never split across writes; if that changed, the watch would
// never fire and Acquire would fall back to listing after the create.
type sentWatch struct {
	n  atomic.Int32 // waiters registered: the Write path's fast exit
	mu sync.Mutex
	ws []*sentWaiter
}

type sentWaiter struct {
	pat []byte
	ch  chan struct{} // closed once a write carried pat
}

// expect registers interest in the next write that carries pat.
func (w *sentWatch) expect(pat []byte) *sentWaiter {
	sw := &sentWaiter{pat: pat, ch: make(chan struct{})}
	w.mu.Lock()
	w.ws = append(w.ws, sw)
	w.n.Add(1)
	w.mu.Unlock()
	return sw
}

// drop forgets sw if it has not fired.
func (w *sentWatch) drop(sw *sentWaiter) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if i := slices.Index(w.ws, sw); i >= 0 {
		w.ws = slices.Delete(w.ws, i, i+1)
		w.n.Add(-1)
	}
}

// wrote is called with every packet written successfully.
func (w *sentWatch) wrote(b []byte) {
	if w.n.Load() == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ws = slices.DeleteFunc(w.ws, func(sw *sentWaiter) bool {
		if !bytes.Contains(b, sw.pat) {
			return false
		}
		close(sw.ch)
		w.n.Add(-1)
		return true
	})
}
