package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// bigQueue is a Curator mutex queue of n nodes: one holder, n-1 waiters
// each watching its predecessor.
func bigQueue(path string, n int) model.Queue {
	nodes := make([]model.Node, n)
	prev := ""
	for i := range nodes {
		name := curatorName(fmt.Sprintf("%08x-5d4e-4f60-8a7b-1c2d3e4f5a6b", i), int32(i))
		role := ordering.RoleWaiting
		if i == 0 {
			role = ordering.RoleHolder
		}
		nd := node(name, int32(i), ordering.KindMutex, ordering.RecipeCurator, role, 0x10000a3f2c0000+int64(i),
			fmt.Sprintf("10.0.%d.%d:5%04d", i/256%256, i%256, i%10000), fmt.Sprintf("worker-%d", i), time.Duration(n-i)*time.Second)
		if i > 0 {
			nd = waits(nd, prev, model.LinkVerified)
		}
		nodes[i] = nd
		prev = name
	}
	return model.Queue{Path: path, State: model.PathPresent, Nodes: model.NodesOf(nodes...)}
}

func bigModel(b testing.TB, n int) Console {
	snap := fleet()
	snap.Queues = model.QueuesOf(append(snap.Queues.Slice(), bigQueue("/locks/huge", n))...)
	m := newTest("dark", 160, 48)
	m = step(m, updateMsg{model.Update{Snapshot: snap}})
	m = selectPath(m, "/locks/huge")
	m, _ = press(m, "tab")
	return m
}

// BenchmarkView10k draws a 10,000-node queue at 160x48, the cursor moving
// one node per frame (what holding j does).
func BenchmarkView10k(b *testing.B) {
	m := bigModel(b, 10000)
	for range 5000 {
		m.queue.Move(1, 40)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m, _ = press(m, "down")
		_ = m.View()
	}
}

// BenchmarkUpdate10k takes in a new snapshot of a 10,000-node queue.
func BenchmarkUpdate10k(b *testing.B) {
	m := bigModel(b, 10000)
	snap := fleet()
	snap.Queues = model.QueuesOf(append(snap.Queues.Slice(), bigQueue("/locks/huge", 10000))...)
	b.ReportAllocs()
	for b.Loop() {
		m = step(m, updateMsg{model.Update{Snapshot: snap}})
	}
}

func TestBigQueueScrolls(t *testing.T) {
	m := bigModel(t, 10000)
	m, _ = press(m, "G")
	if m.queue.Cursor != 9999 {
		t.Fatalf("G: cursor %d", m.queue.Cursor)
	}
	view := ansi.Strip(m.View())
	checkFrame(t, view, 160, 48)
	for _, want := range []string{"10000 9999", "of 10000", "└─▶ watches #9998 ✓ verified"} {
		if !strings.Contains(view, want) {
			t.Errorf("end of big queue lacks %q:\n%s", want, view)
		}
	}
	m, _ = press(m, "g")
	if m.queue.Cursor != 0 || m.queue.Top != 0 {
		t.Fatalf("g: cursor %d top %d", m.queue.Cursor, m.queue.Top)
	}
	// Paging down draws each page whole, from the node under the cursor
	// (a frame's cost is BenchmarkView10k's and BenchmarkViewPage10k's).
	for i := range 20 {
		before := m.queue.Cursor
		m, _ = press(m, "pgdown")
		if m.queue.Cursor <= before {
			t.Fatalf("pgdown %d: cursor %d -> %d", i, before, m.queue.Cursor)
		}
		view := ansi.Strip(m.View())
		checkFrame(t, view, 160, 48)
		if want := fmt.Sprintf("❯  %5d", m.queue.Cursor+1); !strings.Contains(view, want) {
			t.Fatalf("pgdown %d: the cursor's row %q is not drawn:\n%s", i, want, view)
		}
	}
}

// BenchmarkViewPage10k pages through a 10,000-node queue at 160x48, one
// page a frame (what holding pgdown does).
func BenchmarkViewPage10k(b *testing.B) {
	m := bigModel(b, 10000)
	b.ReportAllocs()
	for b.Loop() {
		if m.queue.Cursor == 9999 {
			m, _ = press(m, "g")
		}
		m, _ = press(m, "pgdown")
		_ = m.View()
	}
}

// BenchmarkViewHostile10k draws the end of a 10,000-node queue whose every
// node's data is terminal escapes and invalid UTF-8 (what
// TestConsoleHostileTrees reads from a real server), at 160x48.
func BenchmarkViewHostile10k(b *testing.B) {
	esc := "\x1b]0;pwned\a\x1b]52;c;cm0gLXJmIH4=\a\x1b[2J\x1b[H\x1b[5m\xc2\x9b31m\u202eevil\xff"
	q := bigQueue("/locks/huge", 10000)
	for _, n := range q.Nodes.All() {
		n.SetData([]byte(esc))
		n.DataLen = int32(len(esc))
	}
	snap := fleet()
	snap.Queues = model.QueuesOf(append(snap.Queues.Slice(), q)...)
	m := newTest("dark", 160, 48)
	m = step(m, updateMsg{model.Update{Snapshot: snap}})
	m = selectPath(m, "/locks/huge")
	m, _ = press(m, "tab", "G")
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}
