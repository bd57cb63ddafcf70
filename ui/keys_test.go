package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/locklist"
	"github.com/zklock/zklock/ui/narration"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func visiblePaths(m Console) []string {
	var out []string
	for _, i := range m.list.Visible {
		out = append(out, m.list.Rows[i].Path)
	}
	return out
}

func TestFilter(t *testing.T) {
	m := newTest("dark", 120, 40)
	m, _ = press(m, "/", "ORD")
	if got := visiblePaths(m); len(got) != 1 || got[0] != "/locks/orders" {
		t.Fatalf("filter ORD: visible %v", got)
	}
	if m.queue.Path != "/locks/orders" {
		t.Errorf("queue follows the filtered selection: %q", m.queue.Path)
	}
	// Keys typed into the filter are not commands.
	if m.list.Sort != locklist.SortContention || m.dialog != nil {
		t.Fatal("typing in the filter ran commands")
	}
	m, _ = press(m, "enter")
	if m.list.Filtering || len(m.list.Visible) != 1 {
		t.Fatalf("enter keeps the filter: filtering=%v visible=%d", m.list.Filtering, len(m.list.Visible))
	}
	if !strings.Contains(ansi.Strip(m.View()), " / ORD") {
		t.Error("the kept filter is not shown")
	}
	m, _ = press(m, "esc")
	if len(m.list.Visible) != 7 || m.list.Filter.Value() != "" {
		t.Fatalf("esc clears the filter: %v", visiblePaths(m))
	}
	// A warning code filters too.
	m, _ = press(m, "/", "deadlock", "enter")
	if got := visiblePaths(m); len(got) != 1 || got[0] != "/locks/inventory" {
		t.Fatalf("filter deadlock: %v", got)
	}
}

func TestSortCycle(t *testing.T) {
	m := newTest("dark", 120, 40)
	// Broken queues first, then depth, then the oldest wait.
	want := []string{"/locks/inventory", "/locks/shared-ledger", "/locks/job-a", "/locks/orders", "/locks/reports", "/locks/idle", "/locks/nope"}
	if got := visiblePaths(m); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("contention order:\n got %v\nwant %v", got, want)
	}
	m, _ = press(m, "s")
	// Broken queues first, then those with waiters by the oldest wait,
	// then the longest holds (here the same as by contention).
	want = []string{"/locks/inventory", "/locks/shared-ledger", "/locks/job-a", "/locks/orders", "/locks/reports", "/locks/idle", "/locks/nope"}
	if got := visiblePaths(m); m.list.Sort != locklist.SortStuck || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("stuck-first order:\n got %v\nwant %v", got, want)
	}
	m, _ = press(m, "s")
	want = []string{"/locks/reports", "/locks/orders", "/locks/shared-ledger", "/locks/job-a"}
	if got := visiblePaths(m); m.list.Sort != locklist.SortHold || strings.Join(got[:4], " ") != strings.Join(want, " ") {
		t.Errorf("hold order:\n got %v\nwant %v…", got, want)
	}
	if !strings.Contains(ansi.Strip(m.View()), "sort: hold time") {
		t.Error("sort mode not shown")
	}
	m, _ = press(m, "s")
	want = []string{"/locks/idle", "/locks/inventory", "/locks/job-a", "/locks/nope", "/locks/orders", "/locks/reports", "/locks/shared-ledger"}
	if got := visiblePaths(m); m.list.Sort != locklist.SortName || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("name order:\n got %v\nwant %v", got, want)
	}
	m, _ = press(m, "s")
	if m.list.Sort != locklist.SortContention {
		t.Errorf("sort does not cycle back: %v", m.list.Sort)
	}
}

