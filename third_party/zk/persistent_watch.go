package zk

// zklock patch: this whole file. Persistent and persistent recursive watches
// (ZooKeeper 3.6+, addWatch), their removal, and their re-registration after a
// reconnect. See PATCHES.md.

import (
	"strings"
	"sync"
	"sync/atomic"
)

// AddWatch sets a persistent watch on path (ZooKeeper 3.6+) and returns a
// channel that receives every event of the watch, in the server's order,
// until the watch ends. Unlike the one-shot watches of GetW, ExistsW and
// ChildrenW it stays set after an event. The node need not exist.
//
// Not recursive (AddWatchModePersistent), the channel receives
// EventNodeCreated, EventNodeDeleted, EventNodeDataChanged and
// EventNodeChildrenChanged for path itself. Recursive
// (AddWatchModePersistentRecursive), it receives EventNodeCreated,
// EventNodeDeleted and EventNodeDataChanged for path and every node below
// it, each with the path of the node that changed (the server sends no
// EventNodeChildrenChanged for a recursive watch).
//
// Two further kinds of event arrive on the channel:
//
//   - Event{Type: EventSession, State: StateHasSession, Path: path}: the
//     connection was lost and re-established in the same session and the
//     watch set again (SetWatches2). The server does not replay changes
//     made while the client was disconnected: re-read what the watch covers.
//   - Event{Type: EventNotWatching, Path: path, Err: err}, always the last
//     event before the channel is closed: the watch is gone. Err is
//     ErrWatchOverflow when the consumer fell too far behind (the receive
//     loop never waits for a consumer: once the watch holds its limit of
//     events not yet received, 65536 by default, see
//     WithPersistentWatchBuffer, the watch ends and later events are
//     dropped), ErrSessionExpired or ErrClosing when the session ended, or
//     the server's error when it refused to set the watch again after a
//     reconnect. Events were lost: re-read and add the watch again.
//
// The channel has a small buffer; a backlog beyond it is queued by the
// client, taking memory only while it lasts, and handed over in order by a
// goroutine that runs only while there is a backlog. Read the channel until
// it is closed, or call RemovePersistentWatch: a watch that ended with a
// backlog nobody reads keeps that goroutine and the backlog.
//
// RemovePersistentWatch closes the channel without a further event.
//
// A server older than 3.6 answers ErrUnimplemented (some close the
// connection instead: ErrConnectionClosed); fall back to one-shot watches.
//
// Servers without the fix for ZOOKEEPER-4466 (3.8.0 among them) keep one
// watch mode per path and session: a GetW or ExistsW on the same path as a
// persistent watch turns the server's watch on that path into a one-shot
// one. Do not mix the two on one path.
func (c *Conn) AddWatch(path string, recursive bool) (<-chan Event, error) {
	return c.AddWatchAsync(path, recursive).Wait()
}

// zklock patch (patch 3): AddWatchAsync and PendingWatch.

// AddWatchAsync sends the request of AddWatch and returns without waiting
// for the server's answer; Wait on the result returns what AddWatch would
// have. Between the two the caller may send more requests, so that setting
// a watch and reading what it covers take one round trip instead of two.
//
// Requests are sent in the order they are queued, and the server answers a
// session's requests in the order it received them. A request the same
// goroutine makes after AddWatchAsync returns (Children, Exists, Get...)
// therefore goes out after the addWatch and, when Wait returns no error, is
// answered after it: the watch was in place before that request was
// served, so a listing read that way and the watch's events together miss
// no change. Should the connection drop between the two answers, the watch
// is set again with the session's other watches and receives EventSession,
// as after any reconnection: read again then.
//
// When Wait returns an error, no watch was set, and a request made after
// AddWatchAsync may have been sent on a later connection: do not rely on
// its answer to complement a watch.
func (c *Conn) AddWatchAsync(path string, recursive bool) *PendingWatch {
	if err := validatePath(path, false); err != nil {
		return &PendingWatch{c: c, done: true, err: err}
	}
	mode, wType := AddWatchModePersistent, watchTypePersistent
	if recursive {
		mode, wType = AddWatchModePersistentRecursive, watchTypePersistentRecursive
	}

	p := &PendingWatch{c: c}
	p.recv = c.queueRequest(opAddWatch, &addWatchRequest{Path: path, Mode: int32(mode)}, &addWatchResponse{}, func(req *request, res *responseHeader, err error) {
		// Runs in the receive loop before it reads the next packet, so no
		// event after the server's answer can miss the new watcher, and the
		// watcher is registered before the answer to any later request is
		// read.
		if err == nil {
			p.ech = c.addPersistentWatcher(path, wType)
		}
	})
	return p
}

