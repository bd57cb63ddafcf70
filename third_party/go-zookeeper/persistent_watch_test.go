package zk

// zklock patch: tests of AddWatch, RemovePersistentWatch and their life
// across reconnects, against a real ZooKeeper (zkserver_test.go).

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// connect opens a session on addr and waits until it is established.
func connect(t *testing.T, addr string, opts ...connOption) *Conn {
	t.Helper()
	opts = append([]connOption{WithLogInfo(false)}, opts...)
	c, events, err := Connect([]string{addr}, 10*time.Second, opts...)
	if err != nil {
		t.Fatalf("connect %s: %v", addr, err)
	}
	t.Cleanup(c.Close)
	deadline := time.After(eventTimeout)
	for {
		select {
		case ev := <-events:
			if ev.Type == EventSession && ev.State == StateHasSession {
				return c
			}
		case <-deadline:
			t.Fatalf("no session with %s within %v", addr, eventTimeout)
		}
	}
}

// mkdirs creates p and its parents as persistent nodes.
func mkdirs(t *testing.T, c *Conn, p string) {
	t.Helper()
	for i := 1; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			_, err := c.Create(p[:i], nil, 0, WorldACL(PermAll))
			if err != nil && !errors.Is(err, ErrNodeExists) {
				t.Fatalf("create %s: %v", p[:i], err)
			}
		}
	}
}

// nextEvent returns the next event on ch; it fails when ch is closed or
// nothing arrives within eventTimeout.
func nextEvent(t *testing.T, ch <-chan Event) Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch channel closed, want an event")
		}
		return ev
	case <-time.After(eventTimeout):
		t.Fatalf("no watch event within %v", eventTimeout)
	}
	return Event{}
}

// expectEvents reads len(want) events and compares type and path.
func expectEvents(t *testing.T, ch <-chan Event, want ...Event) {
	t.Helper()
	for i, w := range want {
		ev := nextEvent(t, ch)
		if ev.Type != w.Type || ev.Path != w.Path {
			t.Fatalf("event %d = %v %s (err %v), want %v %s", i, ev.Type, ev.Path, ev.Err, w.Type, w.Path)
		}
	}
}

// expectClosed waits for ch to be closed, returning what came before.
func expectClosed(t *testing.T, ch <-chan Event) []Event {
	t.Helper()
	var got []Event
	deadline := time.After(eventTimeout)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-deadline:
			t.Fatalf("watch channel still open after %v (events: %v)", eventTimeout, got)
		}
	}
}

func TestAddWatchRecursiveSeesDescendants(t *testing.T) {
	addr := testServer(t)
	watcher, writer := connect(t, addr), connect(t, addr)
	mkdirs(t, writer, "/recursive/a")

	ch, err := watcher.AddWatch("/recursive/a", true)
	if err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	mustCreate(t, writer, "/recursive/a/b")
	mustCreate(t, writer, "/recursive/a/b/c")
	if _, err := writer.Set("/recursive/a/b", []byte("x"), -1); err != nil {
		t.Fatalf("set: %v", err)
	}
	if err := writer.Delete("/recursive/a/b/c", -1); err != nil {
		t.Fatalf("delete: %v", err)
	}
	// A change outside the watched tree, then one inside as a marker: the
	// first must not arrive, and no NodeChildrenChanged may either.
	mustCreate(t, writer, "/recursive/other")
	if _, err := writer.Set("/recursive/a", []byte("marker"), -1); err != nil {
		t.Fatalf("set: %v", err)
	}
	expectEvents(t, ch,
		Event{Type: EventNodeCreated, Path: "/recursive/a/b"},
		Event{Type: EventNodeCreated, Path: "/recursive/a/b/c"},
		Event{Type: EventNodeDataChanged, Path: "/recursive/a/b"},
		Event{Type: EventNodeDeleted, Path: "/recursive/a/b/c"},
		Event{Type: EventNodeDataChanged, Path: "/recursive/a"},
	)
}

