package ui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/locklist"
)

// stuckQueue is a lock parent with a holder since hold ago (none when
// 0) and waiters waiting since wait ago each (the first the oldest).
func stuckQueue(path string, hold time.Duration, waits ...time.Duration) model.Queue {
	var nodes []model.Node
	seq := int32(0)
	if hold > 0 {
		nodes = append(nodes, node(curatorName("aaaaaaaa-5d4e-4f60-8a7b-1c2d3e4f5a6b", seq), seq, ordering.KindMutex, ordering.RecipeCurator, ordering.RoleHolder, 0x100+int64(seq), "", "", hold))
	}
	for _, w := range waits {
		seq++
		nodes = append(nodes, node(curatorName("bbbbbbbb-5d4e-4f60-8a7b-1c2d3e4f5a6b", seq), seq, ordering.KindMutex, ordering.RecipeCurator, ordering.RoleWaiting, 0x100+int64(seq), "", "", w))
	}
	return model.Queue{Path: path, State: model.PathPresent, Type: model.TypeMutex, Nodes: model.NodesOf(nodes...)}
}

// TestStuckFirstAndWaitingOnly: the stuck-first sort puts the parents
// with waiters first by their oldest wait (not by depth, as contention
// does), then the longest holds, then the rest by path; W shows only the
// parents with waiters, and the filter narrows within them.
func TestStuckFirstAndWaitingOnly(t *testing.T) {
	snap := fleet()
	snap.Queues = model.QueuesOf(
		stuckQueue("/locks/e/deep-recent", time.Minute, 10*time.Second, 5*time.Second, time.Second),
		stuckQueue("/locks/e/empty", 0),
		stuckQueue("/locks/e/held-long", 3*time.Hour),
		stuckQueue("/locks/e/held-short", time.Minute),
		stuckQueue("/locks/e/shallow-old", time.Hour, 40*time.Minute),
	)
	m := newTest("mono", 160, 48, func(o *Options) { o.Paths = nil })
	m = step(m, updateMsg{model.Update{Snapshot: snap}})
	short := func(m Console) string {
		return strings.ReplaceAll(strings.Join(visiblePaths(m), " "), "/locks/e/", "")
	}
	if got, want := short(m), "deep-recent shallow-old held-long held-short empty"; got != want {
		t.Errorf("contention: %s, want %s", got, want)
	}
	m, _ = press(m, "s")
	if got, want := short(m), "shallow-old deep-recent held-long held-short empty"; m.list.Sort != locklist.SortStuck || got != want {
		t.Errorf("stuck first: %s, want %s", got, want)
	}
	m, _ = press(m, "W")
	if got, want := short(m), "shallow-old deep-recent"; got != want {
		t.Errorf("waiting only: %s, want %s", got, want)
	}
	if v := viewText(m); !strings.Contains(v, "2 of 5") || !strings.Contains(v, "waiting only") {
		t.Errorf("waiting only is not said:\n%s", v)
	}
	m, _ = press(m, "/", "deep", "enter")
	if got := short(m); got != "deep-recent" {
		t.Errorf("filter within waiting only: %s", got)
	}
	m, _ = press(m, "esc", "W")
	if got := len(m.list.Visible); got != 5 {
		t.Errorf("W again shows %d rows, want 5", got)
	}
}

func viewText(m Console) string { return m.View() }

