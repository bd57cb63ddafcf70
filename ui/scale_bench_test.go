package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/queuepane"
)

// The console at incident scale (PRODUCT.md): a 100,000-node queue opens,
// scrolls, filters and follows the holder with no frame over 50 ms, and
// View of it at 160x48 takes under 2 ms. Every benchmark here times each
// frame (one message's Update and the View after it) and reports the
// worst as max-ms, beside the mean as ns/op.

const incidentNodes = 100_000

// trueColor draws in 24-bit colour for the rest of the benchmark, as a
// real terminal does: without a terminal lipgloss draws no escapes at all
// and a frame looks cheaper than it is.
func trueColor(b *testing.B) {
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	b.Cleanup(func() { lipgloss.SetColorProfile(old) })
}

// worstFrame keeps the slowest frame of a benchmark.
type worstFrame struct{ d time.Duration }

// time runs one frame and keeps its duration if it is the worst so far.
func (w *worstFrame) time(frame func()) {
	start := time.Now()
	frame()
	w.d = max(w.d, time.Since(start))
}

func (w *worstFrame) report(b *testing.B) {
	b.ReportMetric(float64(w.d)/float64(time.Millisecond), "max-ms")
}

// queueWindow is a moving 100,000-node queue: all holds more nodes than
// one snapshot shows, and snapshot s shows all[s:s+n] with all[s] as the
// holder. From one snapshot to the next the holder leaves and a waiter
// joins at the tail: the common change of a busy lock.
type queueWindow struct {
	all  []model.Node
	n    int
	ring [3][]model.Node // the model holds at most two snapshots at once
}

func newQueueWindow(n, extra int) *queueWindow {
	big := bigQueue("/locks/huge", n+extra)
	w := &queueWindow{all: big.Nodes.Slice(), n: n}
	for i := range w.ring {
		w.ring[i] = make([]model.Node, n)
	}
	return w
}

// steps is how many snapshots the window can move through.
func (w *queueWindow) steps() int { return len(w.all) - w.n }

// snapshot is the fleet with the huge queue's window at s.
func (w *queueWindow) snapshot(s int) *model.Snapshot {
	nodes := w.ring[s%len(w.ring)]
	copy(nodes, w.all[s:s+w.n])
	h := &nodes[0]
	h.Role, h.Believes, h.Link = ordering.RoleHolder, ordering.RoleHolder, model.LinkInferred
	h.SetWatchesPredecessor("", "")
	snap := fleet()
	snap.Queues = model.QueuesOf(append(snap.Queues.Slice(), model.Queue{Path: "/locks/huge", State: model.PathPresent, Nodes: model.NodesOf(nodes...)})...)
	return snap
}

// BenchmarkView100k draws a 100,000-node queue at 160x48, the cursor
// moving one node per frame (what holding j does). Target: under 2 ms.
func BenchmarkView100k(b *testing.B) {
	trueColor(b)
	m := bigModel(b, incidentNodes)
	for range incidentNodes / 2 {
		m.queue.Move(1, 40)
	}
	var w worstFrame
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m, _ = press(m, "down")
		w.time(func() { _ = m.View() })
	}
	w.report(b)
}

// BenchmarkUpdate100k takes in a new snapshot of a 100,000-node queue
// whose holder left and which gained a waiter at the tail, the cursor on
// a waiter in the middle.
func BenchmarkUpdate100k(b *testing.B) {
	trueColor(b)
	win := newQueueWindow(incidentNodes, 2000)
	m := bigModel(b, incidentNodes)
	m, _ = press(m, "pgdown", "pgdown", "pgdown")
	feedWindow(b, m, win, false)
}

// feedWindow hands m the window's snapshots one per iteration (drawing
// each frame when draw), timing each, and returns the model after them.
func feedWindow(b *testing.B, m Console, win *queueWindow, draw bool) Console {
	var w worstFrame
	b.ReportAllocs()
	s := 0
	for b.Loop() {
		b.StopTimer()
		s = s%win.steps() + 1
		snap := win.snapshot(s)
		b.StartTimer()
		w.time(func() {
			m = step(m, updateMsg{model.Update{Snapshot: snap}})
			if draw {
				_ = m.View()
			}
		})
	}
	w.report(b)
	return m
}