// runCmd runs a command and any batch inside it, returning the messages.
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, runCmd(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

func actionOf(t *testing.T, cmd tea.Cmd) actionMsg {
	t.Helper()
	for _, msg := range runCmd(cmd) {
		if a, ok := msg.(actionMsg); ok {
			return a
		}
	}
	t.Fatal("no action ran")
	return actionMsg{}
}

func TestForceReleaseNeedsTheSequenceNumber(t *testing.T) {
	fb := &fakeBackend{}
	m := newTest("dark", 160, 48, func(o *Options) { o.Backend = fb })
	m = selectPath(m, "/locks/job-a")
	m, _ = press(m, "tab", "down", "f")
	view := ansi.Strip(m.View())
	for _, want := range []string{
		"FORCE-RELEASE #42",
		"Lock      /locks/job-a",
		"Delete    _c_77e1a0c2-9b8d-4e7f-a6b5-c4d3e2f1a0b9-lock-0000000042",
		"session 0x10000a3f2c0012",
		"10.0.0.13:40112",
		"the holder is not told and may still act",
		"Type the sequence number 42 to confirm",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("force dialog lacks %q:\n%s", want, view)
		}
	}
	// y is not a confirmation, a wrong number is refused, and nothing runs.
	m, cmd := press(m, "y", "enter")
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(actionMsg); ok {
			t.Fatal("force ran on \"y\"")
		}
	}
	m, cmd = press(m, "41", "enter")
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(actionMsg); ok {
			t.Fatal("force ran on the wrong sequence number")
		}
	}
	if m.dialog == nil || !strings.Contains(ansi.Strip(m.View()), `"41" is not 42: nothing deleted`) {
		t.Fatal("wrong number: the dialog should stay open and say so")
	}
	if calls := fb.Calls(); len(calls) != 0 {
		t.Fatalf("backend called: %v", calls)
	}
	m, cmd = press(m, "0000000042", "enter")
	if m.dialog != nil {
		t.Fatal("dialog still open after the right number")
	}
	a := actionOf(t, cmd)
	want := "force /locks/job-a " + curatorName("77e1a0c2-9b8d-4e7f-a6b5-c4d3e2f1a0b9", 42) + " 0x10000a3f2c0012"
	if calls := fb.Calls(); len(calls) != 1 || calls[0] != want {
		t.Fatalf("backend calls %v, want [%s]", calls, want)
	}
	m = step(m, a)
	if !strings.Contains(ansi.Strip(m.View()), "force-release #42 on /locks/job-a: done") {
		t.Error("outcome not shown")
	}
	// esc cancels without a call.
	m, _ = press(m, "f", "42", "esc")
	if m.dialog != nil || len(fb.Calls()) != 1 {
		t.Fatal("esc did not cancel")
	}
}

func TestReadOnlyHidesActions(t *testing.T) {
	fb := &fakeBackend{}
	m := newTest("dark", 160, 48, func(o *Options) { o.ReadOnly = true; o.Backend = fb })
	m = step(m, ownMsg{[]OwnLock{{Path: "/locks/job-a", State: OwnHolding, Since: ago(time.Minute)}}})
	m = selectPath(m, "/locks/job-a")
	m, _ = press(m, "tab")
	footer := lastLine(ansi.Strip(m.View()))
	for _, hidden := range []string{"take", "release", "revoke", "force"} {
		if strings.Contains(footer, hidden) {
			t.Errorf("read-only footer shows %q: %s", hidden, footer)
		}
	}
	for _, k := range []string{"t", "r", "R", "f"} {
		var cmd tea.Cmd
		m, cmd = press(m, k)
		if m.dialog != nil || cmd != nil {
			t.Fatalf("read-only: %q opened a dialog or ran a command", k)
		}
	}
	m, _ = press(m, "?")
	help := ansi.Strip(m.View())
	for _, hidden := range []string{"t take", "release mine", "R revoke", "force-release"} {
		if strings.Contains(help, hidden) {
			t.Errorf("read-only help shows %q", hidden)
		}
	}
	if len(fb.Calls()) != 0 {
		t.Fatalf("backend called: %v", fb.Calls())
	}
	// The same screen with actions allowed shows them.
	m = selectPath(newTest("dark", 160, 48), "/locks/job-a")
	m, _ = press(m, "tab")
	footer = lastLine(ansi.Strip(m.View()))
	for _, shown := range []string{"revoke", "force"} {
		if !strings.Contains(footer, shown) {
			t.Errorf("footer lacks %q: %s", shown, footer)
		}
	}
}

func lastLine(s string) string { return s[strings.LastIndex(s, "\n")+1:] }

