package peers

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// cancelWait bounds the cleanup of a request whose Acquire context ended:
// the driver answers within milliseconds unless the process is stuck.
const cancelWait = 10 * time.Second

// Hold is one lock request of one client and, once granted, the lock it
// holds. Each request uses its own lock object (a new InterProcessMutex or
// Kazoo Lock) on its own driver thread, since Curator's locks belong to the
// thread that took them.
type Hold struct {
	p      *Proc
	id     string
	client int
	path   string
	kind   LockKind

	acquired chan struct{} // closed once granted
	settled  chan struct{} // closed once released, cancelled, failed, or the driver gone
	lost     chan struct{} // closed when the client learns its session, and the lock, are gone

	// Under p.mu.
	node      string
	times     HoldTimes
	err       error // why it settled; nil after a release
	granted   bool
	releasing bool
	lostOnce  bool
	isSettled bool
}

// HoldTimes are a request's moments by the driver's clock (zero: not yet).
type HoldTimes struct {
	Requested       time.Time // acquire called
	Acquired        time.Time // acquire returned holding
	ReleaseCalled   time.Time
	ReleaseReturned time.Time
	Lost            time.Time // the client learned the lock was lost (see Lost)
}

// request registers a Hold of client's on path and sends the driver its
// acquire (Proc.Request).
func request(p *Proc, client int, path string, kind LockKind) (*Hold, error) {
	if err := p.checkClient(client); err != nil {
		return nil, err
	}
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if err := checkLockKind(kind); err != nil {
		return nil, err
	}
	h := &Hold{
		p: p, id: "h" + strconv.FormatUint(p.nextID.Add(1), 10), client: client, path: path, kind: kind,
		acquired: make(chan struct{}), settled: make(chan struct{}), lost: make(chan struct{}),
	}
	p.mu.Lock()
	select {
	case <-p.exited:
		p.mu.Unlock()
		return nil, p.exitErr()
	default:
	}
	// Registered before the command goes, so that no answer can precede it.
	p.holds[h.id] = h
	p.mu.Unlock()
	if err := p.send(fmt.Sprintf("acquire %s %d %s %s", h.id, client, path, kind)); err != nil {
		p.mu.Lock()
		delete(p.holds, h.id)
		h.settleLocked(err)
		p.mu.Unlock()
		return nil, err
	}
	return h, nil
}

// acquire requests and waits for the grant, cancelling the request when
// ctx ends first (Proc.Acquire).
func acquire(ctx context.Context, p *Proc, client int, path string, kind LockKind) (*Hold, error) {
	h, err := request(p, client, path, kind)
	if err != nil {
		return nil, err
	}
	if err := h.Wait(ctx); err != nil {
		if ctx.Err() != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelWait)
			defer cancel()
			_ = h.Cancel(cctx)
		}
		return nil, fmt.Errorf("peers: %s client %d: acquire %s %s: %w", p.kind, client, kind, path, err)
	}
	return h, nil
}

// ID is the request's id. A latch or election participant's id (its
// node's data) is this id.
func (h *Hold) ID() string { return h.id }

// Client is the client that made the request.
func (h *Hold) Client() int { return h.client }

// Path is the lock path.
func (h *Hold) Path() string { return h.path }

// Kind is what was requested.
func (h *Hold) Kind() LockKind { return h.kind }

// Acquired is closed once the lock is granted.
func (h *Hold) Acquired() <-chan struct{} { return h.acquired }

// Lost is closed when the client learns, while holding, that its session
// is gone (the connection state LOST), and its lock with it. Stock Curator
// and Kazoo do not watch their own node: a lock node deleted by someone
// else goes unnoticed, and this stays open.
func (h *Hold) Lost() <-chan struct{} { return h.lost }

// Wait waits until the lock is granted (nil, also if it has since been
// released), the request fails or is cancelled, the driver exits, or ctx
// ends. A ctx that ends leaves the request pending (see Cancel).
func (h *Hold) Wait(ctx context.Context) error {
	select {
	case <-h.acquired:
		return nil
	default:
	}
	select {
	case <-h.acquired:
		return nil
	case <-h.settled:
		select {
		case <-h.acquired:
			return nil
		default:
		}
		h.p.mu.Lock()
		defer h.p.mu.Unlock()
		return h.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Held says whether the lock is granted and not yet released (a lost lock
// still counts until released: the client has not let it go).
func (h *Hold) Held() bool {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	return h.granted && !h.isSettled
}

// Node is the lock node's name (not its path), once granted.
func (h *Hold) Node() string {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	return h.node
}

// Times are the request's moments so far.
func (h *Hold) Times() HoldTimes {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	return h.times
}

// Interval is the critical section as the client lived it: from the return
// of acquire to the call of release (End is zero while it holds).
func (h *Hold) Interval(who string) Interval {
	t := h.Times()
	return Interval{Who: who, Start: t.Acquired, End: t.ReleaseCalled}
}

// Release releases a granted lock and waits until the client's release
// returned. It fails with ErrNotHeld for a request not granted or already
// released, with ErrFailed when the client's release threw.
func (h *Hold) Release(ctx context.Context) error {
	h.p.mu.Lock()
	if !h.granted || h.releasing || h.isSettled {
		h.p.mu.Unlock()
		return fmt.Errorf("peers: release %s (client %d, %s): %w", h.path, h.client, h.id, ErrNotHeld)
	}
	h.releasing = true
	h.p.mu.Unlock()
	if err := h.p.send("release " + h.id); err != nil {
		return err
	}
	return h.waitSettled(ctx, "release")
}

// Cancel abandons the request: a pending acquire is cancelled (Kazoo
// deletes its node before answering; Curator, interrupted, deletes it in
// its background within milliseconds) and a lock granted meanwhile is
// released. It returns once the driver has done so; a request already
// settled is left as it is.
func (h *Hold) Cancel(ctx context.Context) error {
	h.p.mu.Lock()
	done := h.isSettled
	h.p.mu.Unlock()
	if done {
		return nil
	}
	if err := h.p.send("cancel " + h.id); err != nil {
		return err
	}
	err := h.waitSettled(ctx, "cancel")
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		return nil // settled by the cancellation itself
	}
	return err
}

func (h *Hold) waitSettled(ctx context.Context, what string) error {
	select {
	case <-h.settled:
		h.p.mu.Lock()
		defer h.p.mu.Unlock()
		return h.err
	case <-ctx.Done():
		return fmt.Errorf("peers: %s %s (client %d, %s): %w", what, h.path, h.client, h.id, ctx.Err())
	}
}

func (h *Hold) acquiredLocked(node string, requested, acquired time.Time) {
	if h.granted || h.isSettled {
		return
	}
	h.node, h.granted = node, true
	h.times.Requested, h.times.Acquired = requested, acquired
	close(h.acquired)
}

func (h *Hold) releasedLocked(called, returned time.Time) {
	h.times.ReleaseCalled, h.times.ReleaseReturned = called, returned
	h.settleLocked(nil)
}

func (h *Hold) lostLocked(t time.Time) {
	if h.lostOnce {
		return
	}
	h.lostOnce = true
	h.times.Lost = t
	close(h.lost)
}

func (h *Hold) settleLocked(err error) {
	if h.isSettled {
		return
	}
	h.isSettled, h.err = true, err
	close(h.settled)
}
