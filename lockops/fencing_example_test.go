package lockops_test

// The runnable example of docs/fencing.md: two ways for a resource to
// refuse a holder that lost its lock. Run it with
//
//	go test -run TestFencingExample -v ./lockops

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// ErrStaleToken is returned by fencedStore for a token lower than the
// highest it has seen.
var ErrStaleToken = errors.New("store: fencing token lower than one already seen")

// fencedStore is a resource that keeps the highest fencing token it has
// seen and refuses anything lower: a holder that lost its lock (paused,
// cut off) still has its old token, and every later holder's is higher.
type fencedStore struct {
	mu      sync.Mutex
	highest int64
	value   string
}

// Write stores value for the holder of token, unless a later holder has
// been seen.
func (s *fencedStore) Write(token int64, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.highest {
		return fmt.Errorf("%w: %d < %d", ErrStaleToken, token, s.highest)
	}
	s.highest, s.value = token, value
	return nil
}

// writeUnderLock writes data to a resource held in ZooKeeper only while
// lockNode (the writer's own lock node, the full path) exists: one multi,
// a check of the lock node (version -1: it exists, whatever its version)
// and the write. A holder whose session ended has no node any more, and
// the whole multi fails with zk.ErrNoNode, writing nothing. Any client
// connection can send it: the check names the node, not the session.
func writeUnderLock(conn *zk.Conn, lockNode, resource string, data []byte) error {
	_, err := conn.Multi(
		&zk.CheckVersionRequest{Path: lockNode, Version: -1},
		&zk.SetDataRequest{Path: resource, Data: data, Version: -1},
	)
	return err
}

// TestFencingExample: holder A writes, loses its lock (its session ends
// while it thinks it still holds: a pause would do the same), B takes
// the lock and writes; A's late writes are refused by both resources.
func TestFencingExample(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Members: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	connect := func() *lockops.Session {
		s, err := lockops.Connect(ctx, c.Servers())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	conn := sandboxtest.Connect(t, c.Servers(), 10*time.Second) // the resource's own client
	const lockPath, resource = "/locks/report", "/resources/report"
	for _, p := range []string{"/resources", resource} {
		if _, err := conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	store := &fencedStore{}

	sa := connect()
	a := lockops.NewLock(sa, lockPath)
	if err := a.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	aToken, aNode := a.FencingToken(), lockPath+"/"+a.Node()
	if err := store.Write(aToken, "from A"); err != nil {
		t.Fatal(err)
	}
	if err := writeUnderLock(conn, aNode, resource, []byte("from A")); err != nil {
		t.Fatal(err)
	}

	sa.Close() // A's session ends: its node goes, B takes the lock.
	b := lockops.NewLock(connect(), lockPath)
	if err := b.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := store.Write(b.FencingToken(), "from B"); err != nil {
		t.Fatal(err)
	}
	if err := writeUnderLock(conn, lockPath+"/"+b.Node(), resource, []byte("from B")); err != nil {
		t.Fatal(err)
	}

	// A writes late, with what it had.
	if err := store.Write(aToken, "late from A"); !errors.Is(err, ErrStaleToken) {
		t.Fatalf("the store took A's late write: %v", err)
	}
	if err := writeUnderLock(conn, aNode, resource, []byte("late from A")); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("the multi took A's late write: %v", err)
	}
	data, _, err := conn.Get(resource)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tokens: A %d, B %d; the store holds %q, the znode %q", aToken, b.FencingToken(), store.value, data)
	if store.value != "from B" || string(data) != "from B" {
		t.Fatalf("the store holds %q, the znode %q: want B's write in both", store.value, data)
	}
}