func TestQuitWhileHoldingAsks(t *testing.T) {
	m := newTest("dark", 120, 40)
	_, cmd := press(m, "q")
	if !isQuit(cmd) {
		t.Fatal("q without locks should quit at once")
	}
	m = step(m, ownMsg{[]OwnLock{{Path: "/locks/job-a", State: OwnHolding, Since: ago(time.Minute)}}})
	m, cmd = press(m, "q")
	if isQuit(cmd) || m.dialog == nil {
		t.Fatal("q while holding must ask first")
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "Quitting releases it first") {
		t.Errorf("quit dialog:\n%s", view)
	}
	m, cmd = press(m, "n")
	if isQuit(cmd) || m.dialog != nil {
		t.Fatal("n should stay")
	}
	m, _ = press(m, "q")
	_, cmd = press(m, "y")
	if !isQuit(cmd) {
		t.Fatal("y should quit")
	}
}

func isQuit(cmd tea.Cmd) bool {
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			return true
		}
	}
	return false
}

func TestTakeAsksReadOrWriteOnRWQueues(t *testing.T) {
	fb := &fakeBackend{}
	m := newTest("dark", 120, 40, func(o *Options) { o.Backend = fb })
	m = selectPath(m, "/locks/job-a")
	_, cmd := press(m, "t")
	actionOf(t, cmd)
	m = selectPath(m, "/locks/orders")
	m, cmd = press(m, "t")
	if m.dialog == nil || cmd != nil {
		t.Fatal("t on a read/write queue should ask")
	}
	if !strings.Contains(ansi.Strip(m.View()), "read lock (shared) or a write lock") {
		t.Error("take dialog text missing")
	}
	m, cmd = press(m, "w")
	actionOf(t, cmd)
	want := []string{"take /locks/job-a mutex", "take /locks/orders write"}
	if got := fb.Calls(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("calls %v, want %v", got, want)
	}
	// Queued on a path: t no longer applies there.
	m = step(m, ownMsg{[]OwnLock{{Path: "/locks/orders", State: OwnQueued, Position: 5}}})
	if _, cmd = press(m, "t"); cmd != nil {
		t.Fatal("t while already queued ran something")
	}
}

