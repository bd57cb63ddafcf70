package lockops

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// TestForceReleasedHolderLearns: a holder whose node an operator
// force-releases learns of it (Done closes, Err wraps ErrNodeDeleted),
// however it came to hold: alone (its own-node watch armed only after
// ownWatchDelay), force-released at once or once the watch is armed, and
// second in line, holding on its predecessor's deletion with the own-node
// watch it armed while waiting. How long each took, from ForceRelease's
// return to Done, is logged, not asserted: speed lives in benchmarks.
func TestForceReleasedHolderLearns(t *testing.T) {
	const rounds = 5
	op := connect(t)
	ctx := tctx(t, 60*time.Second)
	cases := []struct {
		name    string
		queued  bool          // hold by the shortcut, behind another holder
		heldFor time.Duration // before the force-release
	}{
		{"alone, at once", false, 0},
		{"alone, watch armed", false, 4 * ownWatchDelay},
		{"second in line, at once", true, 0},
	}
	for _, tc := range cases {
		var lat []time.Duration
		for range rounds {
			p := lockPath(t)
			queued := make(chan struct{}, 1)
			h := NewLock(connect(t), p, WithProgress(func(pr ordering.Progress) {
				if pr.State == ordering.LockQueued && pr.Position == 2 {
					select {
					case queued <- struct{}{}:
					default:
					}
				}
			}))
			if tc.queued {
				first := NewLock(connect(t), p)
				if err := first.Acquire(ctx); err != nil {
					t.Fatal(err)
				}
				got := make(chan error, 1)
				go func() { got <- h.Acquire(ctx) }()
				// Queued is reported once its watches are armed.
				recvWithin(t, queued, 10*time.Second, "second client queued")
				if err := first.Release(ctx); err != nil {
					t.Fatal(err)
				}
				if err := recvWithin(t, got, 10*time.Second, "second client's hold"); err != nil {
					t.Fatal(err)
				}
				if n := h.shortcuts.Load(); n != 1 {
					t.Fatalf("%s: held without the shortcut (%d)", tc.name, n)
				}
			} else if err := h.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
			if tc.heldFor > 0 {
				// The own-node watch is armed in the background; only the
				// time to the force-release is waited, not the arming.
				time.Sleep(tc.heldFor)
			}
			if err := ForceRelease(ctx, op, p+"/"+h.Node(), h.s.ID()); err != nil {
				t.Fatal(err)
			}
			at := time.Now()
			waitClosed(t, h.Done(), 10*time.Second, tc.name+": the holder's Done after ForceRelease")
			lat = append(lat, time.Since(at))
			if err := h.Err(); !errors.Is(err, ErrLost) || !errors.Is(err, ErrNodeDeleted) {
				t.Fatalf("%s: Err %v, want ErrLost and ErrNodeDeleted", tc.name, err)
			}
			if err := h.Release(ctx); err != nil {
				t.Fatalf("%s: Release of a lost lock: %v", tc.name, err)
			}
		}
		slices.Sort(lat)
		t.Logf("%s: force-release learnt in %v (median of %d; min %v, max %v)", tc.name, lat[len(lat)/2], rounds, lat[0], lat[len(lat)-1])
	}
}
