package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
)

// TestConsoleDiscovery: while a root's first read fills in, the header
// says how far it has come from the snapshot itself
// (Snapshot.Discovery), and says nothing of it once the picture is whole.
func TestConsoleDiscovery(t *testing.T) {
	const want = "discovering /locks: 41,203 of 98,000 read"
	for _, width := range []int{160, 100} {
		m := newTest("mono", width, 30)
		snap := *fleet()
		snap.Unread = 56797
		snap.Discovery = []model.Discovery{{Root: "/locks", Read: 41203, Found: 98000, Parents: 9800, Took: 12 * time.Second}}
		m = step(m, updateMsg{model.Update{Snapshot: &snap}})
		first := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]
		if !strings.Contains(first, want) {
			t.Errorf("width %d: header %q lacks %q", width, first, want)
		}
		done := *fleet()
		m = step(m, updateMsg{model.Update{Snapshot: &done}})
		if first := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]; strings.Contains(first, "discovering") {
			t.Errorf("width %d: the picture is whole, yet the header says %q", width, first)
		}
	}
}
