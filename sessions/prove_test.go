package sessions

import (
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
)

// TestProveCycles: a one-off read dates a young cycle from its newest
// node's creation when every one of its parents' pzxid is no newer than
// that node's czxid, and only then.
func TestProveCycles(t *testing.T) {
	// made is a node created ago before T0 with czxid z (its Since is
	// the read's own moment, as a one-off read dates what it finds).
	made := func(n model.Node, z int64, ago time.Duration) model.Node {
		n.Czxid = z
		n.SetCtime(modeltest.T0.Add(-ago))
		n.SetSince(modeltest.T0)
		return n
	}
	// The cycle: 1 holds /a (czxid 10) and waits on /b (13); 2 holds /b
	// (11) and waits on /a (12), made 40 s to 20 s before the read: the
	// newest, 13, 20 s before.
	cycle := func(pzA, pzB int64, newestAgo time.Duration) *model.Snapshot {
		a := modeltest.MutexQ("/a", made(modeltest.Hold(1, 1, 0), 10, 40*time.Second), made(modeltest.Wait(2, 2, 0), 12, 30*time.Second))
		b := modeltest.MutexQ("/b", made(modeltest.Hold(1, 2, 0), 11, 35*time.Second), made(modeltest.Wait(2, 1, 0), 13, newestAgo))
		a.SetPzxid(pzA)
		b.SetPzxid(pzB)
		return snapOf(a, b)
	}
	for _, tc := range []struct {
		name     string
		snap     *model.Snapshot
		state    string
		sinceAgo time.Duration // 0: the read's own date kept
	}{
		{"both parents unchanged since the newest node: a deadlock at once", cycle(12, 13, 20*time.Second), model.CycleDeadlock, 20 * time.Second},
		{"a parent changed since (a node came and went): young", cycle(14, 13, 20*time.Second), model.CycleYoung, 0},
		{"a parent kept no pzxid: young", cycle(0, 13, 20*time.Second), model.CycleYoung, 0},
		{"proven, but the newest node is younger than DeadlockAfter: still young, dated", cycle(12, 13, 2*time.Second), model.CycleYoung, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.snap.Deadlocks) != 1 || tc.snap.Deadlocks[0].State != model.CycleYoung {
				t.Fatalf("the read itself: %+v", tc.snap.Deadlocks)
			}
			before := tc.snap.Deadlocks[0]
			ds := ProveCycles(tc.snap)
			if len(ds) != 1 {
				t.Fatalf("%d cycles", len(ds))
			}
			want := before.Since
			if tc.sinceAgo > 0 {
				want = modeltest.T0.Add(-tc.sinceAgo)
			}
			if ds[0].State != tc.state || !ds[0].Since.Equal(want) {
				t.Errorf("%s since %s, want %s since %s", ds[0].State, ds[0].Since, tc.state, want)
			}
			if tc.snap.Deadlocks[0].Since != before.Since || tc.snap.Deadlocks[0].State != before.State {
				t.Errorf("the snapshot's own cycles changed")
			}
			young, _ := YoungCycles(&model.Snapshot{Deadlocks: ds})
			if young != (tc.state == model.CycleYoung) {
				t.Errorf("YoungCycles %v after proving %s", young, tc.state)
			}
		})
	}
}
