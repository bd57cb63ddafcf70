// Rejoin: give the lock back and queue again at once, in one transaction
// (issue #43).

package lockops

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

// ErrRejoinUnsupported: Rejoin of a Lock that is not a lock's own node: a
// semaphore's lease (WithLimit) or an election's participant (WithLatch).
// A lease is admitted under a second lock that a multi on one parent
// cannot take, and a participant that re-queues on every turn is not
// what an election means.
var ErrRejoinUnsupported = errors.New("lockops: Rejoin is for a mutex, read or write lock, not a semaphore's lease or an election participant")

// Rejoin gives the lock back and queues again at once, for a worker that
// loops on the lock. In one ZooKeeper transaction (a multi) it deletes the
// own node and creates the next own node at the queue's tail, named as the
// first was (style, family, data, ACL; a fresh guid). The hold ends when
// that transaction commits: Done closes with Err nil and progress reports
// LockReleased (its At is when the multi's answer arrived). Then Rejoin
// waits as Acquire does, and returns nil once the lock is held again, with
// the new node's czxid (the multi's zxid) as FencingToken.
//
// Why one transaction: with Release then Acquire, the re-create is sent
// after the delete's answer and gets a log commit of its own, which the
// next holder's delete then waits behind. The multi puts both in the
// commit that hands the lock over.
//
// A lock that is not held gives ErrNotHeld, as Release does; one whose
// hold was already lost (Done closed) gives ErrNotHeld wrapping Err(), and
// is then idle. A lease or an election participant gives
// ErrRejoinUnsupported. If the own node was deleted by someone else the
// multi does nothing: the error wraps ErrLost and ErrNodeDeleted, Done
// closes with the same error, and nothing is left.
//
// A link lost during the multi leaves its outcome unknown but atomic: once
// the link is back, a child with the new node's guid means it happened;
// else the old node still there means it did not (the multi is sent
// again); else the session ended with both. A session that ended (the hold
// with it: Err wraps ErrSessionExpired) makes Rejoin acquire from scratch
// in the new one, as Acquire would. Any other error (ctx ended, the
// Session closed, a refusal) returns with the lock not held and no node
// left: the old hold ended and the new node deleted, as a cancelled
// Acquire deletes its own (in the background past a couple of seconds).
func (l *Lock) Rejoin(ctx context.Context) error {
	if l.cfg.leaseBase != "" || l.cfg.limit != 0 || l.cfg.latch {
		return fmt.Errorf("rejoin %s: %w", l.path, ErrRejoinUnsupported)
	}
	if l.pathErr != nil {
		return fmt.Errorf("rejoin %s: %w", l.path, l.pathErr)
	}
	t, err := l.takeForRejoin()
	if err != nil {
		return err
	}
	c, err := l.swap(ctx, t)
	if err == nil && c.node == "" {
		// The session ended with the old node: queue from scratch.
		var held bool
		t, held, err = l.contend(ctx, true)
		err = heldOrErr(held, err)
	} else if err == nil {
		var held bool
		t, held, err = l.contendFrom(ctx, c, c.join, true)
		err = heldOrErr(held, err)
	}
	if err != nil {
		l.mu.Lock()
		l.state = ordering.LockIdle
		l.mu.Unlock()
		return fmt.Errorf("rejoin %s: %w", l.path, err)
	}
	l.hold(t)
	return nil
}

// heldOrErr: a waiting contend returns held or an error; anything else is
// a bug that must not pass for a hold.
func heldOrErr(held bool, err error) error {
	if err == nil && !held {
		return errors.New("lockops: queue returned neither a hold nor an error")
	}
	return err
}

// takeForRejoin takes the current hold from its monitor, as Release does.
func (l *Lock) takeForRejoin() (tenure, error) {
	l.mu.Lock()
	switch l.state {
	case ordering.LockHolding, ordering.LockSuspended:
	case ordering.LockLost:
		t, lost := l.ten, l.err
		l.mu.Unlock()
		// As Release of a lost lock: lose already deletes the node if
		// its session may still live.
		l.finishRelease(t, nil)
		return tenure{}, fmt.Errorf("rejoin %s: %w: %w", l.path, ErrNotHeld, lost)
	default:
		l.mu.Unlock()
		return tenure{}, fmt.Errorf("rejoin %s: %w", l.path, ErrNotHeld)
	}
	t, stop := l.ten, l.stop
	l.releasing = true
	l.mu.Unlock()
	stop()
	return t, nil
}

type multiResult struct {
	made string // the created node's server path
	zxid int64
	err  error
	at   time.Time // when the answer arrived
}

// swap ends the hold t with the multi that deletes its node and creates
// the next own node at the tail, and returns that node; a zero created
// when the session ended (the caller queues from scratch). On an error
// the hold has ended and nothing of it is left.
func (l *Lock) swap(ctx context.Context, t tenure) (created, error) {
	p := l.parent()
	prefix, err := ownPrefix(l.cfg, t.join)
	if err != nil {
		l.endHold(t, nil, time.Time{})
		go deleteOwned(l.s, t.abs, t.gen)
		return created{}, err
	}
	full := l.abs + "/" + prefix
	for {
		gen, err := l.s.waitConnected(ctx)
		if err != nil {
			l.endHold(t, nil, time.Time{})
			go l.reapRejoin(nil, t, prefix)
			return created{}, err
		}
		if gen != t.gen {
			l.endHold(t, ErrSessionExpired, time.Time{})
			return created{}, nil
		}
		r, listing, pending, err := sendListed(ctx, p, full, func() multiResult {
			mr, zxid, err := l.s.conn.MultiZxid(
				&zk.DeleteRequest{Path: t.abs, Version: -1},
				&zk.CreateRequest{Path: full, Data: l.cfg.data, Acl: l.cfg.acl, Flags: zk.FlagEphemeral | zk.FlagSequence})
			r := multiResult{zxid: zxid, err: err, at: time.Now()}
			if err == nil && len(mr) == 2 {
				r.made = mr[1].String
			}
			return r
		})
		if err != nil {
			l.endHold(t, nil, time.Time{})
			go l.reapRejoin(pending, t, prefix)
			return created{}, err
		}
		c, again, err := l.swapped(ctx, t, r, prefix, gen)
		if again {
			continue
		}
		if err == nil && c.node != "" && listing != nil {
			c.listing = p.awaitListing(ctx, listing, c)
		}
		return c, err
	}
}

