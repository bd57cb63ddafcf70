package zk

// zklock patch: tests of AddWatch, RemovePersistentWatch and their life
// across reconnects, against a real ZooKeeper (zkserver_test.go).

import (
	"errors"
	"fmt"
	"runtime"
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

	expireSession(t, link, writer, owned)

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
	// Limits below, at and above the channel's own buffer: the backlog
	// counted is the channel's plus the client's queue.
	for _, buffer := range []int{1, persistentWatchChanSize, 100} {
		t.Run(fmt.Sprint(buffer), func(t *testing.T) {
			watcher := connect(t, addr, WithPersistentWatchBuffer(buffer))
			writer := connect(t, addr)
			dir := fmt.Sprintf("/overflow%d", buffer)
			mkdirs(t, writer, dir)

			ch, err := watcher.AddWatch(dir, true)
			if err != nil {
				t.Fatalf("AddWatch: %v", err)
			}
			// Nobody reads ch while three times its limit of events arrives.
			created := createMany(t, writer, dir, 3*buffer)
			// The receive loop is not stuck on the full watch: the
			// connection still answers, and its answer comes after every
			// event above.
			if _, err := watcher.Sync(dir); err != nil {
				t.Fatalf("sync on the watching connection: %v", err)
			}
			got := expectClosed(t, ch)
			if len(got) != buffer+1 {
				t.Fatalf("got %d events, want %d then EventNotWatching: %+v", len(got), buffer, got)
			}
			for i, ev := range got[:buffer] {
				if ev.Type != EventNodeCreated || ev.Path != created[i] {
					t.Fatalf("event %d = %+v, want EventNodeCreated %s", i, ev, created[i])
				}
			}
			if last := got[buffer]; last.Type != EventNotWatching || !errors.Is(last.Err, ErrWatchOverflow) || last.Path != dir {
				t.Fatalf("last event = %+v, want EventNotWatching with ErrWatchOverflow", last)
			}

			// The consumer's way back: add the watch again (and re-read).
			again, err := watcher.AddWatch(dir, true)
			if err != nil {
				t.Fatalf("AddWatch again: %v", err)
			}
			mustCreate(t, writer, dir+"/again")
			expectEvents(t, again, Event{Type: EventNodeCreated, Path: dir + "/again"})
			waitNoPumps(t)
		})
	}
}

