package peers

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox/sandboxtest"
)

func TestSemaphoreKindParse(t *testing.T) {
	for _, tt := range []struct {
		kind LockKind
		n    int
		ok   bool
	}{
		{Semaphore(3), 3, true},
		{"semaphore:1", 1, true},
		{"semaphore:0", 0, false},
		{"semaphore:-2", 0, false},
		{"semaphore:02", 0, false},
		{"semaphore:", 0, false},
		{Mutex, 0, false},
	} {
		n, ok := tt.kind.SemaphoreLimit()
		if n != tt.n || ok != tt.ok {
			t.Errorf("%q: %d %v, want %d %v", tt.kind, n, ok, tt.n, tt.ok)
		}
		if err := checkLockKind(tt.kind); (err == nil) != (tt.ok || tt.kind == Mutex) {
			t.Errorf("checkLockKind(%q) = %v", tt.kind, err)
		}
	}
}

// TestSemaphorePeers: each library's semaphore with two leases grants two
// clients at once, makes a third wait (Curator: its lease beyond the
// limit in leases/; Kazoo: in line at <path>-__lock__), reports lease
// nodes in its style owned by the client's session, and hands the freed
// lease to the waiter.
func TestSemaphorePeers(t *testing.T) {
	servers := testServers(t)
	leaseStyle := map[Kind]*regexp.Regexp{
		Curator: regexp.MustCompile(`^_c_[0-9a-f-]{36}-lease-\d{10}$`),
		Kazoo:   regexp.MustCompile(`^[0-9a-f]{32}$`),
	}
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			ctx := tctx(t, 90*time.Second)
			conn := sandboxtest.Connect(t, servers, 10*time.Second)
			p := StartT(t, kind, Options{Servers: servers, Sessions: 3})
			ids := p.Sessions()
			path := testPath(t)
			leaseDir, waitDir, waitCount := path+"/leases", path+"/leases", 3
			if kind == Kazoo {
				leaseDir, waitDir, waitCount = path, path+"-__lock__", 1
			}
			var holds []*Hold
			for c := range 2 {
				h, err := p.Acquire(ctx, c, path, Semaphore(2))
				if err != nil {
					t.Fatal(err)
				}
				if !leaseStyle[kind].MatchString(h.Node()) {
					t.Errorf("lease %q is not in %s's style", h.Node(), kind)
				}
				if o := owner(t, conn, leaseDir, h.Node()); o != ids[c] {
					t.Errorf("lease %s owned by 0x%x, want 0x%x", h.Node(), o, ids[c])
				}
				holds = append(holds, h)
			}
			h2, err := p.Request(2, path, Semaphore(2))
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, 20*time.Second, "the third client waiting", func() bool {
				return len(children(t, conn, waitDir)) == waitCount
			})
			if h2.Held() {
				t.Fatal("a third lease granted with a limit of 2")
			}
			if err := holds[0].Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := h2.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if o := owner(t, conn, leaseDir, h2.Node()); o != ids[2] {
				t.Errorf("lease %s owned by 0x%x, want 0x%x", h2.Node(), o, ids[2])
			}
			if got := len(children(t, conn, leaseDir)); got != 2 {
				t.Errorf("%d leases after the handover, want 2", got)
			}
			if err := holds[0].Release(ctx); !errors.Is(err, ErrNotHeld) {
				t.Errorf("second release: %v, want ErrNotHeld", err)
			}
			if _, err := p.Loop(ctx, LoopSpec{Path: path, Kind: Semaphore(2), Cycles: 1}); !errors.Is(err, ErrBadArgument) {
				t.Errorf("a loop on a semaphore: %v, want ErrBadArgument", err)
			}
		})
	}
}
