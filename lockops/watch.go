package lockops

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

// sessionWake is what waitEvent returns as "which" when the Session's
// state changed rather than a watch firing.
const sessionWake = -1

// watch is one armed data watch on a node: go-zookeeper's one-shot
// channel, the node it is on and the node's data when it was armed.
type watch struct {
	name string
	ch   <-chan zk.Event
	data []byte
}

func (w watch) armed() bool { return w.ch != nil }

// armWatch sets a data watch on the node at abs with GetW. GetW, unlike
// ExistsW, sets no watch when the node is already gone (Curator does the
// same): an existence watch on a vanished lock node would never fire and
// would sit on the server for the session's life. gone reports that case.
// A waiter retries across link losses (bounded by ctx); a holder tries
// once (once), since it must get back to watching the session's state.
func armWatch(ctx context.Context, s *Session, abs, name string, once bool) (w watch, gone bool, err error) {
	type got struct {
		data []byte
		ch   <-chan zk.Event
	}
	get := func() (got, error) {
		data, _, ch, err := s.conn.GetW(abs)
		return got{data, ch}, err
	}
	var g got
	if once {
		g, err = do(ctx, get)
	} else {
		g, err = retry(ctx, s, get)
	}
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return watch{}, true, nil
	case err != nil:
		return watch{}, false, fmt.Errorf("watch %s: %w", abs, err)
	}
	return watch{name: name, ch: g.ch, data: g.data}, false, nil
}

// armWatches sets data watches on the children names of the lock parent
// abs in one request (go-zookeeper's WatchData, a patch of ours: a
// SetWatches on the live connection) rather than one GetW each: what a
// waiter arms at once costs one request, not two. Nothing is read; a node
// already gone fires its watch before the answer, which is how gone is
// reported (that watch is left unarmed, the others are armed), and one
// whose data changed after the zxid rel (a revoke since the own node was
// made) is armed again with GetW, which reads the data. A server that
// refuses SetWatches gets one GetW per node.
func armWatches(ctx context.Context, s *Session, rel int64, abs string, names ...string) (ws []watch, gone bool, err error) {
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = abs + "/" + n
	}
	chs, err := retry(ctx, s, func() ([]<-chan zk.Event, error) {
		return s.conn.WatchData(rel, paths...)
	})
	if err != nil && !ConnLoss(err) && ctx.Err() == nil && !errors.Is(err, ErrSessionClosed) && !errors.Is(err, zk.ErrSessionExpired) {
		chs, err = nil, nil // refused: one GetW each below
	}
	if err != nil {
		return nil, false, fmt.Errorf("watch %s: %w", strings.Join(paths, ", "), err)
	}
	ws = make([]watch, len(names))
	for i, n := range names {
		if chs != nil {
			ev, ok := fired(chs[i])
			if !ok {
				ws[i] = watch{name: n, ch: chs[i]}
				continue
			}
			if ev.Type == zk.EventNodeDeleted || ev.Type == zk.EventNotWatching {
				gone = true
				continue
			}
		}
		w, g, err := armWatch(ctx, s, paths[i], n, false)
		if err != nil {
			return ws, gone, err
		}
		ws[i], gone = w, gone || g
	}
	return ws, gone, nil
}

// waitEvent is the one place that waits on a go-zookeeper watch channel.
// It returns when ctx ends (err is ctx.Err()), when the Session's state
// changes (which is sessionWake: read the state again), or when one of at
// most two watches fires (which is its index). Two because a waiter
// watches its predecessor and at most one node more; a nil channel is
// never ready, so absent watches are simply nil.
func waitEvent(ctx context.Context, sessChanged <-chan struct{}, watches ...<-chan zk.Event) (which int, ev zk.Event, err error) {
	var a, b <-chan zk.Event
	switch len(watches) {
	case 0:
	case 1:
		a = watches[0]
	case 2:
		a, b = watches[0], watches[1]
	default:
		return sessionWake, zk.Event{}, fmt.Errorf("lockops: waitEvent: %d watches, at most 2 by design", len(watches))
	}
	var ok bool
	select {
	case <-ctx.Done():
		return sessionWake, zk.Event{}, ctx.Err()
	case <-sessChanged:
		return sessionWake, zk.Event{}, nil
	case ev, ok = <-a:
		which = 0
	case ev, ok = <-b:
		which = 1
	}
	if !ok {
		// go-zookeeper always sends before it closes; a bare close means
		// the watch is gone all the same.
		ev = zk.Event{Type: zk.EventNotWatching}
	}
	return which, ev, nil
}

