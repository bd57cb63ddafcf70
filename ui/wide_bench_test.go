package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// A lock per entity (issue #34): a root of 100,000 lock parents, 1 in 10
// with a holder and 1 in 100 with waiters behind it. Every benchmark here
// times each frame (one message's Update and the View after it) and
// reports the worst as max-ms. Targets: View under 2 ms, no frame over
// 50 ms scrolling, filtering and sorting.

const wideParents = 100_000

// wideSnapshot is parents lock parents under /locks/orders, sorted by path
// as the Watcher publishes them: every tenth has a holder, every
// hundredth also three waiters, the rest are empty. Holds and waits
// start at different times so that every sort has work to do.
func wideSnapshot(parents int) *model.Snapshot {
	snap := fleet()
	qs := make([]model.Queue, 0, parents)
	for i := range parents {
		q := model.Queue{Path: fmt.Sprintf("/locks/orders/order-%07d", i), State: model.PathPresent, Type: model.TypeMutex}
		if i%10 == 0 {
			nodes := []model.Node{node(curatorName(fmt.Sprintf("%08x-5d4e-4f60-8a7b-1c2d3e4f5a6b", i), 0), 0, ordering.KindMutex,
				ordering.RecipeCurator, ordering.RoleHolder, 0x10000a3f2c0000+int64(i), "", fmt.Sprintf("worker-%d", i),
				time.Duration(i*7919%86400)*time.Second)}
			if i%100 == 0 {
				for k := int32(1); k <= 3; k++ {
					name := curatorName(fmt.Sprintf("%08x-5d4e-4f60-8a7b-1c2d3e4f5a6b", i+int(k)), k)
					nodes = append(nodes, waits(node(name, k, ordering.KindMutex, ordering.RecipeCurator, ordering.RoleWaiting,
						0x10000b3f2c0000+int64(i)+int64(k), "", "", time.Duration((i*104729+int(k))%3600)*time.Second), nodes[k-1].Name, model.LinkInferred))
				}
			}
			q.Nodes = model.NodesOf(nodes...)
		}
		qs = append(qs, q)
	}
	snap.Queues = model.QueuesOf(qs...)
	return snap
}

// wideModel is the console on wideSnapshot(parents) at 160x48, the lock
// list focused.
func wideModel(b testing.TB, parents int) (Console, *model.Snapshot) {
	snap := wideSnapshot(parents)
	m := newTest("dark", 160, 48)
	m = step(m, updateMsg{model.Update{Snapshot: snap}})
	return m, snap
}

// BenchmarkWide100k is the lock list of 100,000 parents: drawing it, the
// frame of each key with the list focused, and taking in a snapshot.
func BenchmarkWide100k(b *testing.B) {
	trueColor(b)
	base, snap := wideModel(b, wideParents)
	cycle := func(keys ...string) func(b *testing.B) { return keyFrames(base, keys...) }
	b.Run("view", viewFrames(base))
	b.Run("down", cycle("down"))
	b.Run("pgdown-G-g", cycle("pgdown", "pgdown", "G", "g"))
	// sort goes through every order: contention (depth), oldest wait,
	// hold time, name.
	b.Run("sort", cycle("s"))
	b.Run("filter", cycle("/", "0", "1", "2", "3", "backspace", "enter", "esc"))
	// waiting: the stuck ones in two keys, and back.
	b.Run("waiting", cycle("W", "s", "W", "s", "s", "s"))
	b.Run("update", func(b *testing.B) {
		m := base
		var w worstFrame
		b.ReportAllocs()
		for b.Loop() {
			next := *snap // a new snapshot of the same queues
			w.time(func() { m = step(m, updateMsg{model.Update{Snapshot: &next}}) })
		}
		w.report(b)
	})
	// update-moving: snapshots arrive while the operator moves through
	// the list, which holds its order for them.
	b.Run("update-moving", func(b *testing.B) {
		m := base
		var w worstFrame
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			w.time(func() {
				if i%2 == 0 {
					next := *snap
					m = step(m, updateMsg{model.Update{Snapshot: &next}})
				} else {
					m, _ = press(m, "down")
				}
				_ = m.View()
			})
		}
		w.report(b)
	})
}
