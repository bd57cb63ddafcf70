// The hold: watching the own node and the session while held, the loss
// of a hold (Done, Err), and release.

package lockops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

// tenure is a hold: the own node, and its watch if one is armed.
type tenure struct {
	created
	own    watch
	armNow bool // the own watch fired with a data change: re-arm at once
	lost   bool // (Release only) the hold was lost before the release
}

// heldGen is the session generation of a held lock's node.
func (l *Lock) heldGen() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ten.gen
}

// removeNode deletes an own node that is not (or no longer) wanted,
// waiting up to cleanupWait even when ctx has already ended; past that the
// deletion goes on in the background.
func (l *Lock) removeNode(ctx context.Context, c created) error {
	res := make(chan error, 1)
	go func() { res <- deleteOwned(l.s, c.abs, c.gen) }()
	t := time.NewTimer(cleanupWait)
	defer t.Stop()
	select {
	case err := <-res:
		if err != nil {
			return fmt.Errorf("delete own node %s: %w", c.abs, err)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("delete own node %s: still trying in the background (link down)", c.abs)
	}
}

// deleteOwned deletes a node owned by session generation gen, retrying
// across link losses until it is gone, or its session is (the server then
// deletes it), or the Session is closed.
func deleteOwned(s *Session, abs string, gen uint64) error {
	for {
		st, g, ch := s.snapshot()
		if g != gen || st == SessionClosed {
			return nil
		}
		if st != SessionConnected {
			<-ch
			continue
		}
		err := s.conn.Delete(abs, -1)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrSessionExpired), errors.Is(err, zk.ErrClosing):
			return nil
		case ConnLoss(err):
			continue
		default:
			return err
		}
	}
}

// hold records the hold and starts its monitor.
func (l *Lock) hold(t tenure) {
	ctx, cancel := context.WithCancel(context.Background())
	l.mu.Lock()
	l.state = ordering.LockHolding
	l.ten = t
	l.done = make(chan struct{})
	l.err = nil
	l.stop = cancel
	l.mu.Unlock()
	l.report(ordering.Progress{State: ordering.LockHolding, Node: t.node, Position: 1})
	go l.monitor(ctx, t)
}

// monitor watches a hold until it is released (ctx cancelled) or lost.
// Session expiry is seen at once through the Session's state; deletion of
// the own node by someone else through a data watch on it, armed after
// ownWatchDelay (at once for revocable locks, or if the waiter had armed it
// already).
func (l *Lock) monitor(ctx context.Context, t tenure) {
	m := holdWatch{own: t.own, armAt: time.Now().Add(ownWatchDelay)}
	if l.cfg.revocable || t.armNow {
		m.armAt = time.Now()
	}
	if m.own.armed() && l.cfg.revocable && string(m.own.data) == revokeData {
		l.revoke(t)
		return
	}
	for {
		if ctx.Err() != nil {
			return
		}
		st, gen, sch := l.s.snapshot()
		stop, again := l.checkSession(ctx, t, &m, st, gen)
		switch {
		case stop:
			return
		case again:
			continue
		}
		if !m.own.armed() {
			stop = l.armOwn(ctx, t, &m, st, sch)
		} else {
			stop = l.awaitOwn(ctx, t, &m, sch)
		}
		if stop {
			return
		}
	}
}

// holdWatch is what monitor keeps between its turns: the watch on the
// own node (not armed until armAt), and whether the session is
// suspended.
type holdWatch struct {
	own       watch
	armAt     time.Time
	suspended bool
}

// checkSession answers the session's state st (generation gen) for the
// hold t: lost with the session, suspended with it, and, when the same
// session is back, checked still there. stop: the hold ended; again: look
// at the state again.
func (l *Lock) checkSession(ctx context.Context, t tenure, m *holdWatch, st SessionState, gen uint64) (stop, again bool) {
	switch {
	case gen != t.gen || st == SessionExpired:
		l.lose(t, ErrSessionExpired)
		return true, false
	case st == SessionClosed:
		l.lose(t, ErrSessionClosed)
		return true, false
	case st == SessionSuspended:
		if !m.suspended {
			m.suspended = true
			l.setHoldState(ordering.LockSuspended, t)
		}
	case st == SessionConnected && m.suspended:
		// Same session back: the node should still be there; make sure.
		ok, err := do(ctx, func() (bool, error) {
			ok, _, err := l.s.conn.Exists(t.abs)
			return ok, err
		})
		if ConnLoss(err) || ctx.Err() != nil {
			return false, true
		}
		if err == nil && !ok {
			l.lose(t, ErrNodeDeleted)
			return true, false
		}
		m.suspended = false
		l.setHoldState(ordering.LockHolding, t)
	}
	return false, false
}

// armOwn sets the watch on the own node once connected and armAt has
// come (waiting for either on the session's channel sch); true when the
// hold ended (lost, revoked, or ctx done).
func (l *Lock) armOwn(ctx context.Context, t tenure, m *holdWatch, st SessionState, sch <-chan struct{}) (stop bool) {
	if st != SessionConnected {
		_, _, err := waitEvent(ctx, sch)
		return err != nil
	}
	if d := time.Until(m.armAt); d > 0 {
		wctx, cancel := context.WithTimeout(ctx, d)
		_, _, _ = waitEvent(wctx, sch)
		cancel()
		return false
	}
	w, gone, err := armWatch(ctx, l.s, t.abs, t.node, true)
	switch {
	case ctx.Err() != nil:
		return true
	case gone:
		l.lose(t, ErrNodeDeleted)
		return true
	case err != nil:
		// The link dropped (the state tells what next), or the
		// server refused: try again a little later, not in a spin.
		m.armAt = time.Now().Add(ownWatchDelay)
		return false
	case l.cfg.revocable && string(w.data) == revokeData:
		l.revoke(t)
		return true
	}
	m.own = w
	return false
}

