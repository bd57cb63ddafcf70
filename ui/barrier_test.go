package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// barrierFleet is the fleet with a single barrier that is set, two
// sessions waiting on it (one named by another recipe), and one that is
// open, as zkview shows paths the context's barriers: names.
func barrierFleet() *model.Snapshot {
	s := *fleet()
	yes, no, two := true, false, 2
	gate := node("start-gate", 0, ordering.KindMutex, ordering.RecipeCurator, ordering.RoleHolder, 0, "", "10.0.0.7", 0)
	gate.SetPart(model.PartBarrier)
	waiter := func(sess int64, identity string) model.Node {
		return model.Node{Kind: ordering.KindMutex, Recipe: ordering.RecipeCurator, Role: ordering.RoleWaiting, Believes: ordering.RoleWaiting,
			Link: model.LinkVerified, Session: sess}.WithWatches("start-gate").WithPart(model.PartWaiter).WithIdentity(identity)
	}
	set := model.Queue{Path: "/jobs/start-gate", State: model.PathPresent, Type: model.TypeBarrier,
		Nodes: model.NodesOf(gate, waiter(0x10000a3f2c0051, ""), waiter(0x10000a3f2c0052, "etl-2"))}.WithRare(model.QueueRare{
		Facts: &model.RecipeFacts{Set: &yes, Waiters: &two},
	})
	open := model.Queue{Path: "/jobs/end-gate", State: model.PathAbsent, Type: model.TypeBarrier}.WithRare(model.QueueRare{
		Facts: &model.RecipeFacts{Set: &no},
	})
	s.Queues = model.QueuesOf(append(s.Queues.Slice(), open, set)...)
	return &s
}

// TestSingleBarrierView: the queue pane heads a single barrier with what
// it states, names its node barrier and its waiters by session (no node
// of their own), and offers no force or revoke on them; an open one says
// so, not "does not exist".
func TestSingleBarrierView(t *testing.T) {
	m := newTest("dark", 160, 48)
	m = step(m, updateMsg{model.Update{Snapshot: barrierFleet()}})
	m = selectPath(m, "/jobs/start-gate")
	view := ansi.Strip(m.View())
	for _, want := range []string{"barrier, set, 2 waiters", "barrier", "waiter", "(watch)", "etl-2", "0x10000a3f2c0051", "└─▶ watches start-gate ✓ verified"} {
		if !strings.Contains(view, want) {
			t.Errorf("barrier view lacks %q:\n%s", want, view)
		}
	}
	if !regexp.MustCompile(`/jobs/start-gate +set`).MatchString(view) {
		t.Errorf("the lock list does not say the barrier is set:\n%s", view)
	}
	if strings.Count(view, "HOLDER") != 1 || strings.Contains(view, "waits; the node it watches is unknown") {
		t.Errorf("barrier view speaks of a lock:\n%s", view)
	}
	m, _ = press(m, "tab")
	for _, row := range []string{"barrier", "waiter"} {
		footer := lastLine(ansi.Strip(m.View()))
		if strings.Contains(footer, "force") || strings.Contains(footer, "revoke") {
			t.Errorf("%s row: footer offers %s", row, footer)
		}
		if m2, cmd := press(m, "f"); m2.dialog != nil || cmd != nil {
			t.Errorf("%s row: f opened a dialog or ran a command", row)
		}
		m, _ = press(m, "down")
	}

	m, _ = press(m, "tab")
	m = selectPath(m, "/jobs/end-gate")
	view = ansi.Strip(m.View())
	if !strings.Contains(view, "Barrier open") || strings.Contains(view, "does not exist") || !regexp.MustCompile(`/jobs/end-gate +open`).MatchString(view) {
		t.Errorf("open barrier view:\n%s", view)
	}
}