// BenchmarkKeys100k is the frame of each key on a 100,000-node queue: the
// key's Update and the View after it.
func BenchmarkKeys100k(b *testing.B) {
	trueColor(b)
	base := bigModel(b, incidentNodes)
	frame := func(m Console, keys ...string) Console {
		m, _ = press(m, keys...)
		_ = m.View()
		return m
	}
	// moves runs one moving key until the cursor reaches the end, then
	// starts again from the top (untimed).
	moves := func(k string) func(b *testing.B) {
		return func(b *testing.B) {
			m := base
			last := m.queue.Count() - 1
			var w worstFrame
			b.ReportAllocs()
			for b.Loop() {
				if m.queue.Cursor == last {
					b.StopTimer()
					m, _ = press(m, "g")
					b.StartTimer()
				}
				w.time(func() { m = frame(m, k) })
			}
			w.report(b)
		}
	}
	b.Run("down", moves("down"))
	b.Run("j", moves("j"))
	b.Run("pgdown", moves("pgdown"))
	b.Run("G", moves("G"))
	b.Run("g-G", func(b *testing.B) {
		m := base
		var w worstFrame
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := [...]string{"G", "g"}[i%2]
			i++
			w.time(func() { m = frame(m, k) })
		}
		w.report(b)
	})
	// filter types `/`, "huge", enter and esc, a frame per key, with the
	// huge queue selected: each key re-filters the list and re-selects.
	b.Run("filter", func(b *testing.B) {
		m := base
		keys := []string{"/", "h", "u", "g", "e", "enter", "esc"}
		var w worstFrame
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := keys[i%len(keys)]
			i++
			w.time(func() { m = frame(m, k) })
		}
		if m.queue.Path != "/locks/huge" {
			b.Fatalf("the filter lost the huge queue: %q", m.queue.Path)
		}
		w.report(b)
	})
	// handoff follows the holder: the cursor is on the holder (g) when it
	// leaves, and the frame after the snapshot shows the next holder
	// under the cursor.
	b.Run("handoff", func(b *testing.B) {
		win := newQueueWindow(incidentNodes, 2000)
		m := step(base, updateMsg{model.Update{Snapshot: win.snapshot(0)}})
		m, _ = press(m, "g")
		m = feedWindow(b, m, win, true)
		if n := m.queue.Node(); n == nil || n.Role != ordering.RoleHolder {
			b.Fatal("the cursor did not follow the holder")
		}
	})
}

// manyLocks is a snapshot of parents lock parents of nodes nodes each.
func manyLocks(parents, nodes int) *model.Snapshot {
	snap := fleet()
	var qs []model.Queue
	for i := range parents {
		q := bigQueue(fmt.Sprintf("/locks/svc-%02d/job-%05d", i%37, i), nodes)
		for j := range q.Nodes.All() {
			q.Nodes.At(j).SetSince(ago(time.Duration((i*7919+j)%3600) * time.Second))
		}
		qs = append(qs, q)
	}
	// Sorted by path, as zkview publishes them.
	slices.SortFunc(qs, func(a, b model.Queue) int { return strings.Compare(a.Path, b.Path) })
	snap.Queues = model.QueuesOf(qs...)
	return snap
}

// BenchmarkLocks5k is the lock list of 5,000 parents of 10 nodes each:
// the frame of each key with the list focused, and taking in a snapshot.
func BenchmarkLocks5k(b *testing.B) {
	trueColor(b)
	snap := manyLocks(5000, 10)
	base := newTest("dark", 160, 48)
	base = step(base, updateMsg{model.Update{Snapshot: snap}})
	cycle := func(keys ...string) func(b *testing.B) { return keyFrames(base, keys...) }
	b.Run("view", viewFrames(base))
	b.Run("down", cycle("down"))
	b.Run("pgdown-g", cycle("pgdown", "pgdown", "pgdown", "g"))
	b.Run("sort", cycle("s"))
	b.Run("filter", cycle("/", "j", "o", "b", "-", "0", "1", "enter", "esc"))
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
}