func TestAddWatchIsNotOneShot(t *testing.T) {
	addr := testServer(t)
	watcher, writer := connect(t, addr), connect(t, addr)
	mkdirs(t, writer, "/many")

	ch, err := watcher.AddWatch("/many", true)
	if err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	// Reads and writes interleave, so the events also cross the buffer
	// many times over without filling it.
	const n = 300
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("/many/n%03d", i)
		mustCreate(t, writer, p)
		expectEvents(t, ch, Event{Type: EventNodeCreated, Path: p})
	}
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("/many/n%03d", i)
		if err := writer.Delete(p, -1); err != nil {
			t.Fatalf("delete %s: %v", p, err)
		}
	}
	for i := 0; i < n; i++ {
		expectEvents(t, ch, Event{Type: EventNodeDeleted, Path: fmt.Sprintf("/many/n%03d", i)})
	}
}

func TestAddWatchPersistentNode(t *testing.T) {
	addr := testServer(t)
	watcher, writer := connect(t, addr), connect(t, addr)
	mkdirs(t, writer, "/persistent/node")

	ch, err := watcher.AddWatch("/persistent/node", false)
	if err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	if _, err := writer.Set("/persistent/node", []byte("1"), -1); err != nil {
		t.Fatalf("set: %v", err)
	}
	mustCreate(t, writer, "/persistent/node/kid")
	// Not recursive: a grandchild's creation and a child's data change
	// are not the watch's business; the delete that follows is.
	mustCreate(t, writer, "/persistent/node/kid/grandkid")
	if _, err := writer.Set("/persistent/node/kid", []byte("1"), -1); err != nil {
		t.Fatalf("set: %v", err)
	}
	for _, p := range []string{"/persistent/node/kid/grandkid", "/persistent/node/kid", "/persistent/node"} {
		if err := writer.Delete(p, -1); err != nil {
			t.Fatalf("delete %s: %v", p, err)
		}
	}
	mustCreate(t, writer, "/persistent/node")
	expectEvents(t, ch,
		Event{Type: EventNodeDataChanged, Path: "/persistent/node"},
		Event{Type: EventNodeChildrenChanged, Path: "/persistent/node"}, // kid created
		Event{Type: EventNodeChildrenChanged, Path: "/persistent/node"}, // kid deleted
		Event{Type: EventNodeDeleted, Path: "/persistent/node"},
		Event{Type: EventNodeCreated, Path: "/persistent/node"}, // still watching after the deletion
	)
}

func TestRemovePersistentWatch(t *testing.T) {
	addr := testServer(t)
	watcher, writer := connect(t, addr), connect(t, addr)
	mkdirs(t, writer, "/remove/a")

	if err := watcher.RemovePersistentWatch("/remove/a"); !errors.Is(err, ErrNoWatcher) {
		t.Fatalf("RemovePersistentWatch with no watch = %v, want ErrNoWatcher", err)
	}
	ch, err := watcher.AddWatch("/remove/a", true)
	if err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	if !serverWatches(t, addr, watcher, "/remove/a") {
		t.Fatal("wchp does not list the watch after AddWatch")
	}
	mustCreate(t, writer, "/remove/a/before")
	expectEvents(t, ch, Event{Type: EventNodeCreated, Path: "/remove/a/before"})

	if err := watcher.RemovePersistentWatch("/remove/a"); err != nil {
		t.Fatalf("RemovePersistentWatch: %v", err)
	}
	if got := expectClosed(t, ch); len(got) != 0 {
		t.Fatalf("events after RemovePersistentWatch: %v", got)
	}
	if serverWatches(t, addr, watcher, "/remove/a") {
		t.Fatal("wchp still lists the watch after RemovePersistentWatch")
	}

	// Later changes reach nobody (a send on the closed channel would
	// panic), and the path can be watched again.
	mustCreate(t, writer, "/remove/a/after")
	again, err := watcher.AddWatch("/remove/a", true)
	if err != nil {
		t.Fatalf("AddWatch again: %v", err)
	}
	if err := writer.Delete("/remove/a/after", -1); err != nil {
		t.Fatalf("delete: %v", err)
	}
	expectEvents(t, again, Event{Type: EventNodeDeleted, Path: "/remove/a/after"})
}

