package zk

// zklock patch: this whole file. Several data watches set in one request
// (SetWatches on a live connection). See PATCHES.md, patch 7.

// WatchData sets a one-shot data watch (as GetW's) on each of paths with
// one SetWatches request, and returns one channel per path, in order.
// Nothing is read: the server sets each watch as it would after a
// reconnect, and fires it at once instead when the node is already gone
// (EventNodeDeleted) or its data changed after relativeZxid
// (EventNodeDataChanged; pass the zxid of a state the caller knows, such
// as the zxid that created the node). Those events are sent before the
// answer, so once WatchData returns they are already in their channels.
//
// The watches are registered before the request is sent; on an error
// they are dropped again and no channel is returned. A connection lost
// meanwhile leaves it unknown whether the server set them; the server
// forgets a connection's watches when the connection ends, so nothing
// stays behind.
func (c *Conn) WatchData(relativeZxid int64, paths ...string) ([]<-chan Event, error) {
	for _, p := range paths {
		if err := validatePath(p, false); err != nil {
			return nil, err
		}
	}
	chs := make([]<-chan Event, len(paths))
	for i, p := range paths {
		chs[i] = c.addWatcher(p, watchTypeData)
	}
	req := &setWatchesRequest{
		RelativeZxid: relativeZxid,
		DataWatches:  paths,
		ExistWatches: []string{},
		ChildWatches: []string{},
	}
	if _, err := c.request(opSetWatches, req, &setWatchesResponse{}, nil); err != nil {
		for i, p := range paths {
			c.dropWatcher(p, watchTypeData, chs[i])
		}
		return nil, err
	}
	return chs, nil
}

// dropWatcher forgets the watcher ch on path, if it has not fired.
func (c *Conn) dropWatcher(path string, t watchType, ch <-chan Event) {
	c.watchersLock.Lock()
	defer c.watchersLock.Unlock()
	wpt := watchPathType{path, t}
	ws := c.watchers[wpt]
	for i, w := range ws {
		if (<-chan Event)(w) == ch {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(c.watchers, wpt)
	} else {
		c.watchers[wpt] = ws
	}
}
