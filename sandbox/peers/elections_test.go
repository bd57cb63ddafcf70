package peers

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// TestElections: Curator's LeaderLatch and Kazoo's Election, driven as
// locks: the first participant leads (its node in the recipe's style, its
// request id as data), the next leads once it leaves, and a participant
// that gives up while following leaves no node.
func TestElections(t *testing.T) {
	servers := testServers(t)
	for _, tc := range []struct {
		kind Kind
		lk   LockKind
		node *regexp.Regexp
	}{
		{Curator, Latch, regexp.MustCompile(`^_c_[0-9a-f-]{36}-latch-\d{10}$`)},
		{Kazoo, Election, regexp.MustCompile(`^[0-9a-f]{32}__lock__\d{10}$`)},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			ctx := tctx(t, 60*time.Second)
			conn := sandboxtest.Connect(t, servers, 10*time.Second)
			p := StartT(t, tc.kind, Options{Servers: servers, Sessions: 2})
			path := testPath(t)

			leader, err := p.Acquire(ctx, 0, path, tc.lk)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.node.MatchString(leader.Node()) {
				t.Errorf("node %q is not in %s's style", leader.Node(), tc.kind)
			}
			data, st, err := conn.Get(path + "/" + leader.Node())
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != leader.ID() || st.EphemeralOwner != p.Session(0) {
				t.Errorf("leader node: data %q owner 0x%x; want %q, 0x%x", data, st.EphemeralOwner, leader.ID(), p.Session(0))
			}
			follower, err := p.Request(1, path, tc.lk)
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, 20*time.Second, "the follower's node", func() bool { return len(children(t, conn, path)) == 2 })
			if follower.Held() {
				t.Fatal("the follower leads while the leader does")
			}
			if err := leader.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := follower.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if o := owner(t, conn, path, follower.Node()); o != p.Session(1) {
				t.Errorf("new leader's node owned by 0x%x, want 0x%x", o, p.Session(1))
			}
			if err := leader.Release(ctx); !errors.Is(err, ErrNotHeld) {
				t.Errorf("second release: %v, want ErrNotHeld", err)
			}

			waiting, err := p.Request(0, path, tc.lk)
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, 20*time.Second, "a following node", func() bool { return len(children(t, conn, path)) == 2 })
			if err := waiting.Cancel(ctx); err != nil {
				t.Fatal(err)
			}
			eventually(t, 10*time.Second, "only the leader's node", func() bool {
				c := children(t, conn, path)
				return len(c) == 1 && c[0] == follower.Node()
			})
			if err := follower.Release(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