// serverWatches asks the server (wchp: watches by path) whether c's
// session holds a watch on p.
func serverWatches(t *testing.T, addr string, c *Conn, p string) bool {
	t.Helper()
	reply, err := fourLetter(addr, "wchp")
	if err != nil {
		t.Fatalf("wchp: %v", err)
	}
	session := fmt.Sprintf("0x%x", c.SessionID())
	lines := strings.Split(reply, "\n")
	for i, line := range lines {
		if line != p {
			continue
		}
		for _, s := range lines[i+1:] {
			if !strings.HasPrefix(s, "\t") {
				break
			}
			if strings.TrimSpace(s) == session {
				return true
			}
		}
	}
	return false
}

func TestPersistentWatchSurvivesReconnect(t *testing.T) {
	addr := testServer(t)
	link := &linkDialer{}
	watcher := connect(t, addr, WithDialer(link.dial))
	writer := connect(t, addr)
	mkdirs(t, writer, "/reconnect/a")
	mkdirs(t, writer, "/reconnect/node")
	mkdirs(t, writer, "/reconnect/plain")
	session := watcher.SessionID()

	tree, err := watcher.AddWatch("/reconnect/a", true)
	if err != nil {
		t.Fatalf("AddWatch recursive: %v", err)
	}
	node, err := watcher.AddWatch("/reconnect/node", false)
	if err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	// A one-shot watch rides along, so the reconnect also exercises
	// SetWatches2's ordinary lists (and the lastZxid read it carries). On
	// a path of its own: 3.8 keeps one watch mode per path and session
	// (ZOOKEEPER-4466).
	_, _, oneShot, err := watcher.GetW("/reconnect/plain")
	if err != nil {
		t.Fatalf("GetW: %v", err)
	}
	mustCreate(t, writer, "/reconnect/a/before")
	expectEvents(t, tree, Event{Type: EventNodeCreated, Path: "/reconnect/a/before"})

	// Down long enough for a change to happen while disconnected, far
	// shorter than the session timeout.
	link.sever(true)
	if _, err := writer.Set("/reconnect/a/before", []byte("missed"), -1); err != nil {
		t.Fatalf("set: %v", err)
	}
	link.up()

	// The first event on each watch says it was set again; the change made
	// while the link was down is not replayed by the server.
	for _, w := range []struct {
		ch   <-chan Event
		path string
	}{{tree, "/reconnect/a"}, {node, "/reconnect/node"}} {
		ev := nextEvent(t, w.ch)
		if ev.Type != EventSession || ev.State != StateHasSession || ev.Path != w.path {
			t.Fatalf("first event after reconnect on %s = %+v, want EventSession StateHasSession", w.path, ev)
		}
	}
	if got := watcher.SessionID(); got != session {
		t.Fatalf("session changed across the reconnect: %x, was %x", got, session)
	}

	mustCreate(t, writer, "/reconnect/a/after")
	if _, err := writer.Set("/reconnect/node", []byte("after"), -1); err != nil {
		t.Fatalf("set: %v", err)
	}
	if _, err := writer.Set("/reconnect/a", []byte("after"), -1); err != nil {
		t.Fatalf("set: %v", err)
	}
	if _, err := writer.Set("/reconnect/plain", []byte("after"), -1); err != nil {
		t.Fatalf("set: %v", err)
	}
	expectEvents(t, tree,
		Event{Type: EventNodeCreated, Path: "/reconnect/a/after"},
		Event{Type: EventNodeDataChanged, Path: "/reconnect/a"},
	)
	expectEvents(t, node, Event{Type: EventNodeDataChanged, Path: "/reconnect/node"})
	expectEvents(t, oneShot, Event{Type: EventNodeDataChanged, Path: "/reconnect/plain"})
}