// fired reports, without waiting, whether a watch has already fired.
// go-zookeeper delivers watch events in the server's order, so after one
// watch fires, every event the server sent before it is already buffered in
// its channel (each channel holds one): this is how a waiter that wakes on
// its predecessor's deletion learns that its own node went first.
func fired(ch <-chan zk.Event) (zk.Event, bool) {
	if ch == nil {
		return zk.Event{}, false
	}
	select {
	case ev, ok := <-ch:
		if !ok {
			ev = zk.Event{Type: zk.EventNotWatching}
		}
		return ev, true
	default:
		return zk.Event{}, false
	}
}

// waiter is one Lock's wait in its queue: the parent it lists and
// watches, and what the wait tells the Lock (its progress, the first
// listing's check of the queue's recipes, the shortcut counts).
type waiter struct {
	lockParent
	report    func(ordering.Progress)
	checkJoin func(all ordering.Ordering, children []string, own string, join joinAs) error
	stats     *waitStats
}

// waitStats counts a Lock's waits that saved a listing, for tests and
// benchmarks.
type waitStats struct {
	// shortcuts counts holds taken on the predecessor's deletion without
	// listing again (see queue).
	shortcuts atomic.Int64
	// ppSkips counts listings saved because PP was the head.
	ppSkips atomic.Int64
}

// queue waits until the own node holds.
//
// The waiter watches its predecessor P (Order's Predecessor). If P was the
// only node in the way when listed ("P is head": by Order, deleting P
// leaves own without predecessor), P's deletion means own holds, without
// listing again: ZooKeeper never gives a later node a lower sequence, and
// deletions cannot add a predecessor. Otherwise the waiter also watches PP,
// the node that would precede it once P is gone; when PP goes it lists
// again while P still holds (off the critical path), so that by the time P
// goes, P is known to be head. Deleting P when P is not known to be head
// means: list again. Never more than two predecessor watches, none of which
// grows with the queue.
//
// The shortcut would be fooled by one thing: the own node deleted by
// someone else (say an operator's force-release) while waiting. So before
// relying on it, the waiter arms a watch on its own node; go-zookeeper
// delivers events in the server's order, so when P's deletion arrives, an
// earlier deletion of the own node is already in its channel.
func (qw waiter) queue(ctx context.Context, c created, join joinAs, wait bool) (tenure, bool, error) {
	var w turn
	first := true
	for {
		children, err := c.listing, error(nil)
		c.listing = nil
		if children == nil {
			children, err = qw.list(ctx, c.gen)
		}
		if err != nil {
			return tenure{}, false, err
		}
		q := ordering.BySequence(children)
		if first {
			first = false
			if err := qw.checkJoin(q, children, c.node, join); err != nil {
				return tenure{}, false, err
			}
		}
		qw.dropEarlierTries(c, children)
		i := q.Index(c.node)
		if i < 0 {
			if qw.s.Generation() != c.gen {
				return tenure{}, false, errSessionGone
			}
			return tenure{}, false, fmt.Errorf("%w (while waiting)", ErrNodeDeleted)
		}
		e := q.Entries[i]
		if e.Predecessor == "" {
			return tenure{created: c, own: w.own}, true, nil
		}
		if !wait {
			return tenure{}, false, nil
		}
		pName := e.Predecessor
		ppName := q.PredecessorWithout(c.node, pName)
		w.pHead = ppName == ""
		// Whether PP was the head when listed: then once PP goes, P is, with
		// no need to list again (the same reasoning as for pHead).
		w.ppHead = !w.pHead && q.PredecessorWithout(c.node, pName, ppName) == ""

		w.keepWatches(pName, ppName)
		gone, err := qw.armTurn(ctx, c, &w, pName, ppName)
		if err != nil {
			return tenure{}, false, err
		}
		if gone {
			continue
		}
		w.queued = ordering.Progress{State: ordering.LockQueued, Node: c.node, Position: i + 1, Watching: pName}
		qw.report(w.queued)

		held, t, err := qw.waitTurn(ctx, c, &w)
		if err != nil || held {
			return t, held, err
		}
	}
}