// TestIncidentQueue: at 100,000 nodes the cursor still follows its node
// through a handoff, follows the holder when it was on the holder, and
// the filter keeps the queue shown.
func TestIncidentQueue(t *testing.T) {
	win := newQueueWindow(incidentNodes, 2)
	m := step(bigModel(t, incidentNodes), updateMsg{model.Update{Snapshot: win.snapshot(0)}})
	m, _ = press(m, "G")
	if m.queue.Cursor != incidentNodes-1 {
		t.Fatalf("G: cursor %d", m.queue.Cursor)
	}
	for range 100 {
		m, _ = press(m, "up")
	}
	on := m.queue.Node().Name
	m = step(m, updateMsg{model.Update{Snapshot: win.snapshot(1)}})
	if got := m.queue.Node().Name; got != on {
		t.Errorf("after a handoff the cursor moved from %s to %s", on, got)
	}
	m, _ = press(m, "g")
	m = step(m, updateMsg{model.Update{Snapshot: win.snapshot(2)}})
	if n := m.queue.Node(); m.queue.Cursor != 0 || n.Role != ordering.RoleHolder || n.Name != win.all[2].Name {
		t.Errorf("the cursor did not follow the holder: at %d", m.queue.Cursor)
	}
	checkFrame(t, ansi.Strip(m.View()), 160, 48)
	m, _ = press(m, "/", "huge", "enter")
	if len(m.list.Visible) != 1 || m.queue.Path != "/locks/huge" || m.queue.Count() != incidentNodes {
		t.Errorf("filter: %d rows, queue %q of %d", len(m.list.Visible), m.queue.Path, m.queue.Count())
	}
}

// TestNodeIndex: find answers as a map of names would, the first node
// of a name when two share it.
func TestNodeIndex(t *testing.T) {
	sorted := bigQueue("/locks/q", 50).Nodes.Slice()
	lease := node("3f2a1b9c5d4e4f608a7b1c2d31234567890", 0, ordering.KindOther, ordering.RecipeKazoo, ordering.RoleHolder, 1, "", "", 0)
	plain := node("lock", 0, ordering.KindMutex, ordering.RecipeEphemeral, ordering.RoleHolder, 1, "", "", 0)
	unsorted := slices.Clone(sorted[:10])
	unsorted[3], unsorted[7] = unsorted[7], unsorted[3]
	dup := append(slices.Clone(sorted[:5]), sorted[2])
	for _, tc := range []struct {
		name  string
		nodes []model.Node
	}{
		{"sorted", sorted},
		{"unsorted", unsorted},
		{"lease named like a sequence", append([]model.Node{lease}, sorted[:5]...)},
		{"no sequence", append([]model.Node{plain}, sorted[:3]...)},
		{"duplicate", dup},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := map[string]int{}
			for i, n := range tc.nodes {
				if _, seen := want[n.Name]; !seen {
					want[n.Name] = i
				}
			}
			x := &queuepane.NodeIndex{Nodes: model.NodesOf(tc.nodes...)}
			for name, i := range want {
				for _, guesses := range [][]int{nil, {i}, {i - 1, 999}} {
					if got, ok := x.Find(name, guesses...); !ok || got != i {
						t.Errorf("find(%q, %v) = %d, %v; want %d", name, guesses, got, ok, i)
					}
				}
			}
			for _, name := range []string{"", curatorName("ffffffff-5d4e-4f60-8a7b-1c2d3e4f5a6b", 7), curatorName("gone", 4000), "other"} {
				if i, ok := x.Find(name, 0); ok {
					t.Errorf("find(%q) = %d, want absent", name, i)
				}
			}
		})
	}
	// A sorted queue answers without building the map.
	x := &queuepane.NodeIndex{Nodes: model.NodesOf(sorted...)}
	x.Find(sorted[40].Name)
	x.Find(curatorName("gone", 4000))
	if x.ByName != nil {
		t.Error("a sorted queue built the map")
	}
}

// keyFrames times, from base, each key of keys pressed in turn and the
// frame after it (worstFrame: the slowest reported too).
func keyFrames(base Console, keys ...string) func(b *testing.B) {
	return func(b *testing.B) {
		m := base
		var w worstFrame
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := keys[i%len(keys)]
			i++
			w.time(func() {
				m, _ = press(m, k)
				_ = m.View()
			})
		}
		w.report(b)
	}
}

// viewFrames times drawing base.
func viewFrames(base Console) func(b *testing.B) {
	return func(b *testing.B) {
		var w worstFrame
		b.ReportAllocs()
		for b.Loop() {
			w.time(func() { _ = base.View() })
		}
		w.report(b)
	}
}
