package zkview

import (
	"context"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// TestWatchThroughChroot: over a Session with a chroot, a lock parent
// found under the root "/" of the chroot is followed in both watch modes,
// and its nodes' data is read. With the persistent watch, whose events
// name the server's paths, a holder's node comes and goes without a
// listing: the events land on the path as the user sees it (were they
// missed, the audit would list the queue again).
func TestWatchThroughChroot(t *testing.T) {
	for _, mode := range []string{model.ModeRecursive, model.ModeChildren} {
		t.Run(mode, func(t *testing.T) {
			c := testCluster(t)
			chroot := testPath(t)
			mkdirs(t, rawConn(t, c.Servers()), chroot+"/q")
			ctx := tctx(t, 30*time.Second)
			rc := &requestCounter{}
			mon := session(t, c.Servers(), lockops.WithChroot(chroot), lockops.WithDialer(rc.dialer()))
			w := watch(t, mon, Options{Roots: []string{"/"}, ChildWatches: mode == model.ModeChildren})
			holder := session(t, c.Servers(), lockops.WithChroot(chroot))

			first, snap := hold(t, ctx, w, holder, "first")
			if s := snap; s.WatchMode != mode {
				t.Errorf("mode %q, want %q", s.WatchMode, mode)
			}
			_, before := rc.requests()
			if err := first.Release(ctx); err != nil {
				t.Fatal(err)
			}
			waitFor(t, w, 10*time.Second, "/q emptied", func(s *model.Snapshot) bool {
				q := queueOf(s, "/q")
				return q == nil || q.Nodes.Len() == 0
			})
			second, _ := hold(t, ctx, w, holder, "second")
			_, after := rc.requests()
			if n := after[opGetChildren2] - before[opGetChildren2]; mode == model.ModeRecursive && n != 0 {
				t.Errorf("%d listings for a holder's node going and another coming under a persistent watch; want none", n)
			}
			_ = second.Release(ctx)
		})
	}
}

// hold takes /q with s and waits until w shows the node, with data, held;
// it returns the lock and the snapshot that showed it.
func hold(t *testing.T, ctx context.Context, w *testWatcher, s *lockops.Session, data string) (*lockops.Lock, *model.Snapshot) {
	t.Helper()
	l := lockops.NewLock(s, "/q", lockops.WithData([]byte(data)))
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	snap := waitFor(t, w, 10*time.Second, data+" holding /q", func(snap *model.Snapshot) bool {
		q := queueOf(snap, "/q")
		if q == nil || q.Nodes.Len() != 1 {
			return false
		}
		n := q.Nodes.At(0)
		return n.Name == l.Node() && n.Session == s.ID() && n.Role == ordering.RoleHolder && string(n.Data()) == data
	})
	return l, snap
}
