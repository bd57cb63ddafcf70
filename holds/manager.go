package holds

// The console's lock manager: the operator's own holds, by path.

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
)

// The manager's refusals, as the console shows them (after "take PATH: "
// or "release PATH: ").
var (
	ErrAlreadyOwn = errors.New("you already hold or wait for this lock")
	ErrNotOwn     = errors.New("you hold no lock here")
	ErrClosing    = errors.New("console closing")
)

// CloseTimeout bounds how long Close waits for acquisitions to end: a
// cancelled waiter deletes its node in milliseconds, and the session's
// close removes whatever is left anyway.
const CloseTimeout = 5 * time.Second

// Config is what the context states for every take: semaphore limits
// and elections by path (Want.Semaphores, Want.Elections). The maps are
// read at each Take.
type Config struct {
	Semaphores map[string]int
	Elections  []string
}

// Manager is the console's lock manager over the lock core: the same
// Take, and the same lockops calls, that `zklock run`, `release --force`
// and `revoke` make. Its methods are the console's Backend (ui); the
// progress of the operator's holds is told on Own as R, made by the
// report function given to NewManager (the console's ui.OwnFromProgress).
type Manager[R any] struct {
	sess   *lockops.Session
	cfg    Config
	report func(path string, pr ordering.Progress) R
	feed   *feed[R]

	// life bounds every acquisition: a Take outlives the console's call
	// (the operator waits in line while doing other things), not the
	// console.
	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	locks map[string]*ownLock
}

// ownLock is one of the operator's locks, or a semaphore's lease.
type ownLock struct {
	lock     *Hold
	stopWait context.CancelFunc // ends a waiting Acquire (its node is deleted)
	acquired chan struct{}      // closed when Acquire returns
}

// NewManager is a Manager of holds in sess; report turns a hold's
// progress into what Own tells.
func NewManager[R any](sess *lockops.Session, cfg Config, report func(path string, pr ordering.Progress) R) *Manager[R] {
	life, cancel := context.WithCancel(context.Background())
	b := &Manager[R]{sess: sess, cfg: cfg, report: report, life: life, cancel: cancel, locks: map[string]*ownLock{}}
	b.feed = newFeed[R](life)
	return b
}

// Own is the progress of the operator's holds, in order.
func (b *Manager[R]) Own() <-chan R { return b.feed.out }

// tell sends p's progress on Own.
func (b *Manager[R]) tell(p string, pr ordering.Progress) {
	b.feed.send(feedKey{path: p, node: pr.Node, state: pr.State}, b.report(p, pr))
}

// Take queues for the lock at p and returns once the own node exists (or
// the attempt failed); the wait goes on in the background and reports on
// Own. If ctx ends before the node is queued, the attempt is abandoned
// (its node, if any, deleted). On a semaphore it takes one lease (kind
// does not apply); on a LeaderLatch election it joins as a participant.
func (b *Manager[R]) Take(ctx context.Context, p string, kind ordering.Kind) error {
	queued := make(chan struct{})
	var once sync.Once
	progress := lockops.WithProgress(func(pr ordering.Progress) {
		if pr.State == ordering.LockQueued || pr.State == ordering.LockHolding {
			once.Do(func() { close(queued) })
		}
		b.tell(p, pr)
	})
	// Read before taking b.mu: it is a request.
	l, err := b.newHold(ctx, p, kind, lockops.WithNote("(zklock console)"), progress)
	if err != nil {
		return fmt.Errorf("take %s: %w", p, err)
	}
	b.mu.Lock()
	if b.life.Err() != nil {
		b.mu.Unlock()
		return ErrClosing
	}
	if o, ok := b.locks[p]; ok {
		switch o.lock.State() {
		case ordering.LockQueued, ordering.LockHolding, ordering.LockSuspended:
			b.mu.Unlock()
			return fmt.Errorf("take %s: %w", p, ErrAlreadyOwn)
		}
	}
	wctx, stopWait := context.WithCancel(b.life)
	o := &ownLock{lock: l, stopWait: stopWait, acquired: make(chan struct{})}
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
			b.tell(p, ordering.Progress{Node: l.recipe.Node(), State: ordering.LockReleased, At: time.Now()})
		default:
			b.tell(p, ordering.Progress{Node: l.recipe.Node(), State: ordering.LockLost, At: time.Now(), Err: err})
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

// newHold is what taking p means (Take): the parent decides, as for
// `zklock run` without --kind; kind applies to a lock. A Curator
// semaphore whose limit is unknown is refused now, before anything is
// queued.
func (b *Manager[R]) newHold(ctx context.Context, p string, kind ordering.Kind, opts ...lockops.Option) (*Hold, error) {
	h, err := Take(ctx, b.sess, p, Want{
		Kind: kind.String(), Semaphores: b.cfg.Semaphores, Elections: b.cfg.Elections, Options: opts, RefuseUnknownLimit: true,
	})
	if errors.Is(err, ErrLimitUnknown) {
		return nil, fmt.Errorf("the limit of semaphore %s is unknown (Curator keeps it in its clients only): state it under semaphores: in the context config", p)
	}
	return h, err
}

// Owned is the own node at p (relative to p) and the audit's kind, ""
// when the operator owns nothing there.
func (b *Manager[R]) Owned(p string) (node, kind string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if o, ok := b.locks[p]; ok {
		return o.lock.Node(), o.lock.Kind()
	}
	return "", ""
}

// forget drops o from the table if it is still p's entry.
func (b *Manager[R]) forget(p string, o *ownLock) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.locks[p] == o {
		delete(b.locks, p)
	}
}

// Release gives up the operator's lock on p, held or still queued.
func (b *Manager[R]) Release(ctx context.Context, p string) error {
	b.mu.Lock()
	o, ok := b.locks[p]
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("release %s: %w", p, ErrNotOwn)
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
func (b *Manager[R]) Revoke(ctx context.Context, p, node string) error {
	return lockops.Revoke(ctx, b.sess, path.Join(p, node))
}

// ForceRelease deletes node under p if its owner is still session.
func (b *Manager[R]) ForceRelease(ctx context.Context, p, node string, session int64) error {
	return lockops.ForceRelease(ctx, b.sess, path.Join(p, node), session)
}

// Close ends every acquisition and hold still running (the console has
// released them already on a normal quit), bounded by CloseTimeout.
func (b *Manager[R]) Close() {
	b.mu.Lock()
	locks := make([]*ownLock, 0, len(b.locks))
	for _, o := range b.locks {
		locks = append(locks, o)
	}
	b.locks = map[string]*ownLock{}
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
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
