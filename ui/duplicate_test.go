package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
)

// TestDuplicateParticipantBanner: an election whose participant has
// nodes from two sessions says so above its queue, by sequence number.
func TestDuplicateParticipantBanner(t *testing.T) {
	snap := electionFleet()
	for i := range snap.Queues.Len() {
		q := snap.Queues.At(i)
		if q.Path == "/svc/leader" {
			q.SetWarnings([]model.Warning{{Code: model.WarnDuplicateParticipant, Nodes: []string{q.Nodes.At(0).Name, q.Nodes.At(1).Name},
				Message: `participant "scheduler-a" has 2 nodes from 2 sessions`}})
		}
	}
	m := newTest("dark", 160, 48)
	m = step(m, updateMsg{model.Update{Snapshot: snap}})
	m = selectPath(m, "/svc/leader")
	if view := ansi.Strip(m.View()); !strings.Contains(view, "DUPLICATE PARTICIPANT: #5, #6") {
		t.Errorf("election view lacks the duplicate-participant banner:\n%s", view)
	}
}
