package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/narration"
)

// without is the fleet at at with the nodes named gone from path's queue
// and the next node by sequence holding.
func without(at time.Time, path string, gone ...string) *model.Snapshot {
	s := fleet()
	s.At = at
	qs := s.Queues.Slice()
	for i, q := range qs {
		if q.Path != path {
			continue
		}
		nodes := slices.DeleteFunc(q.Nodes.Slice(), func(n model.Node) bool { return slices.Contains(gone, n.Name) })
		if len(nodes) > 0 {
			nodes[0].Role, nodes[0].Believes = ordering.RoleHolder, ordering.RoleHolder
			nodes[0].SetWatches("")
			nodes[0].SetSince(at)
		}
		q.Nodes = model.NodesOf(nodes...)
		qs[i] = q
	}
	s.Queues = model.QueuesOf(qs...)
	return s
}

// TestForceDialogFollowsNode: the force dialog's role and hold time
// follow the clock; once its node is gone it says so and refuses, and
// no typed number sends anything.
func TestForceDialogFollowsNode(t *testing.T) {
	fb := &fakeBackend{}
	m := selectPath(newTest("mono", 160, 48, func(o *Options) { o.Backend = fb }), "/locks/job-a")
	m, _ = press(m, "tab", "f")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "HOLDER for 2m13s") {
		t.Fatalf("force dialog on the holder:\n%s", v)
	}
	m = step(m, tickMsg(t0.Add(8*time.Second)))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "HOLDER for 2m21s") {
		t.Errorf("the hold time stood still 8s later:\n%s", v)
	}
	n41 := curatorName("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 41)
	m = step(m, updateMsg{model.Update{Snapshot: without(t0.Add(9*time.Second), "/locks/job-a", n41)}})
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "#41 is already gone") || strings.Contains(v, "Type the sequence number") || strings.Contains(v, "Delete    ") {
		t.Fatalf("the dialog still offers to delete a node that is gone:\n%s", v)
	}
	m, cmd := press(m, "41", "enter")
	if m.dialog != nil {
		t.Error("enter does not close the refusal")
	}
	if msgs := runCmd(cmd); len(msgs) != 0 || len(fb.Calls()) != 0 {
		t.Errorf("a gone node's dialog sent %v, calls %v", msgs, fb.Calls())
	}
}

// TestDetailsAgeFollowsClock: the node details popup ages with the
// clock, and takes in the node's new role.
func TestDetailsAgeFollowsClock(t *testing.T) {
	m := selectPath(newTest("mono", 160, 48), "/locks/job-a")
	m, _ = press(m, "tab", "down", "enter")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "(1m02s ago)") {
		t.Fatalf("details of #42:\n%s", v)
	}
	m = step(m, tickMsg(t0.Add(8*time.Second)))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "(1m10s ago)") {
		t.Errorf("the age stood still 8s later:\n%s", v)
	}
	n41 := curatorName("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 41)
	m = step(m, updateMsg{model.Update{Snapshot: without(t0.Add(9*time.Second), "/locks/job-a", n41)}})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "holder by sequence; believes holder") {
		t.Errorf("#42 holds now, the popup says otherwise:\n%s", v)
	}
}

// TestForceRefusedReadOnly: a force dialog confirmed in a read-only
// console (opened before it turned read-only) calls nothing.
func TestForceRefusedReadOnly(t *testing.T) {
	fb := &fakeBackend{}
	m := selectPath(newTest("mono", 160, 48, func(o *Options) { o.Backend = fb; o.ReadOnly = true }), "/locks/job-a")
	m.focus = focusQueue
	m.dialog = newForceDialog(m.queue.Path, m.queue.Node(), m.now)
	m, cmd := press(m, "41", "enter")
	runCmd(cmd)
	if calls := fb.Calls(); len(calls) != 0 {
		t.Fatalf("read-only console called %v", calls)
	}
	if !m.notice.failed || !strings.Contains(m.notice.text, "read-only") {
		t.Errorf("notice %+v", m.notice)
	}
}

// statusOf is the status bar of m's screen (above the footer).
func statusOf(m Console) string { return statusLine(ansi.Strip(m.View())) }

