package zk

// zklock patch: this whole file. Persistent and persistent recursive watches
// (ZooKeeper 3.6+, addWatch), their removal, and their re-registration after a
// reconnect. See PATCHES.md.

import (
	"strings"
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
//     ErrWatchOverflow when the channel was full (the receive loop never
//     waits for a consumer: once the channel holds its capacity, 4096 events
//     by default, see WithPersistentWatchBuffer, the watch ends and later
//     events are dropped), ErrSessionExpired or ErrClosing when the session
//     ended, or the server's error when it refused to set the watch again
//     after a reconnect. Events were lost: re-read and add the watch again.
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
	if err := validatePath(path, false); err != nil {
		return nil, err
	}
	mode, wType := AddWatchModePersistent, watchTypePersistent
	if recursive {
		mode, wType = AddWatchModePersistentRecursive, watchTypePersistentRecursive
	}

	var ech <-chan Event
	_, err := c.request(opAddWatch, &addWatchRequest{Path: path, Mode: int32(mode)}, &addWatchResponse{}, func(req *request, res *responseHeader, err error) {
		// Runs in the receive loop before it reads the next packet, so no
		// event after the server's answer can miss the new watcher.
		if err == nil {
			ech = c.addPersistentWatcher(path, wType)
		}
	})
	if err != nil {
		return nil, err
	}
	return ech, nil
}

// RemovePersistentWatch ends the persistent watches of both modes on path:
// their channels are closed, without a further event, and the server is told
// to stop sending (removeWatches, WatcherType Any). A server that no longer
// holds the watch (ErrNoWatcher) is not an error.
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
// path. The caller holds watchersLock.
func (c *Conn) dropPersistentWatchers(path string) {
	for _, t := range []watchType{watchTypePersistent, watchTypePersistentRecursive} {
		wpt := watchPathType{path, t}
		for _, ch := range c.watchers[wpt] {
			close(ch)
		}
		delete(c.watchers, wpt)
	}
}

// addPersistentWatcher registers a channel for a persistent watch. Its
// capacity keeps one slot beyond the buffer for the EventNotWatching that
// ends the watch, so that no send to it ever blocks (see sendPersistent).
func (c *Conn) addPersistentWatcher(path string, wType watchType) <-chan Event {
	c.watchersLock.Lock()
	defer c.watchersLock.Unlock()

	ch := make(chan Event, c.persistentWatchBuffer+1)
	wpt := watchPathType{path, wType}
	c.watchers[wpt] = append(c.watchers[wpt], ch)
	return ch
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
// watcher whose buffer is full gets EventNotWatching with ErrWatchOverflow in
// its reserved last slot and is removed. Every send to a persistent watch's
// channel happens under watchersLock, so the length checked here can only
// shrink before the send. The caller holds watchersLock.
func (c *Conn) sendPersistent(wpt watchPathType, ev Event) {
	watchers := c.watchers[wpt]
	if len(watchers) == 0 {
		return
	}
	kept := watchers[:0]
	for _, ch := range watchers {
		if len(ch) < cap(ch)-1 {
			ch <- ev
			kept = append(kept, ch)
			continue
		}
		end := Event{Type: EventNotWatching, State: c.State(), Path: wpt.path, Err: ErrWatchOverflow}
		c.sendEvent(end) // also publish globally, as invalidateWatches does
		ch <- end
		close(ch)
	}
	if len(kept) == 0 {
		delete(c.watchers, wpt)
		return
	}
	c.watchers[wpt] = kept
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
