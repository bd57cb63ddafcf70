package zk

// zklock patch: tests of WatchData (patch 7) against a real ZooKeeper
// (zkserver_test.go).

import (
	"fmt"
	"testing"
	"time"
)

// TestWatchData sets three watches in one request: on a node that another
// session then deletes, on one whose data it then changes, and on one
// already gone. The gone one has fired by the time WatchData returns; the
// others fire with the change made to them, and only then.
func TestWatchData(t *testing.T) {
	c := connect(t, testServer(t))
	other := connect(t, testServer(t))
	dir := fmt.Sprintf("/watchdata-%x", c.SessionID())
	mkdirs(t, c, dir)
	acl := WorldACL(PermAll)
	a, sa, err := c.Create2(dir+"/a", nil, 0, acl)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := c.Create2(dir+"/b", nil, 0, acl)
	if err != nil {
		t.Fatal(err)
	}
	chs, err := c.WatchData(sa.Czxid+1, a, b, dir+"/gone")
	if err != nil {
		t.Fatalf("WatchData: %v", err)
	}
	for i, ch := range chs[:2] {
		select {
		case ev := <-ch:
			t.Fatalf("watch %d fired before any change: %+v", i, ev)
		default:
		}
	}
	select {
	case ev := <-chs[2]:
		if ev.Type != EventNodeDeleted || ev.Path != dir+"/gone" {
			t.Fatalf("watch on a missing node: %+v, want NodeDeleted", ev)
		}
	default:
		t.Fatal("watch on a missing node did not fire before WatchData returned")
	}
	if err := other.Delete(a, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Set(b, []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	for i, want := range []EventType{EventNodeDeleted, EventNodeDataChanged} {
		select {
		case ev := <-chs[i]:
			if ev.Type != want {
				t.Fatalf("watch %d: %+v, want %v", i, ev, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("watch %d never fired", i)
		}
	}
}

// TestWatchDataChangedBefore: a node whose data changed after
// relativeZxid fires NodeDataChanged at once, as after a reconnect.
func TestWatchDataChangedBefore(t *testing.T) {
	c := connect(t, testServer(t))
	dir := fmt.Sprintf("/watchdata-%x", c.SessionID())
	mkdirs(t, c, dir)
	p, st, err := c.Create2(dir+"/n", nil, 0, WorldACL(PermAll))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(p, []byte("revoked"), -1); err != nil {
		t.Fatal(err)
	}
	chs, err := c.WatchData(st.Czxid, p)
	if err != nil {
		t.Fatalf("WatchData: %v", err)
	}
	select {
	case ev := <-chs[0]:
		if ev.Type != EventNodeDataChanged {
			t.Fatalf("%+v, want NodeDataChanged", ev)
		}
	default:
		t.Fatal("a node changed after relativeZxid did not fire before WatchData returned")
	}
}