// TestStatusBarFromSnapshot: the status bar says the own waiter's place
// and the node it watches as the queue drawn has them, not as the lock
// core last re-checked; a take's "queued" gives way to the lock core's
// next word.
func TestStatusBarFromSnapshot(t *testing.T) {
	n41 := curatorName("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 41)
	n42 := curatorName("77e1a0c2-9b8d-4e7f-a6b5-c4d3e2f1a0b9", 42)
	n43 := curatorName("0b5c8d2e-1f3a-4b6c-9d8e-7f6a5b4c3d2e", 43)
	n44 := curatorName("c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e6f", 44)
	m := selectPath(newTest("mono", 160, 48), "/locks/job-a")
	m, _ = press(m, "t")
	m = step(m, actionMsg{verb: "take", path: "/locks/job-a", at: t0})
	if s := statusOf(m); !strings.Contains(s, "take /locks/job-a: queued") {
		t.Errorf("the take's answer is not said: %s", s)
	}
	// The lock core's report is older than the snapshot: it listed the
	// queue when two more nodes stood before it.
	m = step(m, ownMsg{[]OwnLock{{Path: "/locks/job-a", Node: n44, State: OwnQueued, Position: 6, Watching: n42, Since: t0}}})
	if s := statusOf(m); !strings.Contains(s, "waiting at 4 watching #43") || strings.Contains(s, "queued") {
		t.Errorf("status bar %q, want the snapshot's place (4, watching #43) and no old notice", s)
	}
	// #42 and #43 leave; the lock core, watching #43, has not re-checked.
	s := without(t0.Add(time.Second), "/locks/job-a", n42, n43)
	qs := s.Queues.Slice()
	for i, q := range qs {
		if q.Path == "/locks/job-a" {
			nodes := q.Nodes.Slice()
			nodes[1].SetWatches(n41)
			q.Nodes = model.NodesOf(nodes...)
			qs[i] = q
		}
	}
	s.Queues = model.QueuesOf(qs...)
	m = step(m, updateMsg{model.Update{Snapshot: s}})
	if st := statusOf(m); !strings.Contains(st, "waiting at 2 watching #41") {
		t.Errorf("status bar %q, want waiting at 2 watching #41", st)
	}
	m = step(m, ownMsg{[]OwnLock{{Path: "/locks/job-a", Node: n44, State: OwnHolding, Since: t0.Add(2 * time.Second)}}})
	if st := statusOf(m); !strings.Contains(st, "HOLDING since") || strings.Contains(st, "queued") || strings.Contains(st, "waiting") {
		t.Errorf("status bar %q after HOLDING", st)
	}
}

// TestNarrationSplitHolder: a Kazoo node joining under a Curator holder
// believes it holds; the narration says so, never that it waits.
func TestNarrationSplitHolder(t *testing.T) {
	c := newChurn(1, "/locks/shared")
	c.join("/locks/shared", "curator", 0)
	mid := c.update()
	k := c.join("/locks/shared", "kazoo", 0)
	after := c.update()
	if n := narration.FindNode(after.Snapshot, "/locks/shared", k); n == nil || n.Believes != ordering.RoleHolder || n.Role == ordering.RoleHolder {
		t.Fatalf("fixture: the kazoo node is %+v, want a waiter by sequence that believes it holds", n)
	}
	var said string
	for _, e := range after.Changes {
		if e.Kind == model.ChangeJoined && e.Node.Name == k {
			said = narration.Narrate(e, mid.Snapshot, after.Snapshot)
		}
	}
	if !strings.Contains(said, "believes it holds") || strings.Contains(said, "waits") {
		t.Errorf("narration of the split holder: %q", said)
	}
}

// TestHeaderSaysEachOnce: a one-server ensemble is named once (the
// state says "connected to" it), and the watches' verify time is never
// ahead of the clock beside it.
func TestHeaderSaysEachOnce(t *testing.T) {
	s := fleet()
	s.Conn.Ensemble, s.Conn.Server = []string{"127.0.0.1:2181"}, "127.0.0.1:2181"
	s.ServerViewAt = t0.Add(1500 * time.Millisecond) // the poll's time, the servers'
	m := step(newTest("mono", 160, 48), updateMsg{model.Update{Snapshot: s}})
	head := headerLine(m)
	if n := strings.Count(head, "127.0.0.1:2181"); n != 1 {
		t.Errorf("the server is named %d times: %q", n, head)
	}
	if strings.Contains(head, "03:12:05") || !strings.Contains(head, "watches verified 03:12:04") {
		t.Errorf("a time ahead of the clock (03:12:04): %q", head)
	}
	// A snapshot published between two ticks moves the clock to its time:
	// nothing drawn from it is later than the clock.
	s2 := *s
	s2.At, s2.ServerViewAt = t0.Add(2500*time.Millisecond), t0.Add(2*time.Second)
	m = step(m, updateMsg{model.Update{Snapshot: &s2}})
	if head := headerLine(m); !strings.HasSuffix(head, "watches verified 03:12:06  03:12:06 ") {
		t.Errorf("header %q, want the snapshot's time on the clock", head)
	}
}

// TestEnterIntoQueueSaysSo: enter in the lock list moves into the queue
// drawn beside it and says so (the queue was on screen already); the
// next enter opens the node's details.
func TestEnterIntoQueueSaysSo(t *testing.T) {
	m := selectPath(newTest("mono", 160, 48), "/locks/job-a")
	m, _ = press(m, "enter")
	if s := statusOf(m); m.focus != focusQueue || !strings.Contains(s, "in the queue of /locks/job-a") {
		t.Errorf("after enter in the list: focus %v, status %q", m.focus, s)
	}
	if f := lastLine(ansi.Strip(m.View())); !strings.Contains(f, "enter node details") {
		t.Errorf("footer %q does not offer the details", f)
	}
	m, _ = press(m, "enter")
	if _, ok := m.dialog.(*detailsDialog); !ok {
		t.Errorf("the second enter opened %T", m.dialog)
	}
}

// TestRevokeAndSessionDialogsFollow: the revoke question and the
// session force-release follow their nodes: a node gone is dropped or
// said gone, and what is gone is never sent.
func TestRevokeAndSessionDialogsFollow(t *testing.T) {
	fb := &fakeBackend{}
	m := selectPath(newTest("mono", 160, 48, func(o *Options) { o.Backend = fb }), "/locks/job-a")
	m, _ = press(m, "tab", "R")
	n41 := curatorName("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 41)
	m = step(m, updateMsg{model.Update{Snapshot: without(t0.Add(time.Second), "/locks/job-a", n41)}})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "#41 is already gone") {
		t.Fatalf("the revoke question still stands for a node gone:\n%s", v)
	}
	m, cmd := press(m, "y")
	if runCmd(cmd) != nil || len(fb.Calls()) != 0 || m.dialog == nil {
		t.Fatalf("y on a gone node: calls %v, dialog %T", fb.Calls(), m.dialog)
	}

	m = withDeadlock(newTest("mono", 160, 48, func(o *Options) { o.Backend = fb }))
	m, _ = press(m, "w")
	m = selectSession(t, m, payOne)
	m, _ = press(m, "f")
	s := deadlockFleet()
	qs := s.Queues.Slice()
	for i, q := range qs {
		if q.Path == "/locks/pay-b" {
			q.Nodes = model.NodesOf(slices.DeleteFunc(q.Nodes.Slice(), func(n model.Node) bool { return n.Session == payOne })...)
			qs[i] = q
		}
	}
	s.Queues = model.QueuesOf(qs...)
	m = step(m, updateMsg{model.Update{Snapshot: s}})
	v := ansi.Strip(m.View())
	if strings.Contains(v, "/locks/pay-b #8") || !strings.Contains(v, "/locks/pay-a #3 (HOLDER)") || !strings.Contains(v, "1 node already gone") {
		t.Fatalf("the session dialog after #8 went:\n%s", v)
	}
	m, cmd = press(m, "0001", "enter")
	for _, msg := range runAll(cmd) {
		if a, ok := msg.(actionMsg); ok {
			m = step(m, a)
		}
	}
	if calls := fb.Calls(); len(calls) != 1 || !strings.Contains(calls[0], "/locks/pay-a") {
		t.Errorf("calls %v, want the one node left", calls)
	}
}

// TestDemoErrorNamesNoPackage: a presenter's key that fails says why
// once, without the demo package's name.
func TestDemoErrorNamesNoPackage(t *testing.T) {
	m := newTest("mono", 160, 48)
	err := fmt.Errorf("split /demo/locks/reports: %w", errors.New("demo: a split is already running"))
	m = step(m, demoMsg{verb: "split", path: "/demo/locks/reports", err: err})
	if s := statusOf(m); !strings.Contains(s, "split: a split is already running") || strings.Contains(s, "demo:") || strings.Count(s, "split") != 2 {
		t.Errorf("status bar %q", s)
	}
}