// TestPersistentWatchIdleMemory measures what an idle persistent watch
// costs the client: heap and goroutine stacks, per watch, over 1,000
// recursive watches. A channel buffered for the whole limit cost about
// 230 KB a watch (4096 events of 56 bytes); zklock's console sets one per
// watched lock parent, and aims at about 1 KB a parent.
func TestPersistentWatchIdleMemory(t *testing.T) {
	addr := testServer(t)
	c := connect(t, addr)
	const n = 1000
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("/idle/p%04d", i) // the node need not exist
	}
	chans := make([]<-chan Event, n)
	// One watch set and removed first, so that the connection's own lazily
	// made state is not counted.
	if _, err := c.AddWatch("/idle/warmup", true); err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	if err := c.RemovePersistentWatch("/idle/warmup"); err != nil {
		t.Fatalf("RemovePersistentWatch: %v", err)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()
	for i, p := range paths {
		var err error
		if chans[i], err = c.AddWatch(p, true); err != nil {
			t.Fatalf("AddWatch %s: %v", p, err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	stacks := int64(after.StackInuse) - int64(before.StackInuse)
	extraGoroutines := runtime.NumGoroutine() - goroutines
	perWatch := (heap + stacks) / n
	t.Logf("%d idle persistent recursive watches: heap %+d B, goroutine stacks %+d B, goroutines %+d: %d B a watch",
		n, heap, stacks, extraGoroutines, perWatch)
	if perWatch > 16<<10 {
		t.Errorf("an idle persistent watch costs %d B, want under 16 KB", perWatch)
	}
	if extraGoroutines > 10 {
		t.Errorf("%d idle watches hold %d goroutines, want none", n, extraGoroutines)
	}

	// The watches are real: the last one sees its node created.
	writer := connect(t, addr)
	mkdirs(t, writer, paths[n-1])
	expectEvents(t, chans[n-1], Event{Type: EventNodeCreated, Path: paths[n-1]})
	runtime.KeepAlive(chans)
}

// TestPersistentWatchBurst: a consumer that is busy while 20,000 events
// arrive still gets them all, in order, under the default limit; the
// backlog's goroutine ends once it is drained.
func TestPersistentWatchBurst(t *testing.T) {
	addr := testServer(t)
	watcher, writer := connect(t, addr), connect(t, addr)
	mkdirs(t, writer, "/burst")
	ch, err := watcher.AddWatch("/burst", true)
	if err != nil {
		t.Fatalf("AddWatch: %v", err)
	}
	const n = 20000
	created := createMany(t, writer, "/burst", n)
	// Every event has reached the client before the consumer wakes up.
	if _, err := watcher.Sync("/burst"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if pumps := goroutinesIn(pumpFunc); pumps != 1 {
		t.Errorf("%d pump goroutines with a backlog, want 1", pumps)
	}
	for i, p := range created {
		ev := nextEvent(t, ch)
		if ev.Type != EventNodeCreated || ev.Path != p {
			t.Fatalf("event %d = %v %s (err %v), want EventNodeCreated %s", i, ev.Type, ev.Path, ev.Err, p)
		}
	}
	waitNoPumps(t)
	// Nothing more (no EventNotWatching), and the watch still works.
	mustCreate(t, writer, "/burst/last")
	expectEvents(t, ch, Event{Type: EventNodeCreated, Path: "/burst/last"})
}

// TestPersistentWatchNoGoroutineLeak ends a watch that has a backlog (so a
// pump goroutine runs) in each of the three ways and checks that no
// goroutine stays behind.
func TestPersistentWatchNoGoroutineLeak(t *testing.T) {
	addr := testServer(t)
	writer := connect(t, addr)
	const backlog = 50

	t.Run("remove", func(t *testing.T) {
		c := connect(t, addr)
		mkdirs(t, writer, "/leak/remove")
		waitNoPumps(t)
		goroutines := runtime.NumGoroutine()
		ch, err := c.AddWatch("/leak/remove", true)
		if err != nil {
			t.Fatalf("AddWatch: %v", err)
		}
		created := createMany(t, writer, "/leak/remove", backlog)
		if _, err := c.Sync("/leak/remove"); err != nil {
			t.Fatalf("sync: %v", err)
		}
		if pumps := goroutinesIn(pumpFunc); pumps != 1 {
			t.Errorf("%d pump goroutines with a backlog, want 1", pumps)
		}
		if err := c.RemovePersistentWatch("/leak/remove"); err != nil {
			t.Fatalf("RemovePersistentWatch: %v", err)
		}
		// The pump ends without the consumer reading on (one that removes
		// its watch may stop reading).
		waitNoPumps(t)
		// What the channel's buffer held (and at most the one event being
		// handed over) arrives, in order, then the close: no further event.
		got := expectClosed(t, ch)
		if len(got) > persistentWatchChanSize+1 {
			t.Fatalf("%d events after RemovePersistentWatch, want at most %d", len(got), persistentWatchChanSize+1)
		}
		for i, ev := range got {
			if ev.Type != EventNodeCreated || ev.Path != created[i] {
				t.Fatalf("event %d = %+v, want EventNodeCreated %s", i, ev, created[i])
			}
		}
		waitNoPumps(t)
		waitGoroutines(t, goroutines)
	})

	t.Run("close", func(t *testing.T) {
		waitNoPumps(t)
		goroutines := runtime.NumGoroutine() // before the connection
		c := connect(t, addr)
		mkdirs(t, writer, "/leak/close")
		ch, err := c.AddWatch("/leak/close", true)
		if err != nil {
			t.Fatalf("AddWatch: %v", err)
		}
		created := createMany(t, writer, "/leak/close", backlog)
		if _, err := c.Sync("/leak/close"); err != nil {
			t.Fatalf("sync: %v", err)
		}
		c.Close()
		expectBacklogThenEnd(t, ch, created, "/leak/close", ErrClosing)
		waitNoPumps(t)
		waitGoroutines(t, goroutines)
	})

	t.Run("session end", func(t *testing.T) {
		link := &linkDialer{}
		// The server's minimum session timeout is two ticks: 4 s here.
		c, events, err := Connect([]string{addr}, 4*time.Second, WithDialer(link.dial), WithLogInfo(false))
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(c.Close)
		waitSession(t, events)
		mkdirs(t, writer, "/leak/expiry")
		waitNoPumps(t)
		goroutines := runtime.NumGoroutine()
		ch, err := c.AddWatch("/leak/expiry", true)
		if err != nil {
			t.Fatalf("AddWatch: %v", err)
		}
		created := createMany(t, writer, "/leak/expiry", backlog)
		if _, err := c.Sync("/leak/expiry"); err != nil {
			t.Fatalf("sync: %v", err)
		}
		owned, err := c.Create("/leak/owned", nil, FlagEphemeral, WorldACL(PermAll))
		if err != nil {
			t.Fatalf("create ephemeral: %v", err)
		}
		expireSession(t, link, writer, owned)
		expectBacklogThenEnd(t, ch, created, "/leak/expiry", ErrSessionExpired)
		waitNoPumps(t)
		waitGoroutines(t, goroutines)
	})
}

// expectBacklogThenEnd reads created's creations in order, then
// EventNotWatching with err, then the close.
func expectBacklogThenEnd(t *testing.T, ch <-chan Event, created []string, path string, err error) {
	t.Helper()
	got := expectClosed(t, ch)
	if len(got) != len(created)+1 {
		t.Fatalf("got %d events, want %d then EventNotWatching: %+v", len(got), len(created), got)
	}
	for i, ev := range got[:len(created)] {
		if ev.Type != EventNodeCreated || ev.Path != created[i] {
			t.Fatalf("event %d = %+v, want EventNodeCreated %s", i, ev, created[i])
		}
	}
	if last := got[len(created)]; last.Type != EventNotWatching || !errors.Is(last.Err, err) || last.Path != path {
		t.Fatalf("last event = %+v, want EventNotWatching on %s with %v", last, path, err)
	}
}

// createMany creates n children of dir, 500 to a multi request, and
// returns their paths in the order of creation.
func createMany(t *testing.T, c *Conn, dir string, n int) []string {
	t.Helper()
	paths := make([]string, n)
	for i := range paths {
		paths[i] = fmt.Sprintf("%s/n%05d", dir, i)
	}
	for i := 0; i < n; i += 500 {
		batch := paths[i:]
		if len(batch) > 500 {
			batch = batch[:500]
		}
		var ops []interface{}
		for _, p := range batch {
			ops = append(ops, &CreateRequest{Path: p, Acl: WorldACL(PermAll)})
		}
		if _, err := c.Multi(ops...); err != nil {
			t.Fatalf("create %s...: %v", paths[i], err)
		}
	}
	return paths
}

// pumpFunc names the goroutine that hands a watch's backlog to its
// channel, by its creator: push is the only function that starts one, and a
// pump not yet run shows as push's wrapper (push.gowrap1), not as pump, on
// its stack (a loaded `make test-short` once counted 0 pumps so).
const pumpFunc = "created by github.com/zklock/zklock/third_party/zk.(*persistentWatch).push "

// goroutinesIn counts the goroutines with fn on their stack.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<24)
	n := 0
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

// waitNoPumps waits, at most eventTimeout, until no pump goroutine runs.
func waitNoPumps(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(eventTimeout)
	for goroutinesIn(pumpFunc) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d pump goroutines still run after %v", goroutinesIn(pumpFunc), eventTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGoroutines waits, at most eventTimeout, until at most limit
// goroutines run, and fails with their stacks if they do not.
func waitGoroutines(t *testing.T, limit int) {
	t.Helper()
	deadline := time.Now().Add(eventTimeout)
	for runtime.NumGoroutine() > limit {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after %v, want at most %d:\n%s",
				runtime.NumGoroutine(), eventTimeout, limit, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// expireSession keeps link down until the server has expired the session
// that owns the ephemeral node owned (the node goes), then lets the client
// find out.
func expireSession(t *testing.T, link *linkDialer, writer *Conn, owned string) {
	t.Helper()
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

// The delivery of a persistent watch's events, without a server: a
// producer that never waits, a consumer that keeps falling behind, in order,
// then the watch ended (last event, then the close) or removed (the close,
// no further event), and no pump left.
func TestPersistentWatchQueue(t *testing.T) {
	const n = 20000
	for _, ending := range []string{"end", "remove"} {
		t.Run(ending, func(t *testing.T) {
			w := &persistentWatch{ch: make(chan Event, persistentWatchChanSize)}
			got := make(chan []Event)
			go func() {
				var evs []Event
				for ev := range w.ch {
					evs = append(evs, ev)
					if len(evs)%1000 == 0 {
						time.Sleep(time.Millisecond) // fall behind now and then
					}
				}
				got <- evs
			}()
			for i := 0; i < n; i++ {
				if !w.send(Event{Type: EventNodeCreated, Path: fmt.Sprint(i)}, n) {
					t.Fatalf("event %d overflowed a limit of %d", i, n)
				}
				if i%3000 == 0 {
					time.Sleep(2 * time.Millisecond) // let the backlog drain, so pumps come and go
				}
			}
			if ending == "end" {
				w.end(Event{Type: EventNotWatching, Err: ErrClosing})
			} else {
				w.remove()
			}
			var evs []Event
			select {
			case evs = <-got:
			case <-time.After(eventTimeout):
				t.Fatalf("channel not closed within %v", eventTimeout)
			}
			if ending == "end" {
				if len(evs) != n+1 || evs[n].Type != EventNotWatching {
					t.Fatalf("got %d events, want %d then EventNotWatching", len(evs), n)
				}
				evs = evs[:n]
			}
			for i, ev := range evs {
				if ev.Type != EventNodeCreated || ev.Path != fmt.Sprint(i) {
					t.Fatalf("event %d = %+v, want EventNodeCreated %d", i, ev, i)
				}
			}
			waitNoPumps(t)
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
