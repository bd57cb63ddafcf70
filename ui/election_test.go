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

// electionFleet is the fleet with a Curator LeaderLatch election and a
// plain ephemeral lock beside the locks.
func electionFleet() *model.Snapshot {
	s := *fleet()
	latch := func(uuid string, seq int32) string { return fmt.Sprintf("_c_%s-latch-%010d", uuid, seq) }
	c, m := ordering.RecipeCurator, ordering.KindMutex
	l5 := latch("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 5)
	l6 := latch("77e1a0c2-9b8d-4e7f-a6b5-c4d3e2f1a0b9", 6)
	election := model.Queue{Path: "/svc/leader", State: model.PathPresent, Type: model.TypeElection,
		Nodes: model.NodesOf(
			node(l5, 5, m, c, ordering.RoleHolder, 0x10000a3f2c0031, "10.0.0.21:5000", "scheduler-a", 3*time.Minute),
			waits(node(l6, 6, m, c, ordering.RoleWaiting, 0x10000a3f2c0032, "10.0.0.22:5000", "scheduler-b", time.Minute), l5, model.LinkVerified),
		)}
	e := ordering.RecipeEphemeral
	holder := node("owner", 0, m, e, ordering.RoleHolder, 0x10000a3f2c0041, "10.0.0.31:5000", "cron-1", 20*time.Second)
	holder.Herd = true
	watcher := func(sess int64) model.Node {
		return model.Node{Kind: m, Recipe: e, Role: ordering.RoleWaiting, Believes: ordering.RoleWaiting,
			Link: model.LinkVerified, Session: sess}.WithWatchesPredecessor("owner", "owner")
	}
	plain := model.Queue{Path: "/cron/owner-lock", State: model.PathPresent, Type: model.TypeMutex,
		Nodes: model.NodesOf(holder, watcher(0x10000a3f2c0042), watcher(0x10000a3f2c0043))}.WithRare(model.QueueRare{
		Warnings: []model.Warning{{Code: model.WarnHerd, Nodes: []string{"owner"}, Message: "plain ephemeral lock: 2 sessions watch owner, a herd by construction"}},
	})
	s.Queues = model.QueuesOf(append([]model.Queue{plain}, s.Queues.Slice()...)...)
	s.Queues = model.QueuesOf(append(s.Queues.Slice(), election)...)
	return &s
}

// TestElectionAndPlainLockViews: an election says leader and follower; a
// plain ephemeral lock shows its watchers by session, with no node, no
// sequence and no action on them.
func TestElectionAndPlainLockViews(t *testing.T) {
	m := newTest("dark", 160, 48)
	m = step(m, updateMsg{model.Update{Snapshot: electionFleet()}})
	m = selectPath(m, "/svc/leader")
	view := ansi.Strip(m.View())
	for _, want := range []string{"election · curator · 2 nodes", "LEADER", "follower", "└─▶ watches #5 ✓ verified"} {
		if !strings.Contains(view, want) {
			t.Errorf("election view lacks %q:\n%s", want, view)
		}
	}
	if strings.Count(view, "HOLDER") != 1 { // the lock list's column title
		t.Errorf("election view says HOLDER:\n%s", view)
	}

	m = selectPath(m, "/cron/owner-lock")
	view = ansi.Strip(m.View())
	for _, want := range []string{"mutex · ephemeral · 3 nodes", "HOLDER", "(watch)", "└─▶ watches owner ✓ verified ! herd on owner", "HERD on owner", "0x10000a3f2c0043"} {
		if !strings.Contains(view, want) {
			t.Errorf("plain lock view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "#0") {
		t.Errorf("plain lock view names its node by a sequence it has not:\n%s", view)
	}
	m, _ = press(m, "tab")
	for _, row := range []string{"holder", "watcher"} {
		footer := lastLine(ansi.Strip(m.View()))
		if strings.Contains(footer, "force") || strings.Contains(footer, "revoke") {
			t.Errorf("%s row: footer offers %s", row, footer)
		}
		m2, cmd := press(m, "f")
		if m2.dialog != nil || cmd != nil {
			t.Errorf("%s row: f opened a dialog or ran a command", row)
		}
		m, _ = press(m, "down")
	}
}