// TestReconnectUnderLoad reconnects while requests are in flight and
// thousands of watches are set again in several SetWatches2 packets. Before
// lastZxid was atomic, the race detector caught recvLoop writing it while
// sendSetWatches read it in most runs of this test.
func TestReconnectUnderLoad(t *testing.T) {
	addr := testServer(t)
	link := &linkDialer{}
	smallPackets := func(c *Conn) { c.setWatchLimit = 4096 } // several SetWatches2 packets
	c := connect(t, addr, WithDialer(link.dial), smallPackets)
	writer := connect(t, addr)
	mkdirs(t, writer, "/load")

	tree, err := c.AddWatch("/load", true)
	if err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	const oneShots = 2000
	exists := make([]<-chan Event, oneShots)
	for i := range exists {
		if _, _, exists[i], err = c.ExistsW(fmt.Sprintf("/load/absent%04d", i)); err != nil {
			t.Fatalf("ExistsW: %v", err)
		}
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				c.Exists("/load") // errors while the link is down are expected
			}
		}()
	}
	const reconnects = 4
	for i := 0; i < reconnects; i++ {
		link.sever(false)
		ev := nextEvent(t, tree)
		if ev.Type != EventSession || ev.State != StateHasSession {
			close(stop)
			wg.Wait()
			t.Fatalf("after reconnect %d: event %+v, want EventSession StateHasSession", i+1, ev)
		}
	}
	close(stop)
	wg.Wait()

	// Every watch was set again: the recursive one and a one-shot one
	// from the last packets both see a creation.
	last := fmt.Sprintf("/load/absent%04d", oneShots-1)
	mustCreate(t, writer, last)
	expectEvents(t, tree, Event{Type: EventNodeCreated, Path: last})
	expectEvents(t, exists[oneShots-1], Event{Type: EventNodeCreated, Path: last})
}

func TestPersistentWatchEndsWithSession(t *testing.T) {
	addr := testServer(t)
	link := &linkDialer{}
	// The server's minimum session timeout is two ticks: 4 s here.
	c, events, err := Connect([]string{addr}, 4*time.Second, WithDialer(link.dial), WithLogInfo(false))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(c.Close)
	waitSession(t, events)
	writer := connect(t, addr)
	mkdirs(t, writer, "/expiry")
	ch, err := c.AddWatch("/expiry", true)
	if err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	owned, err := c.Create("/expiry/owned", nil, FlagEphemeral, WorldACL(PermAll))
	if err != nil {
		t.Fatalf("create ephemeral: %v", err)
	}
	expectEvents(t, ch, Event{Type: EventNodeCreated, Path: owned})

	// Keep the link down until the server has expired the session (its
	// ephemeral node goes), then let the client find out.
	link.sever(true)
	deadline := time.Now().Add(30 * time.Second)
	for {
		exists, _, ew, err := writer.ExistsW(owned)
		if err != nil {
			t.Fatalf("exists: %v", err)
		}
		if !exists {
			break
		}
		select {
		case <-ew:
		case <-time.After(time.Until(deadline)):
			t.Fatal("session not expired within 30 s")
		}
	}
	link.up()

	got := expectClosed(t, ch)
	if len(got) == 0 {
		t.Fatal("watch channel closed without EventNotWatching")
	}
	last := got[len(got)-1]
	if last.Type != EventNotWatching || !errors.Is(last.Err, ErrSessionExpired) || last.Path != "/expiry" {
		t.Fatalf("last event = %+v, want EventNotWatching with ErrSessionExpired", last)
	}
}

func TestPersistentWatchEndsOnClose(t *testing.T) {
	addr := testServer(t)
	c := connect(t, addr)
	mkdirs(t, c, "/close")
	ch, err := c.AddWatch("/close", false)
	if err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	c.Close()
	got := expectClosed(t, ch)
	if len(got) != 1 || got[0].Type != EventNotWatching || !errors.Is(got[0].Err, ErrClosing) {
		t.Fatalf("events at Close = %+v, want one EventNotWatching with ErrClosing", got)
	}
}

func TestPersistentWatchOverflow(t *testing.T) {
	addr := testServer(t)
	const buffer = 4
	watcher := connect(t, addr, WithPersistentWatchBuffer(buffer))
	writer := connect(t, addr)
	mkdirs(t, writer, "/overflow")

	ch, err := watcher.AddWatch("/overflow", true)
	if err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	// Nobody reads ch while three times its buffer of events arrives.
	for i := 0; i < 3*buffer; i++ {
		mustCreate(t, writer, fmt.Sprintf("/overflow/n%02d", i))
	}
	// The receive loop is not stuck on the full channel: the connection
	// still answers, and its answer comes after every event above.
	if _, err := watcher.Sync("/overflow"); err != nil {
		t.Fatalf("sync on the watching connection: %v", err)
	}
	got := expectClosed(t, ch)
	if len(got) != buffer+1 {
		t.Fatalf("got %d events, want %d then EventNotWatching: %+v", len(got), buffer, got)
	}
	for i, ev := range got[:buffer] {
		if want := fmt.Sprintf("/overflow/n%02d", i); ev.Type != EventNodeCreated || ev.Path != want {
			t.Fatalf("event %d = %+v, want EventNodeCreated %s", i, ev, want)
		}
	}
	if last := got[buffer]; last.Type != EventNotWatching || !errors.Is(last.Err, ErrWatchOverflow) || last.Path != "/overflow" {
		t.Fatalf("last event = %+v, want EventNotWatching with ErrWatchOverflow", last)
	}

	// The consumer's way back: add the watch again (and re-read).
	again, err := watcher.AddWatch("/overflow", true)
	if err != nil {
		t.Fatalf("AddWatch again: %v", err)
	}
	mustCreate(t, writer, "/overflow/again")
	expectEvents(t, again, Event{Type: EventNodeCreated, Path: "/overflow/again"})
}