func TestReleaseAndRevoke(t *testing.T) {
	fb := &fakeBackend{}
	m := newTest("dark", 120, 40, func(o *Options) { o.Backend = fb })
	m = step(m, ownMsg{[]OwnLock{{Path: "/locks/orders", State: OwnHolding}}})
	m = selectPath(m, "/locks/job-a")
	m, cmd := press(m, "r") // the only own lock, though another is selected
	m = step(m, actionOf(t, cmd))
	if len(m.own) != 0 {
		t.Errorf("own locks after release: %v", m.OwnLocks())
	}
	m, _ = press(m, "tab", "down", "R") // #42 is a waiter: revoke does not apply
	if m.dialog != nil {
		t.Fatal("revoke offered for a waiter")
	}
	m, _ = press(m, "up", "R")
	if m.dialog == nil || !strings.Contains(ansi.Strip(m.View()), "__REVOKE__") {
		t.Fatal("revoke should explain and ask")
	}
	_, cmd = press(m, "y")
	actionOf(t, cmd)
	want := []string{"release /locks/orders", "revoke /locks/job-a " + curatorName("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 41)}
	if got := fb.Calls(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("calls %v, want %v", got, want)
	}
}

// TestActionErrorShown: a failed action's cause is said once, in the
// operator's words, without a package's name or the action and node
// said again, whatever the lock core wrapped (errors.Is still tells it).
func TestActionErrorShown(t *testing.T) {
	n41 := "/locks/job-a/" + curatorName("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 41)
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("force-release %s: %w", n41, ordering.ErrNoNode), "force-release #41 on /locks/job-a: already gone (released, or its session ended): nothing done"},
		{fmt.Errorf("force-release: %w", fmt.Errorf("%w: %s", ordering.ErrNoNode, n41)), "force-release #41 on /locks/job-a: already gone"},
		{fmt.Errorf("force-release %s: %w: owned by session 0x99, not 0x10000a3f2c0011", n41, ordering.ErrOwnerChanged), "force-release #41 on /locks/job-a: nothing deleted: another session owns it now (owned by session 0x99, not 0x10000a3f2c0011)"},
		{errString("force-release " + n41 + ": lockops: the ensemble said no: quota exceeded"), "force-release #41 on /locks/job-a: the ensemble said no: quota exceeded"},
	} {
		fb := &fakeBackend{err: c.err}
		m := newTest("dark", 160, 48, func(o *Options) { o.Backend = fb })
		m = selectPath(m, "/locks/job-a")
		m, cmd := press(m, "tab", "f", "41", "enter")
		m = step(m, actionOf(t, cmd))
		lines := strings.Split(ansi.Strip(m.View()), "\n")
		status := lines[len(lines)-2]
		if !strings.Contains(status, c.want) || strings.Count(status, "force-release") != 1 || strings.Count(status, "#41") != 1 || strings.Contains(status, "lockops") {
			t.Errorf("%v: status bar\n%s\nwant %q, the action and node once, no package name", c.err, status, c.want)
		}
		if log := m.log.At(len(m.log.Ring) - 1).Text; strings.Count(log, "#41") != 1 || strings.Count(log, "force-release") != 1 {
			t.Errorf("%v: log %q names the action or node twice", c.err, log)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestMouseWheelScrollsFocusedPane(t *testing.T) {
	m := selectPath(newTest("dark", 160, 48), "/locks/job-a")
	m, _ = press(m, "tab")
	m = step(m, tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if m.queue.Cursor != 3 {
		t.Errorf("wheel down in the queue: cursor %d, want 3", m.queue.Cursor)
	}
	m = step(m, tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if m.queue.Cursor != 0 {
		t.Errorf("wheel up: cursor %d, want 0", m.queue.Cursor)
	}
	if m.list.Selected != "/locks/job-a" {
		t.Error("the wheel moved the unfocused list")
	}
}

func TestPumpsCoalesce(t *testing.T) {
	ch := make(chan model.Update, 4)
	s1, s2 := fleet(), fleet()
	ch <- model.Update{Snapshot: s1, Changes: []model.Change{{Kind: model.ChangeInfo, Note: "a"}}}
	ch <- model.Update{Snapshot: s2, Changes: []model.Change{{Kind: model.ChangeInfo, Note: "b"}}, Dropped: 2}
	msg := waitUpdate(ch)().(updateMsg)
	if msg.Snapshot != s2 || len(msg.Changes) != 2 || msg.Changes[1].Text() != "b" || msg.Dropped != 2 {
		t.Fatalf("coalesced update: %+v", msg.Update)
	}
	close(ch)
	if _, ok := waitUpdate(ch)().(updatesClosedMsg); !ok {
		t.Fatal("closed channel not reported")
	}
	own := make(chan OwnLock, 3)
	own <- OwnLock{Path: "/a", State: OwnQueued}
	own <- OwnLock{Path: "/a", State: OwnHolding}
	if got := waitOwn(own)().(ownMsg); len(got.locks) != 2 || got.locks[1].State != OwnHolding {
		t.Fatalf("own: %+v", got)
	}
}

func TestTickMovesClockNotView(t *testing.T) {
	m := selectPath(newTest("dark", 160, 48), "/locks/job-a")
	a := m.View()
	if a != m.View() {
		t.Fatal("View is not pure")
	}
	m = step(m, tickMsg(t0.Add(time.Minute)))
	if !strings.Contains(ansi.Strip(m.View()), "3m13s") {
		t.Error("hold time did not advance with the tick")
	}
}

func TestNarration(t *testing.T) {
	m := newTest("dark", 120, 40, func(o *Options) { o.Narration = true })
	want := "#44 created its ephemeral sequential node and listed the children of /locks/job-a: it is not the lowest, so it sets a watch on #43 and waits."
	if m.narration.Text != want {
		t.Errorf("narration %q, want %q", m.narration.Text, want)
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "▸ narration #44 created its ephemeral sequential node") {
		t.Errorf("narration not shown:\n%s", view)
	}
	m, _ = press(m, "n")
	if strings.Contains(ansi.Strip(m.View()), "narration") {
		t.Error("n did not hide the narration")
	}

	// A handoff says what the console saw, not a listing it cannot see.
	ev := model.Change{Kind: model.ChangeAcquired, Path: "/locks/job-a", Node: model.Node{Name: "_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000044"}}
	want = "#44 was notified: no node it must wait for is left in /locks/job-a, so it holds the lock (the recipe re-checks by listing the children again)."
	if got := narration.Narrate(ev, nil, nil); got != want {
		t.Errorf("handoff narration %q, want %q", got, want)
	}
}

func TestHerdMarked(t *testing.T) {
	snap := fleet()
	for i := range snap.Queues.Len() {
		if snap.Queues.At(i).Path == "/locks/job-a" {
			snap.Queues.At(i).Nodes.At(0).Herd = true
			snap.Queues.At(i).SetWarnings([]model.Warning{{Code: model.WarnHerd, Message: "3 sessions watch 0000000041", Nodes: []string{snap.Queues.At(i).Nodes.At(0).Name}}})
		}
	}
	m := newTest("dark", 160, 48)
	m = step(m, updateMsg{model.Update{Snapshot: snap}})
	m = selectPath(m, "/locks/job-a")
	view := ansi.Strip(m.View())
	for _, want := range []string{"! HERD on #41: 3 sessions watch 0000000041", "└─▶ watches #41 ✓ verified ! herd on #41"} {
		if !strings.Contains(view, want) {
			t.Errorf("herd view lacks %q:\n%s", want, view)
		}
	}
}

func TestEventLogScroll(t *testing.T) {
	m := newTest("dark", 120, 24)
	for i := range 20 {
		m = step(m, updateMsg{model.Update{Changes: []model.Change{{At: t0, Kind: model.ChangeInfo, Note: fmt.Sprintf("event-%02d", i)}}}})
	}
	m, _ = press(m, "tab", "tab") // focus the log
	if v := ansi.Strip(m.View()); !strings.Contains(v, "event-19") {
		t.Fatal("the log does not follow the newest event")
	}
	m, _ = press(m, "up", "up", "up")
	v := ansi.Strip(m.View())
	if strings.Contains(v, "event-19") || !strings.Contains(v, "event-16") || !strings.Contains(v, "3 newer below") {
		t.Fatalf("up does not scroll back:\n%s", v)
	}
	m, _ = press(m, "down", "down", "down")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "event-19") {
		t.Fatal("down does not come back to the newest")
	}
}

func TestFirstFrameBeforeAnySnapshot(t *testing.T) {
	m := New(Options{Theme: mustTheme("dark"), Paths: []string{"/locks/a", "/locks/b"}, Now: func() time.Time { return t0 }})
	if m.View() != "" {
		t.Fatal("a view before the size is known")
	}
	m = step(m, sizeMsg(80, 24))
	v := ansi.Strip(m.View())
	checkFrame(t, v, 80, 24)
	for _, want := range []string{"◌ connecting…", "Reading /locks/a", "Read-only"} {
		if !strings.Contains(v, want) {
			t.Errorf("first frame lacks %q:\n%s", want, v)
		}
	}
}

// TestQuitWhileTakeInFlightAsks: the take's node may exist before the
// lock core reports it, so q between the two still asks; once the take
// has failed, q quits at once.
func TestQuitWhileTakeInFlightAsks(t *testing.T) {
	fb := &fakeBackend{}
	m := newTest("dark", 120, 40, func(o *Options) { o.Backend = fb })
	m = selectPath(m, "/locks/job-a")
	m, cmd := press(m, "t")
	if cmd == nil {
		t.Fatal("t sent no take")
	}
	m, cmd = press(m, "q")
	if isQuit(cmd) || m.dialog == nil {
		t.Fatal("q with a take in flight must ask first")
	}
	if view := ansi.Strip(m.View()); !strings.Contains(view, "/locks/job-a") {
		t.Errorf("quit dialog does not name the lock:\n%s", view)
	}
	m, _ = press(m, "n")
	m = step(m, actionMsg{verb: "take", path: "/locks/job-a", err: errString("refused")})
	_, cmd = press(m, "q")
	if !isQuit(cmd) {
		t.Fatal("q after the take failed should quit at once")
	}
}
