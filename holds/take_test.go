package holds

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// The integration tests share one standalone ZooKeeper, started by the
// first test that needs it and stopped by TestMain.
var shared = &sandboxtest.Shared{Options: sandbox.Options{Members: 1, TickTime: 100 * time.Millisecond},
	Hint: "holds decides what to take from what a real ZooKeeper holds"}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Close()
	os.Exit(code)
}

var pathSeq atomic.Int64

// testPath is a fresh lock parent for one test (not created).
func testPath(t *testing.T) string {
	return fmt.Sprintf("/holds-test/%s-%d", t.Name(), pathSeq.Add(1))
}

func session(t *testing.T) *lockops.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := lockops.Connect(ctx, shared.Cluster(t).Servers())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// plant creates p's parents and the children given (persistent unless
// named with a trailing "-", then ephemeral sequential).
func plant(t *testing.T, p string, children ...string) {
	t.Helper()
	c := sandboxtest.Connect(t, shared.Cluster(t).Servers(), 10*time.Second)
	acl := zk.WorldACL(zk.PermAll)
	cur := ""
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		cur += "/" + part
		if _, err := c.Create(cur, nil, 0, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			t.Fatal(err)
		}
	}
	for _, k := range children {
		flags := int32(0)
		if strings.HasSuffix(k, "-") {
			flags = zk.FlagEphemeral | zk.FlagSequence
		}
		if _, err := c.Create(p+"/"+k, nil, flags, acl); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTake: what taking a path means, as the parent holds and as asked:
// the hold's kind (the audit's) and the refusals, each decided on a
// real ZooKeeper.
func TestTake(t *testing.T) {
	sess := session(t)
	const latch = "_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-latch-"
	tests := []struct {
		name     string
		children []string // nil: the parent is not made
		want     Want
		elected  bool // the path is named under elections:
		kind     string
		err      string
	}{
		{name: "empty parent", want: Want{Kind: "mutex"}, kind: "mutex"},
		{name: "read asked", want: Want{Kind: "read", Explicit: true}, kind: "read"},
		{name: "a limit asks for a lease", want: Want{Kind: "mutex", Limit: 2}, kind: KindLease},
		{name: "lease asked", want: Want{Kind: KindLease, Explicit: true, Limit: 2}, kind: KindLease},
		{name: "named election on a mutex", want: Want{Kind: "mutex"}, elected: true, kind: KindElection},
		{name: "latch", children: []string{latch}, want: Want{Kind: "mutex"}, kind: KindElection},
		{name: "latch as a lock", children: []string{latch}, want: Want{Kind: "mutex", Explicit: true}, err: "is a LeaderLatch election"},
		{name: "limit on an election", children: []string{latch}, want: Want{Kind: KindElection, Explicit: true, Limit: 2}, err: "--limit is a semaphore's; "},
		{name: "limit on a lock", want: Want{Kind: "write", Explicit: true, Limit: 2}, err: "--limit is a semaphore's, not a write lock's"},
		{name: "curator semaphore", children: []string{"leases", "locks"}, want: Want{Kind: "mutex"}, kind: KindLease},
		{name: "curator semaphore as a lock", children: []string{"leases", "locks"}, want: Want{Kind: "mutex", Explicit: true}, err: "is a semaphore: take a lease"},
		{name: "curator semaphore, limit unknown", children: []string{"leases", "locks"}, want: Want{Kind: "mutex", RefuseUnknownLimit: true}, err: ErrLimitUnknown.Error()},
		{name: "curator semaphore, limit in the config", children: []string{"leases", "locks"}, want: Want{Kind: "mutex", RefuseUnknownLimit: true}, kind: KindLease},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := testPath(t)
			if tc.children != nil {
				plant(t, p, tc.children...)
			}
			w := tc.want
			if tc.elected {
				w.Elections = []string{p}
			}
			if strings.Contains(tc.name, "in the config") {
				w.Semaphores = map[string]int{p: 2}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			h, err := Take(ctx, sess, p, w)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Take: %v, want an error with %q", err, tc.err)
				}
			case err != nil:
				t.Fatalf("Take: %v", err)
			case h.Kind() != tc.kind:
				t.Errorf("Take: a %s hold, want %s", h.Kind(), tc.kind)
			}
		})
	}
}

