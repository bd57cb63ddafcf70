package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
)

// TestConsoleZxidWarning: a snapshot whose newest lock node is near the
// rollover puts the warning in the console's first line.
func TestConsoleZxidWarning(t *testing.T) {
	m := newTest("mono", 160, 30)
	if first := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]; strings.Contains(first, "zxid") {
		t.Fatalf("the fleet is far from the rollover: %q", first)
	}
	snap := *fleet()
	snap.Queues = model.QueuesOf(append(snap.Queues.Slice(), model.Queue{Path: "/locks/zz", State: model.PathPresent,
		Nodes: model.NodesOf(model.Node{Name: "lock-0000000001", Czxid: 0x9_f0000000})})...)
	m = step(m, updateMsg{model.Update{Snapshot: &snap}})
	if first := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]; !strings.Contains(first, "zxid counter at 94%") {
		t.Errorf("header %q lacks the zxid warning", first)
	}
}