func waitSession(t *testing.T, events <-chan Event) {
	t.Helper()
	deadline := time.After(eventTimeout)
	for {
		select {
		case ev := <-events:
			if ev.Type == EventSession && ev.State == StateHasSession {
				return
			}
		case <-deadline:
			t.Fatalf("no session within %v", eventTimeout)
		}
	}
}

func mustCreate(t *testing.T, c *Conn, p string) {
	t.Helper()
	if _, err := c.Create(p, nil, 0, WorldACL(PermAll)); err != nil {
		t.Fatalf("create %s: %v", p, err)
	}
}

// The routing of node events to persistent watchers, without a server.
func TestNotifyPersistentWatchesRouting(t *testing.T) {
	type watch struct {
		path      string
		recursive bool
	}
	watches := []watch{
		{"/", true},
		{"/a", true},
		{"/a/b", true},
		{"/a/b", false},
		{"/a/bc", true}, // a sibling sharing a prefix, never an ancestor of /a/b/...
		{"/x", false},
	}
	tests := []struct {
		ev   Event
		want []watch
	}{
		{Event{Type: EventNodeCreated, Path: "/a/b/c"}, []watch{{"/", true}, {"/a", true}, {"/a/b", true}}},
		{Event{Type: EventNodeDataChanged, Path: "/a/b"}, []watch{{"/", true}, {"/a", true}, {"/a/b", true}, {"/a/b", false}}},
		{Event{Type: EventNodeDeleted, Path: "/a/bc"}, []watch{{"/", true}, {"/a", true}, {"/a/bc", true}}},
		// Never to recursive watchers; to persistent ones on the path only.
		{Event{Type: EventNodeChildrenChanged, Path: "/a/b"}, []watch{{"/a/b", false}}},
		{Event{Type: EventNodeChildrenChanged, Path: "/a"}, nil},
		{Event{Type: EventNodeCreated, Path: "/"}, []watch{{"/", true}}},
		{Event{Type: EventSession, State: StateDisconnected}, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v %s", tt.ev.Type, tt.ev.Path), func(t *testing.T) {
			c := &Conn{
				watchers:              make(map[watchPathType][]chan Event),
				eventChan:             make(chan Event, eventChanSize),
				persistentWatchBuffer: 8,
			}
			chans := map[watch]<-chan Event{}
			for _, w := range watches {
				wt := watchTypePersistent
				if w.recursive {
					wt = watchTypePersistentRecursive
				}
				chans[w] = c.addPersistentWatcher(w.path, wt)
			}
			c.notifyWatches(tt.ev)
			want := map[watch]bool{}
			for _, w := range tt.want {
				want[w] = true
			}
			for w, ch := range chans {
				if got := len(ch); got != map[bool]int{true: 1, false: 0}[want[w]] {
					t.Errorf("watch %+v got %d events, want delivery %v", w, got, want[w])
				}
			}
		})
	}
}

func TestParentPath(t *testing.T) {
	for p, want := range map[string]string{"/": "/", "/a": "/", "/a/b": "/a", "/a/b/c": "/a/b"} {
		if got := parentPath(p); got != want {
			t.Errorf("parentPath(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestErrorCodesOfPersistentWatches(t *testing.T) {
	for code, want := range map[ErrCode]error{-6: ErrUnimplemented, -121: ErrNoWatcher} {
		if got := code.toError(); got != want {
			t.Errorf("ErrCode(%d).toError() = %v, want %v", code, got, want)
		}
	}
}
