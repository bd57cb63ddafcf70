package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
)

// TestSilentHolderRow: a holder whose member has not heard it for more
// than half its timeout gets a second line saying so and when it will
// expire; a healthy holder's row stays one line.
func TestSilentHolderRow(t *testing.T) {
	for _, tt := range []struct {
		name   string
		heard  time.Duration // before t0
		want   string
		absent bool
	}{
		{"silent", 14 * time.Second, "silent 14s · expires ≤16s", false},
		{"healthy", 2 * time.Second, "silent", true},
	} {
		snap := fleet()
		qs := snap.Queues.Slice()
		for i := range qs {
			if qs[i].Path != "/locks/job-a" {
				continue
			}
			nodes := qs[i].Nodes.Slice()
			nodes[0].SetHealth(model.Health{Member: "zk2:2181", Heard: t0.Add(-tt.heard), Timeout: 20 * time.Second,
				Expires: t0.Add(15500 * time.Millisecond), At: t0})
			qs[i].Nodes = model.NodesOf(nodes...)
		}
		snap.Queues = model.QueuesOf(qs...)
		m := newTest("dark", 160, 48)
		m = step(m, updateMsg{model.Update{Snapshot: snap}})
		m = selectPath(m, "/locks/job-a")
		view := ansi.Strip(m.View())
		if strings.Contains(view, tt.want) == tt.absent {
			t.Errorf("%s: %q in the view: %v, want %v\n%s", tt.name, tt.want, tt.absent, !tt.absent, view)
		}
	}
}