// TestListRowsKeptMatchFresh: over random snapshots of many parents
// (queues changing, appearing, vanishing; configured paths the snapshot
// lacks), the rows a list keeps from the last snapshot, its orders and
// its narrowing filter are what a fresh list computes.
func TestListRowsKeptMatchFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	paths := []string{"/locks/p/0005", "/locks/p/zz-configured", "/locks/p/0000-first"}
	queues := map[string]model.Queue{}
	randomQueue := func(p string) model.Queue {
		var waits []time.Duration
		for range rng.IntN(3) {
			waits = append(waits, time.Duration(rng.IntN(100))*time.Second)
		}
		hold := time.Duration(0)
		if rng.IntN(3) > 0 {
			hold = time.Duration(1+rng.IntN(100)) * time.Second
		}
		return stuckQueue(p, hold, waits...)
	}
	kept := newTest("mono", 160, 48, func(o *Options) { o.Paths = paths })
	for round := range 40 {
		for range 1 + rng.IntN(20) {
			p := fmt.Sprintf("/locks/p/%04d", rng.IntN(60))
			if rng.IntN(4) == 0 {
				delete(queues, p)
			} else {
				queues[p] = randomQueue(p)
			}
		}
		snap := fleet()
		var qs []model.Queue
		for _, q := range queues {
			qs = append(qs, q)
		}
		slices.SortFunc(qs, func(a, b model.Queue) int { return strings.Compare(a.Path, b.Path) })
		snap.Queues = model.QueuesOf(qs...)
		kept = step(kept, updateMsg{model.Update{Snapshot: snap}})
		fresh := newTest("mono", 160, 48, func(o *Options) { o.Paths = paths })
		fresh = step(fresh, updateMsg{model.Update{Snapshot: snap}})
		for s := range locklist.SortModes {
			// As s does: the order is taken from the sort, not held.
			kept.list.Sort, fresh.list.Sort = s, s
			kept.list.Resort(t0)
			kept.list.Refresh()
			fresh.list.Resort(t0)
			fresh.list.Refresh()
			for _, keys := range [][]string{nil, {"W"}, {"/", "0", "0", "2"}, {"W", "/", "0", "0", "1"}, {"/", "0", "0", "2", "backspace", "1"}} {
				k, f := kept, fresh
				k, _ = press(k, keys...)
				f.list.WaitingOnly = k.list.WaitingOnly
				f.list.Filter.SetValue(k.list.Filter.Value())
				f.list.Gen++
				f.list.Refresh()
				if got, want := visiblePaths(k), visiblePaths(f); !slices.Equal(got, want) {
					t.Fatalf("round %d sort %v keys %v:\nkept  %v\nfresh %v", round, s, keys, got, want)
				}
			}
		}
		kept.list.Sort = locklist.SortContention
		kept.list.Resort(t0)
		kept.list.Refresh()
		for i := range kept.list.Rows {
			k, f := kept.list.Rows[i], fresh.list.Rows[i]
			if k.Path != f.Path || k.Depth != f.Depth || k.Waiters != f.Waiters || !k.WaitSince.Equal(f.WaitSince) || !k.HoldSince.Equal(f.HoldSince) || k.Holder != f.Holder {
				t.Fatalf("round %d row %d: kept %+v, fresh %+v", round, i, k, f)
			}
		}
	}
}

// TestHeldOrderPlacesNewParents: while the order is held, rows already
// drawn keep their places whatever their queues do; a lock parent that
// appears goes where the sort puts it relative to the rows before it.
func TestHeldOrderPlacesNewParents(t *testing.T) {
	snapOf := func(qs ...model.Queue) *model.Snapshot {
		s := fleet()
		slices.SortFunc(qs, func(a, b model.Queue) int { return strings.Compare(a.Path, b.Path) })
		s.Queues = model.QueuesOf(qs...)
		return s
	}
	w := func(n int) []time.Duration { return slices.Repeat([]time.Duration{time.Second}, n) }
	m := newTest("mono", 160, 48, func(o *Options) { o.Paths = nil })
	m = step(m, updateMsg{model.Update{Snapshot: snapOf(stuckQueue("/l/a", time.Minute, w(3)...), stuckQueue("/l/b", time.Minute, w(2)...), stuckQueue("/l/c", time.Minute, w(1)...))}})
	m, _ = press(m, "j")
	short := func() string { return strings.ReplaceAll(strings.Join(visiblePaths(m), " "), "/l/", "") }
	if got := short(); got != "a b c" {
		t.Fatalf("first order %q", got)
	}
	// c grows past a (held: stays), d comes between c and a by
	// contention (after c, the held row the sort puts before it), e
	// longest of all (first).
	m = step(m, updateMsg{model.Update{Snapshot: snapOf(stuckQueue("/l/a", time.Minute, w(3)...), stuckQueue("/l/b", time.Minute, w(2)...),
		stuckQueue("/l/c", time.Minute, w(6)...), stuckQueue("/l/d", time.Minute, w(4)...), stuckQueue("/l/e", time.Minute, w(9)...))}})
	if got := short(); got != "e a b c d" || m.list.Selected != "/l/b" {
		t.Errorf("held order %q (selected %s), want e a b c d (b)", got, m.list.Selected)
	}
	m = step(m, tickMsg(t0.Add(locklist.HoldOrder)))
	if got := short(); got != "e c d a b" || m.list.Selected != "/l/b" {
		t.Errorf("after holdOrder of quiet %q (selected %s), want e c d a b (b)", got, m.list.Selected)
	}
}
