package holds

import (
	"context"
	"sync"

	"github.com/zklock/zklock/lockops/ordering"
)

// feed carries progress reports from the lock core's goroutines (which
// must not block) to the console, in order and without loss: reports
// queue here and one goroutine hands them on.
type feed[R any] struct {
	out  chan R
	mu   sync.Mutex
	q    []queued[R]
	kick chan struct{}
}

// feedKey is what makes two reports the same lock's same state.
type feedKey struct {
	path, node string
	state      ordering.LockState
}

type queued[R any] struct {
	key feedKey
	r   R
}

func newFeed[R any](life context.Context) *feed[R] {
	f := &feed[R]{out: make(chan R, 16), kick: make(chan struct{}, 1)}
	go f.pump(life)
	return f
}

func (f *feed[R]) send(k feedKey, r R) {
	f.mu.Lock()
	// A burst for one lock only needs its last state, except that a
	// report of a new node must not hide the old one's end: keep per
	// path and node.
	if n := len(f.q); n > 0 && f.q[n-1].key == k {
		f.q[n-1].r = r
	} else {
		f.q = append(f.q, queued[R]{k, r})
	}
	f.mu.Unlock()
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

func (f *feed[R]) pump(life context.Context) {
	for {
		select {
		case <-f.kick:
		case <-life.Done():
			return
		}
		for {
			f.mu.Lock()
			if len(f.q) == 0 {
				f.mu.Unlock()
				break
			}
			o := f.q[0].r
			f.q = f.q[1:]
			f.mu.Unlock()
			select {
			case f.out <- o:
			case <-life.Done():
				return
			}
		}
	}
}