// PendingWatch is an addWatch request sent by AddWatchAsync. It is not
// safe for concurrent use.
type PendingWatch struct {
	c    *Conn
	recv <-chan response
	ech  <-chan Event // set by the receive loop before the answer is on recv
	done bool
	err  error
}

// Wait waits for the server's answer and returns the watch's channel, or
// the error AddWatch would have returned. Later calls return the same.
func (p *PendingWatch) Wait() (<-chan Event, error) {
	if !p.done {
		p.done = true
		select {
		case r := <-p.recv:
			p.err = r.err
		case <-p.c.shouldQuit:
			// As in request: the answer may still come, and with it a
			// watcher; Close ends that watcher with the others.
			p.err = ErrConnectionClosed
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.ech, nil
}

// RemovePersistentWatch ends the persistent watches of both modes on path:
// their channels are closed, without a further event (the few events already
// in a channel's buffer stay readable; a longer backlog is dropped), and the
// server is told to stop sending (removeWatches, WatcherType Any). A server
// that no longer holds the watch (ErrNoWatcher) is not an error.
//
// removeWatches with WatcherType Any would also end one-shot watches (GetW,
// ExistsW, ChildrenW) waiting on the same path, so while one is pending the
// server is not told: its events for path are dropped by the client until
// that watch fires or the connection is re-established (a reconnect sets
// only the watches the client still holds).
//
// It returns ErrNoWatcher when the client holds no persistent watch on path.
func (c *Conn) RemovePersistentWatch(path string) error {
	if err := validatePath(path, false); err != nil {
		return err
	}

	c.watchersLock.Lock()
	if !c.hasWatchers(path, watchTypePersistent, watchTypePersistentRecursive) {
		c.watchersLock.Unlock()
		return ErrNoWatcher
	}
	if c.hasWatchers(path, watchTypeData, watchTypeExist, watchTypeChild) {
		c.dropPersistentWatchers(path)
		c.watchersLock.Unlock()
		return nil
	}
	c.watchersLock.Unlock()

	// The client's watchers go when the server's answer is read, in the
	// receive loop, so that an AddWatch on the same path sent after this
	// request keeps its watcher on both sides.
	var answered atomic.Bool
	_, err := c.request(opRemoveWatches, &removeWatchesRequest{Path: path, Type: watcherTypeAny}, &removeWatchesResponse{}, func(req *request, res *responseHeader, err error) {
		answered.Store(true)
		c.watchersLock.Lock()
		c.dropPersistentWatchers(path)
		c.watchersLock.Unlock()
	})
	if !answered.Load() {
		// The request failed before the server answered (connection lost,
		// session ended): drop the watchers here. The next connection sets
		// only the watches the client holds, so the server's copy goes too.
		c.watchersLock.Lock()
		c.dropPersistentWatchers(path)
		c.watchersLock.Unlock()
	}
	switch err {
	case nil, ErrNoWatcher, ErrConnectionClosed, ErrClosing, ErrNoServer, ErrSessionExpired:
		return nil
	}
	return err
}

// hasWatchers reports whether the client holds a watcher of one of types on
// path. The caller holds watchersLock.
func (c *Conn) hasWatchers(path string, types ...watchType) bool {
	for _, t := range types {
		if len(c.watchers[watchPathType{path, t}]) > 0 {
			return true
		}
	}
	return false
}

// dropPersistentWatchers closes the channels of the persistent watches on
// path, after the events already in them; their backlogs are dropped. The
// caller holds watchersLock.
func (c *Conn) dropPersistentWatchers(path string) {
	for _, t := range []watchType{watchTypePersistent, watchTypePersistentRecursive} {
		wpt := watchPathType{path, t}
		for _, ch := range c.watchers[wpt] {
			c.persistentWatches[ch].remove()
			delete(c.persistentWatches, ch)
		}
		delete(c.watchers, wpt)
	}
}

// addPersistentWatcher registers a persistent watch. Its channel is in
// c.watchers like a one-shot watch's, so that reconnects and session ends
// treat both alike; c.persistentWatches maps it to the watch's queue.
func (c *Conn) addPersistentWatcher(path string, wType watchType) <-chan Event {
	c.watchersLock.Lock()
	defer c.watchersLock.Unlock()

	w := &persistentWatch{ch: make(chan Event, persistentWatchChanSize)}
	if c.persistentWatches == nil {
		c.persistentWatches = make(map[<-chan Event]*persistentWatch)
	}
	c.persistentWatches[w.ch] = w
	wpt := watchPathType{path, wType}
	c.watchers[wpt] = append(c.watchers[wpt], w.ch)
	return w.ch
}

// notifyPersistentWatches routes a node event to the persistent watchers on
// its path and the persistent recursive watchers on its path and every
// ancestor. Recursive watchers never get EventNodeChildrenChanged: the server
// sends none for them, so one that arrives belongs to a child or persistent
// watch (the Java client filters it the same way). The caller holds
// watchersLock.
func (c *Conn) notifyPersistentWatches(ev Event) {
	switch ev.Type {
	case EventNodeCreated, EventNodeDeleted, EventNodeDataChanged, EventNodeChildrenChanged:
	default:
		return
	}
	c.sendPersistent(watchPathType{ev.Path, watchTypePersistent}, ev)
	if ev.Type == EventNodeChildrenChanged {
		return
	}
	for p := ev.Path; ; p = parentPath(p) {
		c.sendPersistent(watchPathType{p, watchTypePersistentRecursive}, ev)
		if p == "/" {
			return
		}
	}
}

// sendPersistent delivers ev to the watchers of wpt without blocking. A
// watcher whose backlog is full (persistentWatchBuffer events not yet
// received) ends: it gets EventNotWatching with ErrWatchOverflow after the
// events it holds, and is removed. The caller holds watchersLock.
func (c *Conn) sendPersistent(wpt watchPathType, ev Event) {
	watchers := c.watchers[wpt]
	if len(watchers) == 0 {
		return
	}
	kept := watchers[:0]
	for _, ch := range watchers {
		w := c.persistentWatches[ch]
		if w.send(ev, c.persistentWatchBuffer) {
			kept = append(kept, ch)
			continue
		}
		end := Event{Type: EventNotWatching, State: c.State(), Path: wpt.path, Err: ErrWatchOverflow}
		c.sendEvent(end) // also publish globally, as invalidateWatches does
		w.end(end)
		delete(c.persistentWatches, ch)
	}
	if len(kept) == 0 {
		delete(c.watchers, wpt)
		return
	}
	c.watchers[wpt] = kept
}

// persistentWatchChanSize is the buffer of a persistent watch's channel. It
// is kept small because a buffered channel allocates all of it at once, for
// every watch (56 bytes an event); a backlog beyond it waits in the watch's
// queue, which grows and shrinks with it.
const persistentWatchChanSize = 4

// persistentWatch is the delivery side of one persistent watch. The receive
// loop never waits for the consumer: send and end put an event straight into
// ch when there is room and no backlog; otherwise they append it to queue and
// start a pump goroutine, which moves the queue into ch, in order, as the
// consumer receives, and exits once the queue is empty. An idle watch thus
// holds a channel with a 4-event buffer and no goroutine.
//
// Every send to ch is made under mu by the receive loop while no pump runs,
// or by the pump; ch is closed, under mu, by whichever of them sent last.
type persistentWatch struct {
	mu      sync.Mutex
	ch      chan Event
	queue   []Event       // backlog, oldest first; the pump is sending queue[0]
	pumping bool          // a pump goroutine runs; queue is non-empty or it is ending
	done    bool          // ended or removed: no further event is accepted
	stop    chan struct{} // closed by remove to abort a pump; made with the first pump
}

// send delivers ev unless the watch's backlog (events in ch and in queue)
// has reached limit; it reports false, without delivering ev, if so.
func (w *persistentWatch) send(ev Event, limit int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return true
	}
	if len(w.ch)+len(w.queue) >= limit {
		return false
	}
	w.push(ev)
	return true
}

// end delivers ev as the watch's last event: ch is closed after it.
func (w *persistentWatch) end(ev Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.push(ev)
	w.done = true
	if !w.pumping {
		close(w.ch)
	}
}

// remove closes ch after the events already in it, without a further event:
// the backlog is dropped and a running pump stops (the one event it may be
// handing over at that moment can still arrive, in order).
func (w *persistentWatch) remove() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.done = true
	w.queue = nil
	if w.pumping {
		close(w.stop) // the pump closes ch
	} else {
		close(w.ch)
	}
}