// turn is what a waiter waits on between two listings: the watches on
// its predecessor P and on PP (P's predecessor) or its own node, what the
// listing said about them, and the progress it last reported.
type turn struct {
	p, pp, own watch
	// pHead: P was the only node in the way when listed, so P's deletion
	// means own holds (then own, not pp, is watched).
	pHead bool
	// ppHead: PP was the only node in the way besides P, so PP's deletion
	// makes P the head.
	ppHead bool
	queued ordering.Progress
}

// waitTurn waits on the watches set by queue until it holds by the
// shortcut (held) or must list again (not held, nil error). It updates w
// as watches fire and are re-armed.
//
// If w.ppHead says PP was the head when listed, PP's deletion makes P the
// head: the waiter arms the own-node watch and goes on waiting as if it had
// listed P as head, one listing fewer.
func (qw waiter) waitTurn(ctx context.Context, c created, w *turn) (held bool, t tenure, err error) {
	suspended := false
	for {
		sch, err := qw.turnSession(c, w, &suspended)
		if err != nil {
			return false, tenure{}, err
		}
		second := w.pp.ch
		if w.pHead {
			second = w.own.ch
		}
		which, ev, err := waitEvent(ctx, sch, w.p.ch, second)
		if err != nil {
			return false, tenure{}, err
		}
		if which == sessionWake {
			continue
		}
		if done, held, t, err := qw.turnEvent(ctx, c, w, which, ev); done {
			return held, t, err
		}
	}
}

// dropEarlierTries deletes the nodes of the listing children that an
// earlier try of this very create made after all: ours, and in the way.
func (qw waiter) dropEarlierTries(c created, children []string) {
	for _, ch := range children {
		if ch != c.node && ownName(ch, c.prefix) {
			go deleteOwned(qw.s, qw.abs+"/"+ch, c.gen)
		}
	}
}

// keepWatches keeps the watches of w still wanted after a listing (on P,
// and on PP unless P is the head) and forgets the others: they are on
// deleted nodes.
func (w *turn) keepWatches(pName, ppName string) {
	pool := []watch{w.p, w.pp}
	take := func(name string) watch {
		for k, pw := range pool {
			if pw.armed() && pw.name == name {
				pool[k] = watch{}
				return pw
			}
		}
		return watch{}
	}
	w.p = take(pName)
	w.pp = watch{}
	if !w.pHead {
		w.pp = take(ppName)
	}
}

// armTurn arms the watches w lacks, in one request: on P; then on the own
// node when P is the head, on PP otherwise. gone: a node was found deleted
// already, so the caller lists again.
func (qw waiter) armTurn(ctx context.Context, c created, w *turn, pName, ppName string) (gone bool, err error) {
	var (
		names []string
		slots []*watch
	)
	if !w.p.armed() {
		names, slots = append(names, pName), append(slots, &w.p)
	}
	if w.pHead && !w.own.armed() {
		names, slots = append(names, c.node), append(slots, &w.own)
	}
	if !w.pHead && !w.pp.armed() {
		names, slots = append(names, ppName), append(slots, &w.pp)
	}
	if len(names) == 0 {
		return false, nil
	}
	ws, gone, err := armWatches(ctx, qw.s, c.czxid, qw.abs, names...)
	for i, nw := range ws {
		*slots[i] = nw
	}
	return gone, err
}

