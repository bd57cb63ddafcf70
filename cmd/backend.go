package cmd

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/ui"
)

var (
	errAlreadyOwn = errors.New("you already hold or wait for this lock")
	errNotOwn     = errors.New("you hold no lock here")
	errBackendEnd = errors.New("console closing")
)

// closeTimeout bounds how long Close waits for acquisitions to end: a
// cancelled waiter deletes its node in milliseconds, and the session's
// close removes whatever is left anyway.
const closeTimeout = 5 * time.Second

// lockBackend is the console's ui.Backend over the lock core: the same
// lockops calls `zklock run`, `release --force` and `revoke` make.
type lockBackend struct {
	sess *lockops.Session
	feed *ownFeed

	// life bounds every acquisition: a Take outlives the console's call
	// (the operator waits in line while doing other things), not the
	// console.
	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// limits are the semaphore limits the context states, by path.
	limits map[string]int

	mu    sync.Mutex
	locks map[string]*ownLock
}

// ownLock is one of the operator's locks, or a semaphore's lease.
type ownLock struct {
	lock     ownHold
	kind     string             // the audit's: mutex, read, write, lease, election
	node     func() string      // the own node, relative to the path
	stopWait context.CancelFunc // ends a waiting Acquire (its node is deleted)
	acquired chan struct{}      // closed when Acquire returns
}

// ownHold is a *lockops.Lock or a *lockops.Semaphore.
type ownHold interface {
	Acquire(context.Context) error
	Release(context.Context) error
	State() ordering.LockState
	Node() string
}

var _ ui.Backend = (*lockBackend)(nil)

func newLockBackend(sess *lockops.Session) *lockBackend {
	life, cancel := context.WithCancel(context.Background())
	b := &lockBackend{sess: sess, life: life, cancel: cancel, locks: map[string]*ownLock{}}
	b.feed = newOwnFeed(life)
	return b
}

// Own is the progress of the operator's locks, for ui.Options.Own.
func (b *lockBackend) Own() <-chan ui.OwnLock { return b.feed.out }

// Take queues for the lock at p and returns once the own node exists (or
// the attempt failed); the wait goes on in the background and reports on
// Own. If ctx ends before the node is queued, the attempt is abandoned
// (its node, if any, deleted). On a semaphore it takes one lease (kind
// does not apply); on a LeaderLatch election it joins as a participant.
func (b *lockBackend) Take(ctx context.Context, p string, kind ordering.Kind) error {
	queued := make(chan struct{})
	var once sync.Once
	progress := lockops.WithProgress(func(pr ordering.Progress) {
		if pr.State == ordering.LockQueued || pr.State == ordering.LockHolding {
			once.Do(func() { close(queued) })
		}
		b.feed.send(ui.OwnFromProgress(p, pr))
	})
	// Read before taking b.mu: it is a request.
	l, lkind, node, err := b.newHold(ctx, p, kind, lockops.WithNote("(zklock console)"), progress)
	if err != nil {
		return fmt.Errorf("take %s: %w", p, err)
	}
	b.mu.Lock()
	if b.life.Err() != nil {
		b.mu.Unlock()
		return errBackendEnd
	}
	if o, ok := b.locks[p]; ok {
		switch o.lock.State() {
		case ordering.LockQueued, ordering.LockHolding, ordering.LockSuspended:
			b.mu.Unlock()
			return fmt.Errorf("take %s: %w", p, errAlreadyOwn)
		}
	}
	wctx, stopWait := context.WithCancel(b.life)
	o := &ownLock{lock: l, kind: lkind, node: node, stopWait: stopWait, acquired: make(chan struct{})}
	b.locks[p] = o
	b.wg.Add(1)
	b.mu.Unlock()

	result := make(chan error, 1)
	go func() {
		defer b.wg.Done()
		defer close(o.acquired)
		err := l.Acquire(wctx)
		result <- err
		wasQueued := false
		select {
		case <-queued:
			wasQueued = true
		default:
		}
		switch {
		case err == nil:
		case !wasQueued:
			// Refused before queueing (a mixed queue, NoAuth, a bad
			// path): Take returns the error and the console shows it as
			// the action's failure; nothing was held, so nothing is LOST.
		case wctx.Err() != nil:
			// Released while waiting (or the console closing): the
			// node is deleted by Acquire.
			b.feed.send(ui.OwnLock{Path: p, Node: l.Node(), State: ui.OwnReleased, Since: time.Now()})
		default:
			b.feed.send(ui.OwnLock{Path: p, Node: l.Node(), State: ui.OwnLost, Since: time.Now(), Err: err.Error()})
		}
	}()

	select {
	case <-queued:
		return nil
	case err := <-result:
		if err != nil {
			b.forget(p, o)
		}
		return err
	case <-ctx.Done():
		stopWait()
		b.forget(p, o)
		return fmt.Errorf("take %s: gave up before the node was queued: %w", p, ctx.Err())
	}
}