// TestHoldLease: a lease taken under the config's limit is held, its node
// is named relative to the path (leases/<name> for Curator's), and a
// release ends it.
func TestHoldLease(t *testing.T) {
	sess := session(t)
	p := testPath(t)
	plant(t, p, "leases", "locks")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := Take(ctx, sess, p, Want{Kind: "mutex", Semaphores: map[string]int{p: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Node() != "" {
		t.Errorf("node %q before Acquire", h.Node())
	}
	if err := h.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h.Node(), "leases/_c_") || h.What() != "lease" || h.FencingToken() <= 0 {
		t.Errorf("held lease: node %q, what %q, token %d", h.Node(), h.What(), h.FencingToken())
	}
	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.Done():
	case <-ctx.Done():
		t.Fatal("Done not closed after Release")
	}
}

func TestParseKindAndWhat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind ordering.Kind
		ok   bool
	}{{"mutex", ordering.KindMutex, true}, {"read", ordering.KindRead, true}, {"write", ordering.KindWrite, true}, {"lease", 0, false}, {"", 0, false}} {
		k, err := ParseKind(tc.in)
		if (err == nil) != tc.ok || tc.ok && k != tc.kind {
			t.Errorf("ParseKind(%q) = %v, %v", tc.in, k, err)
		}
	}
	for kind, want := range map[string]string{"mutex": "lock", "read": "lock", KindLease: "lease", KindElection: "leadership"} {
		if got := (&Hold{kind: kind}).What(); got != want {
			t.Errorf("What of a %s hold: %q, want %q", kind, got, want)
		}
	}
}

// TestDeducedLimitWaitsOutPassingLease: a Curator client holds the
// admission lock from before it makes its lease until it has counted the
// leases, so one read can take a lease within the limit for one waiting
// beyond it. The deduction stands only when a later read shows the same
// lease still waiting: one that passes (its client lets the lock go, as
// Curator does once its lease is within the limit) deduces nothing; one
// that stays deduces the limit.
func TestDeducedLimitWaitsOutPassingLease(t *testing.T) {
	sess := session(t)
	const (
		held    = "_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e50-lease-"
		lease   = "_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e51-lease-"
		admLock = "_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e51-lock-"
	)
	acl := zk.WorldACL(zk.PermAll)
	for _, passing := range []bool{true, false} {
		t.Run(fmt.Sprintf("passing=%v", passing), func(t *testing.T) {
			p := testPath(t)
			plant(t, p, "leases", "locks")
			other := sandboxtest.Connect(t, shared.Cluster(t).Servers(), 10*time.Second)
			if _, err := other.Create(p+"/leases/"+held, nil, zk.FlagEphemeral|zk.FlagSequence, acl); err != nil {
				t.Fatal(err)
			}
			// The admitted client: the admission lock, then its lease.
			taker := sandboxtest.Connect(t, shared.Cluster(t).Servers(), 10*time.Second)
			lockNode, err := taker.Create(p+"/locks/"+admLock, nil, zk.FlagEphemeral|zk.FlagSequence, acl)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := taker.Create(p+"/leases/"+lease, nil, zk.FlagEphemeral|zk.FlagSequence, acl); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if d := readDeduction(ctx, sess, p); d.limit != 1 || d.pending == "" {
				t.Fatalf("one read: %+v, want limit 1 and a pending lease (the shape a passing lease has too)", d)
			}
			if passing {
				// Counted 2 leases under a limit of 2: it lets the lock go.
				time.AfterFunc(deduceGap/4, func() { _ = taker.Delete(lockNode, -1) })
			}
			start := time.Now()
			got := deducedLimit(ctx, sess, p)
			want := 1
			if passing {
				want = 0
			}
			if got != want {
				t.Errorf("deducedLimit %d after %v, want %d", got, time.Since(start), want)
			}
			if el := time.Since(start); !passing && el < deduceGap {
				t.Errorf("deduced after %v, from one read (want two, %v apart)", el, deduceGap)
			}
		})
	}
}