// push delivers ev after every earlier event. The caller holds mu.
func (w *persistentWatch) push(ev Event) {
	if !w.pumping {
		select {
		case w.ch <- ev:
			return
		default:
		}
		w.pumping = true
		if w.stop == nil {
			w.stop = make(chan struct{})
		}
		go w.pump(w.stop)
	}
	w.queue = append(w.queue, ev)
}

// pump moves the queue into ch until the queue is empty or remove stops it,
// then closes ch if the watch is done.
func (w *persistentWatch) pump(stop <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.queue) > 0 {
		ev := w.queue[0]
		w.mu.Unlock()
		select {
		case w.ch <- ev:
		case <-stop: // remove emptied the queue
		}
		w.mu.Lock()
		if len(w.queue) > 0 {
			w.queue[0] = Event{}
			w.queue = w.queue[1:]
		}
	}
	w.queue = nil // the backlog's memory goes with it
	w.pumping = false
	if w.done {
		close(w.ch)
	}
}

// setWatches2Done handles the server's answer to a SetWatches2 request sent
// after a reconnect. On success each persistent watch it carried gets
// EventSession with StateHasSession: the watch is set again, and changes made
// while disconnected were not reported. If the server refused, none of the
// watches it carried is set and the server is unlikely to accept the rest, so
// every watch ends with the server's error rather than waiting forever.
func (c *Conn) setWatches2Done(req *request, _ *responseHeader, err error) {
	if err != nil {
		c.logger.Printf("zk: setWatches2 refused, ending all watches: %v", err)
		c.invalidateWatches(err)
		return
	}
	sw, ok := req.pkt.(*setWatches2Request)
	if !ok {
		return
	}
	server := c.Server()
	c.watchersLock.Lock()
	defer c.watchersLock.Unlock()
	for _, p := range sw.PersistentWatches {
		c.sendPersistent(watchPathType{p, watchTypePersistent}, Event{Type: EventSession, State: StateHasSession, Path: p, Server: server})
	}
	for _, p := range sw.PersistentRecursiveWatches {
		c.sendPersistent(watchPathType{p, watchTypePersistentRecursive}, Event{Type: EventSession, State: StateHasSession, Path: p, Server: server})
	}
}

// setWatchesV1 turns SetWatches2 requests into the SetWatches requests that
// servers before 3.6 understand; used when no persistent watch is set.
func setWatchesV1(reqs []*setWatches2Request) []*setWatchesRequest {
	v1 := make([]*setWatchesRequest, len(reqs))
	for i, r := range reqs {
		v1[i] = &setWatchesRequest{
			RelativeZxid: r.RelativeZxid,
			DataWatches:  r.DataWatches,
			ExistWatches: r.ExistWatches,
			ChildWatches: r.ChildWatches,
		}
	}
	return v1
}

// parentPath is the parent of a ZooKeeper path; "/" is its own parent.
func parentPath(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// PersistentBacklog counts the events of the persistent watch whose channel
// is ch that have not been received yet: in the channel and queued behind
// it. An event being handed to the channel may be counted twice for a moment,
// never missed, so once a request has returned, a backlog of 0 means every
// event the server sent before its reply has been received. 0 for a watch
// that has ended or that this Conn does not hold.
func (c *Conn) PersistentBacklog(ch <-chan Event) int {
	c.watchersLock.Lock()
	w := c.persistentWatches[ch]
	c.watchersLock.Unlock()
	if w == nil {
		return len(ch)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.ch) + len(w.queue)
}
