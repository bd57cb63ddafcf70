// Fencing tokens: a hold's number that a resource compares, so that a
// holder who lost its hold (a paused process, a partition) and writes
// anyway is refused.

package lockops

// FencingToken is the czxid of the current hold's node (the zxid of the
// ZooKeeper transaction that created it), or of the last hold once it
// ended; 0 before the first hold. It is taken from the create's own
// answer, never read again later. Every later holder of the lock has a
// higher one, whichever recipe it uses under this parent, even after the
// parent was deleted and made again (where sequence numbers restart):
// zxids grow ensemble-wide. A resource that refuses a token lower than
// the highest it has accepted refuses a holder that lost the lock
// (docs/fencing.md). The token is kept after a loss on purpose: a holder
// that does not know it lost still presents its old token, and that is
// what the resource must see. Readers of a read/write lock, and leases of
// one semaphore, hold at once with different tokens: the token orders
// them, it does not make them exclusive.
func (l *Lock) FencingToken() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ten.czxid
}