// newHold is what taking p means: one lease of the semaphore at p, in
// the protocol its clients use, under the limit the context states or the
// console deduces (refused when a Curator semaphore's is unknown); else
// the lock of the kind asked, which on a LeaderLatch election the lock
// core joins as a participant. It also returns the audit's kind and the
// own node relative to p.
func (b *lockBackend) newHold(ctx context.Context, p string, kind ordering.Kind, opts ...lockops.Option) (ownHold, string, func() string, error) {
	info, err := lockops.ReadParent(ctx, b.sess, p)
	if err != nil {
		return nil, "", nil, err
	}
	if style, ok := info.Semaphore(); ok {
		limit := semaphoreLimit(ctx, b.sess, b.limits[p], p)
		if limit == 0 && style == ordering.StyleCurator {
			return nil, "", nil, fmt.Errorf("the limit of semaphore %s is unknown (Curator keeps it in its clients only): state it under semaphores: in the context config", p)
		}
		if limit != 0 {
			opts = append(opts, lockops.WithLimit(limit))
		}
		m := lockops.NewSemaphore(b.sess, p, opts...)
		return m, runKindLease, func() string { return leaseNode(p, m) }, nil
	}
	l := lockops.NewLock(b.sess, p, append(opts, lockops.WithKind(kind))...)
	k := kind.String()
	if info.Latch() {
		k = runKindElection
	}
	return l, k, l.Node, nil
}

// forget drops o from the table if it is still p's entry.
func (b *lockBackend) forget(p string, o *ownLock) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.locks[p] == o {
		delete(b.locks, p)
	}
}

// Release gives up the operator's lock on p, held or still queued.
func (b *lockBackend) Release(ctx context.Context, p string) error {
	b.mu.Lock()
	o, ok := b.locks[p]
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("release %s: %w", p, errNotOwn)
	}
	// Stop a wait first; if the lock was granted meanwhile, Acquire has
	// returned nil and the hold is released below.
	o.stopWait()
	select {
	case <-o.acquired:
	case <-ctx.Done():
		return fmt.Errorf("release %s: still leaving the queue: %w", p, ctx.Err())
	}
	switch o.lock.State() {
	case ordering.LockHolding, ordering.LockSuspended, ordering.LockLost:
		if err := o.lock.Release(ctx); err != nil {
			return err
		}
	}
	b.forget(p, o)
	return nil
}

// Revoke asks the holder of node under p to let go (Curator's protocol).
func (b *lockBackend) Revoke(ctx context.Context, p, node string) error {
	return lockops.Revoke(ctx, b.sess, path.Join(p, node))
}

// ForceRelease deletes node under p if its owner is still session.
func (b *lockBackend) ForceRelease(ctx context.Context, p, node string, session int64) error {
	return lockops.ForceRelease(ctx, b.sess, path.Join(p, node), session)
}

// Close ends every acquisition and hold still running (ui.Run has
// released them already on a normal quit), bounded by closeTimeout.
func (b *lockBackend) Close() {
	b.mu.Lock()
	locks := make([]*ownLock, 0, len(b.locks))
	for _, o := range b.locks {
		locks = append(locks, o)
	}
	b.locks = map[string]*ownLock{}
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	for _, o := range locks {
		o.stopWait()
		select {
		case <-o.acquired:
		case <-ctx.Done():
		}
		if st := o.lock.State(); st == ordering.LockHolding || st == ordering.LockSuspended {
			_ = o.lock.Release(ctx) // the session's close removes the node anyway
		}
	}
	b.cancel()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// ownFeed carries progress reports from the lock core's goroutines (which
// must not block) to the console, in order and without loss: reports
// queue here and one goroutine hands them on.
type ownFeed struct {
	out  chan ui.OwnLock
	mu   sync.Mutex
	q    []ui.OwnLock
	kick chan struct{}
}

func newOwnFeed(life context.Context) *ownFeed {
	f := &ownFeed{out: make(chan ui.OwnLock, 16), kick: make(chan struct{}, 1)}
	go f.pump(life)
	return f
}

func (f *ownFeed) send(o ui.OwnLock) {
	f.mu.Lock()
	// A burst for one lock only needs its last state, except that a
	// report of a new node must not hide the old one's end: keep per
	// path and node.
	if n := len(f.q); n > 0 && f.q[n-1].Path == o.Path && f.q[n-1].Node == o.Node && f.q[n-1].State == o.State {
		f.q[n-1] = o
	} else {
		f.q = append(f.q, o)
	}
	f.mu.Unlock()
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

func (f *ownFeed) pump(life context.Context) {
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
			o := f.q[0]
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
