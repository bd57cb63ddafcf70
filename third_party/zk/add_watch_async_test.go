package zk

// zklock patch: tests of AddWatchAsync (patch 3) against a real ZooKeeper
// (zkserver_test.go).

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestAddWatchAsyncThenChildren sets a recursive watch and lists the path
// in one round trip while writers keep creating children: the addWatch is
// answered before the listing, and the listing and the watch's events
// together name every child, so none created around the watch's setting
// is missed.
func TestAddWatchAsyncThenChildren(t *testing.T) {
	addr := testServer(t)
	watcher, writer := connect(t, addr), connect(t, addr)
	dir := fmt.Sprintf("/async-%x/busy", watcher.SessionID()) // a fresh path each run
	mkdirs(t, writer, dir)

	// Four writers create children until told to stop; the watch is set
	// and the path listed in the middle of it.
	const writers = 4
	stop := make(chan struct{})
	created := make(chan struct{}, 1024) // one signal a create, dropped when full
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := writer.Create(fmt.Sprintf("%s/w%d-%06d", dir, i, n), nil, 0, WorldACL(PermAll)); err != nil {
					errs <- err
					return
				}
				select {
				case created <- struct{}{}:
				default:
				}
			}
		}(i)
	}
	// waitCreates waits for n more creates.
	waitCreates := func(n int) {
		t.Helper()
		deadline := time.After(eventTimeout)
		for j := 0; j < n; j++ {
			select {
			case <-created:
			case err := <-errs:
				t.Fatalf("create: %v", err)
			case <-deadline:
				t.Fatalf("fewer than %d creates within %v", n, eventTimeout)
			}
		}
	}
	waitCreates(100) // children created before the watch

	pending := watcher.AddWatchAsync(dir, true)
	kids, _, err := watcher.Children(dir)
	if err != nil {
		t.Fatalf("Children: %v", err)
	}
	// The listing's answer has been read, so the addWatch's, read before
	// it, is waiting.
	if len(pending.recv) != 1 {
		t.Fatal("the listing was answered before the addWatch")
	}
	ch, err := pending.Wait()
	if err != nil {
		t.Fatalf("AddWatchAsync: %v", err)
	}
	if again, err := pending.Wait(); again != ch || err != nil {
		t.Fatalf("second Wait = %v, %v; want the same channel", again, err)
	}

	for len(created) > 0 { // and after it
		<-created
	}
	waitCreates(100)
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatalf("create: %v", err)
	default:
	}
	marker := dir + "/zz-marker"
	mustCreate(t, writer, marker)

	seen := make(map[string]bool, len(kids))
	for _, k := range kids {
		seen[dir+"/"+k] = true
	}
	for reported := false; !reported; {
		ev := nextEvent(t, ch)
		if ev.Type != EventNodeCreated {
			t.Fatalf("unexpected event %+v", ev)
		}
		seen[ev.Path] = true
		reported = ev.Path == marker
	}
	all, _, err := writer.Children(dir)
	if err != nil {
		t.Fatalf("Children: %v", err)
	}
	missed := 0
	for _, k := range all {
		if !seen[dir+"/"+k] {
			missed++
		}
	}
	if missed > 0 {
		t.Fatalf("%d of %d children neither listed nor reported", missed, len(all))
	}
	if len(kids) == 0 || len(kids) == len(all)-1 {
		t.Fatalf("listed %d of %d children: the watch was not set in the middle of the writes", len(kids), len(all))
	}
	t.Logf("%d children listed, %d in all", len(kids), len(all))
}

// TestAddWatchAsyncAbsentPath: the watch is set on a path that does not
// exist, the listing behind it says so, and the path's creation is
// reported.
func TestAddWatchAsyncAbsentPath(t *testing.T) {
	addr := testServer(t)
	watcher, writer := connect(t, addr), connect(t, addr)
	dir := fmt.Sprintf("/async-%x", watcher.SessionID()) // a fresh path each run
	mkdirs(t, writer, dir)
	absent := dir + "/absent"

	pending := watcher.AddWatchAsync(absent, true)
	if _, _, err := watcher.Children(absent); !errors.Is(err, ErrNoNode) {
		t.Fatalf("Children of an absent path: %v, want ErrNoNode", err)
	}
	ch, err := pending.Wait()
	if err != nil {
		t.Fatalf("AddWatchAsync: %v", err)
	}
	mustCreate(t, writer, absent)
	mustCreate(t, writer, absent+"/kid")
	expectEvents(t, ch,
		Event{Type: EventNodeCreated, Path: absent},
		Event{Type: EventNodeCreated, Path: absent + "/kid"},
	)
}

// TestAddWatchAsyncErrors: an invalid path and a closed connection end
// Wait with an error, at once.
func TestAddWatchAsyncErrors(t *testing.T) {
	addr := testServer(t)
	c := connect(t, addr)
	if _, err := c.AddWatchAsync("no-slash", true).Wait(); !errors.Is(err, ErrInvalidPath) {
		t.Fatalf("invalid path: %v, want ErrInvalidPath", err)
	}
	c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.AddWatchAsync("/async", true).Wait()
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("AddWatchAsync on a closed connection: no error")
		}
	case <-time.After(eventTimeout):
		t.Fatalf("Wait on a closed connection still waiting after %v", eventTimeout)
	}
}