// swapped reads the multi's answer r for swap: the new node, a zero one
// (queue from scratch), or again: nothing happened, send the multi again.
func (l *Lock) swapped(ctx context.Context, t tenure, r multiResult, prefix string, gen uint64) (c created, again bool, err error) {
	switch {
	case r.err == nil && r.made != "":
		l.endHold(t, nil, r.at)
		return created{node: path.Base(r.made), abs: r.made, prefix: prefix, gen: gen, czxid: r.zxid, join: t.join}, false, nil
	case r.err == nil:
		l.endHold(t, nil, r.at)
		go l.reapRejoin(nil, t, prefix)
		return created{}, false, errors.New("multi answered without the created node")
	case errors.Is(r.err, zk.ErrNoNode):
		// The delete failed, so nothing happened: someone deleted the node.
		l.endHold(t, ErrNodeDeleted, r.at)
		return created{}, false, fmt.Errorf("%w: %s: %w", ErrLost, t.node, ErrNodeDeleted)
	case errors.Is(r.err, zk.ErrSessionExpired), errors.Is(r.err, zk.ErrNoServer):
		return created{}, true, nil // swap finds the session's fate
	case errors.Is(r.err, zk.ErrClosing):
		l.endHold(t, ErrSessionClosed, r.at)
		return created{}, false, ErrSessionClosed
	case ConnLoss(r.err):
		return l.resolveSwap(ctx, t, prefix, gen)
	}
	// Refused (an ACL, say): nothing happened; end the hold as Release.
	err = l.deleteForRelease(ctx, t)
	l.endHold(t, nil, time.Now())
	return created{}, false, errors.Join(fmt.Errorf("multi: %w", r.err), err)
}

// resolveSwap finds out, once the link is back, what a multi whose answer
// was lost did: the new node exists (it happened), or the old one does (it
// did not: again), or the session ended (zero created: from scratch).
func (l *Lock) resolveSwap(ctx context.Context, t tenure, prefix string, gen uint64) (created, bool, error) {
	c, found, err := l.parent().findOwn(ctx, prefix, gen)
	if err == nil && found {
		c.czxid, found, err = readCzxid(ctx, l.s, c.abs, gen)
	}
	if errors.Is(err, errSessionGone) {
		return created{}, true, nil
	}
	if err != nil {
		l.endHold(t, nil, time.Time{})
		go l.reapRejoin(nil, t, prefix)
		return created{}, false, err
	}
	if found {
		c.join = t.join
		l.endHold(t, nil, time.Now())
		return c, false, nil
	}
	old, err := retry(ctx, l.s, func() (bool, error) {
		ok, _, err := l.s.conn.Exists(t.abs)
		return ok, err
	})
	switch {
	case l.s.Generation() != gen, errors.Is(err, zk.ErrSessionExpired):
		return created{}, true, nil
	case err != nil:
		l.endHold(t, nil, time.Time{})
		go l.reapRejoin(nil, t, prefix)
		return created{}, false, err
	case old:
		return created{}, true, nil
	}
	// Both gone in a live session: someone deleted the old node (and the
	// multi failed on it), or deleted the new one after it.
	l.endHold(t, ErrNodeDeleted, time.Now())
	return created{}, false, fmt.Errorf("%w: %s: %w", ErrLost, t.node, ErrNodeDeleted)
}

// endHold ends the hold t that Rejoin took over: released (why nil) or
// lost (why says how). Done closes, progress reports it (at: when, if
// known), and the Lock is queued for its next hold.
func (l *Lock) endHold(t tenure, why error, at time.Time) {
	var err error
	l.mu.Lock()
	if why != nil {
		err = fmt.Errorf("%w: %s: %w", ErrLost, t.node, why)
		l.err = err
	}
	if l.state != ordering.LockLost {
		close(l.done)
	}
	l.state = ordering.LockQueued
	l.releasing = false
	l.mu.Unlock()
	st := ordering.LockReleased
	if err != nil {
		st = ordering.LockLost
	}
	l.report(ordering.Progress{State: st, Node: t.node, Err: err, At: at})
}

// reapRejoin removes what a Rejoin that gave up may have left: the new
// node if the multi happened (pending: its answer, if it was sent), else
// the old one, so that nothing of the Lock is left behind. It ends with
// the session at the latest.
func (l *Lock) reapRejoin(pending <-chan multiResult, t tenure, prefix string) {
	if pending != nil {
		if r := <-pending; r.err == nil && r.made != "" {
			_ = deleteOwned(l.s, r.made, t.gen)
			return
		}
	}
	_ = deleteOwned(l.s, t.abs, t.gen)
	if c, found, err := l.parent().findOwn(context.Background(), prefix, t.gen); err == nil && found {
		_ = deleteOwned(l.s, c.abs, t.gen)
	}
}