// turnSession reads the Session's state for waitTurn: Suspended is
// reported once while the link is down, Queued again when it is back in
// the same session; a later session is errSessionGone. It returns the
// channel closed at the Session's next change.
func (qw waiter) turnSession(c created, w *turn, suspended *bool) (<-chan struct{}, error) {
	st, gen, sch := qw.s.snapshot()
	if gen != c.gen {
		return nil, errSessionGone
	}
	switch st {
	case SessionClosed:
		return nil, ErrSessionClosed
	case SessionSuspended, SessionExpired:
		if !*suspended {
			*suspended = true
			p := w.queued
			p.State = ordering.LockSuspended
			qw.report(p)
		}
	case SessionConnected:
		if *suspended {
			// Same session: the watches were re-set by go-zookeeper, and
			// the server fires those whose node changed meanwhile.
			*suspended = false
			qw.report(w.queued)
		}
	}
	return sch, nil
}

// turnEvent takes one event of waitTurn's watches (which: 0 for P's, 1 for
// PP's or the own node's). done: waitTurn returns held, t and err; else it
// goes on waiting on w as updated.
func (qw waiter) turnEvent(ctx context.Context, c created, w *turn, which int, ev zk.Event) (done, held bool, t tenure, err error) {
	switch {
	case which == 0 && ev.Type == zk.EventNodeDeleted:
		held, t = qw.predecessorGone(c, w)
		return true, held, t, nil
	case ev.Type == zk.EventNotWatching:
		// The session ended or the Session closed: the list (after
		// waiting for the link) tells which.
		w.p, w.pp, w.own = watch{}, watch{}, watch{}
		return true, false, tenure{}, nil
	case which == 1 && ev.Type == zk.EventNodeDeleted && !w.pHead && w.ppHead:
		gone, err := qw.promoteP(ctx, c, w)
		return gone || err != nil, false, tenure{}, err
	case which == 1 && ev.Type == zk.EventNodeDeleted:
		// PP went (list again while P still holds), or the own node did
		// (the list reports it).
		w.pp, w.own = watch{}, watch{}
		return true, false, tenure{}, nil
	default:
		gone, err := qw.rearmTurn(ctx, w, which)
		return gone || err != nil, false, tenure{}, err
	}
}

// predecessorGone: P was deleted. When P was the head the lock is held by
// the shortcut, without listing again (held, and its tenure); otherwise,
// or when the own node changed meanwhile in a way only a listing can
// tell, the caller lists again.
func (qw waiter) predecessorGone(c created, w *turn) (held bool, t tenure) {
	w.p = watch{}
	if !w.pHead {
		return false, tenure{}
	}
	if oev, ok := fired(w.own.ch); ok {
		w.own = watch{}
		if oev.Type == zk.EventNodeDeleted || oev.Type == zk.EventNotWatching {
			return false, tenure{} // the list tells what happened
		}
		// A data change on the own node: the hold re-arms at once.
		qw.stats.shortcuts.Add(1)
		return true, tenure{created: c, armNow: true}
	}
	qw.stats.shortcuts.Add(1)
	return true, tenure{created: c, own: w.own}
}

// promoteP: PP was the head and went, so P is now. The own-node watch must
// be armed before P's deletion is relied on; if the own node is gone
// already (gone), the list reports it.
func (qw waiter) promoteP(ctx context.Context, c created, w *turn) (gone bool, err error) {
	w.pp = watch{}
	nw, gone, err := armWatch(ctx, qw.s, c.abs, c.node, false)
	if err != nil || gone {
		return gone, err
	}
	w.own = nw
	w.pHead = true
	qw.stats.ppSkips.Add(1)
	w.queued.Position-- // PP was ahead
	qw.report(w.queued)
	return false, nil
}

// rearmTurn re-arms the data watch that fired with a data change (which
// as in turnEvent): a data watch is one-shot. A node found gone meanwhile
// (gone) is handled by listing again.
func (qw waiter) rearmTurn(ctx context.Context, w *turn, which int) (gone bool, err error) {
	fw := &w.p
	if which == 1 {
		fw = &w.pp
		if w.pHead {
			fw = &w.own
		}
	}
	nw, gone, err := armWatch(ctx, qw.s, qw.abs+"/"+fw.name, fw.name, false)
	if err != nil {
		return false, err
	}
	*fw = nw
	return gone, nil
}
