package zkview

import (
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// TestMissingWatchKeptWhileUnwatched: the console flags a waiter that set
// no watch at its first poll, and keeps it flagged, with no "cleared"
// event, when the holder goes and the next waiter takes over while the
// unwatched one still has no watch.
func TestMissingWatchKeptWhileUnwatched(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	ctx := tctx(t, time.Minute)
	holderSess := session(t, c.Servers())
	holder := lockops.NewLock(holderSess, p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	waiter := lockops.NewLock(session(t, c.Servers()), p)
	go func() { _ = waiter.Acquire(ctx) }()
	eventually(t, 20*time.Second, "the waiter", func() bool { return waiter.State() == ordering.LockQueued })
	stuck := createSeq(t, rawConn(t, c.Servers()), p, "lock-", nil) // no watch, ever
	created := time.Now()
	eventually(t, 10*time.Second, "the stuck node older than the grace", func() bool { return time.Since(created) > 1500*time.Millisecond })

	w := watch(t, session(t, c.Servers()), Options{Paths: []string{p}, ServerView: true, ServerViewEvery: time.Hour})
	missing := func(s *model.Snapshot) []string {
		if q := queueOf(s, p); q != nil {
			for _, wn := range q.Warnings() {
				if wn.Code == model.WarnMissingWatch {
					return wn.Nodes
				}
			}
		}
		return nil
	}
	waitFor(t, w, 20*time.Second, "missing-watch at the first poll", func(s *model.Snapshot) bool {
		return slices.Equal(missing(s), []string{stuck})
	})
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the waiter to hold", func() bool { return waiter.State() == ordering.LockHolding })
	for range 3 { // polls after the handoff, each one read
		polled := time.Now()
		w.Refresh()
		s := waitFor(t, w, 20*time.Second, "a poll after the handoff", func(s *model.Snapshot) bool {
			return s.ServerViewAt.After(polled) && queueOf(s, p) != nil && queueOf(s, p).Nodes.Len() == 2
		})
		if got := missing(s); !slices.Equal(got, []string{stuck}) {
			t.Fatalf("after the handoff: missing-watch on %v, want %s\n%s", got, stuck, dump(s))
		}
	}
	for _, ev := range w.events() {
		if ev.Kind == model.ChangeWarningCleared && ev.Warning.Code == model.WarnMissingWatch {
			t.Errorf("missing-watch cleared while %s still had no watch: %+v", stuck, ev)
		}
	}
}
