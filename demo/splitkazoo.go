// The split's Kazoo-style client, acting as a stock Kazoo Lock does on a
// Curator queue.

package demo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"sync"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/third_party/zk"
)

// stockKazooHold is the split's Kazoo-style client as a stock Kazoo Lock
// behaves on a Curator queue: it counts only "__lock__" names, finds none
// before its own, and holds at once, watching nothing. The lock core in
// Kazoo style orders every recipe by sequence and would wait on the
// Curator holder instead: the servers' watches would show it waiting,
// and the console, which follows them, would rightly show no split.
type stockKazooHold struct {
	sess *lockops.Session
	path string
	data []byte

	mu       sync.Mutex
	node     string
	done     chan struct{}
	doneOnce sync.Once
}

func newStockKazooHold(sess *lockops.Session, p string, data []byte) *stockKazooHold {
	return &stockKazooHold{sess: sess, path: p, data: data, done: make(chan struct{})}
}

// Acquire creates the node, named as Kazoo names it, and holds.
func (h *stockKazooHold) Acquire(ctx context.Context) error {
	prefix := fmt.Sprintf("%016x%016x__lock__", rand.Uint64(), rand.Uint64())
	made, err := h.sess.Create(ctx, path.Join(h.path, prefix), h.data, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		return fmt.Errorf("demo: split client: %w", err)
	}
	h.mu.Lock()
	h.node = path.Base(made)
	h.mu.Unlock()
	return nil
}

// Release deletes the node.
func (h *stockKazooHold) Release(ctx context.Context) error {
	defer h.doneOnce.Do(func() { close(h.done) })
	return h.sess.Delete(ctx, path.Join(h.path, h.Node()), -1)
}

// Done is closed once released.
func (h *stockKazooHold) Done() <-chan struct{} { return h.done }

// Node is the node's name, "" before Acquire made it.
func (h *stockKazooHold) Node() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.node
}