// awaitOwn waits for the own node's watch or a change of the session
// (sch); true when the hold ended (the node deleted, or ctx done).
func (l *Lock) awaitOwn(ctx context.Context, t tenure, m *holdWatch, sch <-chan struct{}) (stop bool) {
	which, ev, err := waitEvent(ctx, sch, m.own.ch)
	if err != nil {
		return true
	}
	switch {
	case which == sessionWake:
	case ev.Type == zk.EventNodeDeleted:
		if ctx.Err() == nil {
			l.lose(t, ErrNodeDeleted)
		}
		return true
	default:
		// data changed (perhaps a revoke), or the watch was dropped:
		// re-arm at once and look at the data.
		m.own = watch{}
		m.armAt = time.Now()
	}
	return false
}

func (l *Lock) setHoldState(st ordering.LockState, t tenure) {
	l.mu.Lock()
	if l.releasing || l.stale(t) {
		l.mu.Unlock()
		return
	}
	l.state = st
	l.mu.Unlock()
	l.report(ordering.Progress{State: st, Node: t.node, Position: 1})
}

// stale reports (l.mu held) whether t is not the current hold: the Lock
// does not hold, or holds again with another node. A monitor still
// running after its hold ended (Rejoin holds again within a round trip)
// must not touch the next hold.
func (l *Lock) stale(t tenure) bool {
	return (l.state != ordering.LockHolding && l.state != ordering.LockSuspended) || l.ten.abs != t.abs
}

// lose ends a hold that its holder did not end. If the session may still
// live (expiry presumed while the link is down), the node is deleted
// should the same session come back, so a lock given up is never held.
func (l *Lock) lose(t tenure, why error) {
	l.mu.Lock()
	if l.releasing || l.stale(t) {
		l.mu.Unlock()
		return
	}
	err := fmt.Errorf("%w: %s: %w", ErrLost, t.node, why)
	l.state = ordering.LockLost
	l.err = err
	close(l.done)
	l.mu.Unlock()
	l.report(ordering.Progress{State: ordering.LockLost, Node: t.node, Err: err})
	if !errors.Is(why, ErrNodeDeleted) {
		go deleteOwned(l.s, t.abs, t.gen)
	}
}

// revoke honours a revocation: the hold ends and lose deletes the node.
func (l *Lock) revoke(t tenure) { l.lose(t, ErrRevoked) }

// Release deletes the own node. A lock that is not held (never acquired,
// already released) gives ErrNotHeld. Releasing a lock that was lost
// returns nil at once (the loss was reported by Done and Err; if its
// session may still live, the node is deleted in the background).
// While the link is down the delete is retried once it is back; if the
// session ends meanwhile the node is gone with it and Release succeeds. If
// ctx ends first, the error is returned and the deletion goes on in the
// background.
func (l *Lock) Release(ctx context.Context) error {
	l.mu.Lock()
	switch l.state {
	case ordering.LockHolding, ordering.LockSuspended, ordering.LockLost:
	default:
		l.mu.Unlock()
		return fmt.Errorf("release %s: %w", l.path, ErrNotHeld)
	}
	t, stop := l.ten, l.stop
	t.lost = l.state == ordering.LockLost
	l.releasing = true
	l.mu.Unlock()

	// The Watcher ends on its own; releasing (set above) keeps it from
	// reporting our own delete as a loss, so there is no need to wait.
	stop()

	if t.lost {
		// lose already deletes the node in the background if the session
		// may still live; nothing is held.
		l.finishRelease(t, nil)
		return nil
	}
	err := l.deleteForRelease(ctx, t)
	l.finishRelease(t, err)
	return err
}

// deleteForRelease deletes the own node, or waits until the session that
// owns it has ended (or is presumed to have: then the deletion goes on in
// the background should the same session come back).
func (l *Lock) deleteForRelease(ctx context.Context, t tenure) error {
	if st, gen, _ := l.s.snapshot(); st == SessionConnected && gen == t.gen && ctx.Done() == nil {
		// A context that never ends, over a live link: no goroutine needed
		// (go-zookeeper fails the delete once the link drops; then below).
		err := l.s.conn.Delete(t.abs, -1)
		if err == nil || errors.Is(err, zk.ErrNoNode) {
			return nil
		}
	}
	res := make(chan error, 1)
	go func() { res <- deleteOwned(l.s, t.abs, t.gen) }()
	for {
		st, gen, sch := l.s.snapshot()
		if gen != t.gen || st == SessionExpired || st == SessionClosed {
			return nil
		}
		select {
		case err := <-res:
			if err != nil {
				return fmt.Errorf("release %s: delete %s: %w", l.path, t.node, err)
			}
			return nil
		case <-ctx.Done():
			return fmt.Errorf("release %s: %w (the node is deleted once the link is back, or goes with the session)", l.path, ctx.Err())
		case <-sch:
		}
	}
}

func (l *Lock) finishRelease(t tenure, err error) {
	l.mu.Lock()
	if l.state != ordering.LockLost {
		close(l.done)
	}
	l.state = ordering.LockIdle
	l.mu.Unlock()
	l.report(ordering.Progress{State: ordering.LockReleased, Node: t.node, Err: err})
}
