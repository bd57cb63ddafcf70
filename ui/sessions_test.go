package ui

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// Two payment jobs, each holding one lock and waiting on the other's.
const (
	payOne = int64(0x60000a1b2c0001)
	payTwo = int64(0x60000a1b2c0002)
)

// deadlockFleet is the fleet plus a cross-lock deadlock over
// /locks/pay-a and /locks/pay-b, its cycle found as a Watcher would.
func deadlockFleet() *model.Snapshot {
	c, mu := ordering.RecipeCurator, ordering.KindMutex
	a1 := curatorName("5a5b5c5d-0001-4e4f-8a8b-9c9d0e0f1a1b", 3)
	a2 := curatorName("5a5b5c5d-0002-4e4f-8a8b-9c9d0e0f1a1b", 4)
	b1 := curatorName("6a6b6c6d-0001-4e4f-8a8b-9c9d0e0f1a1b", 7)
	b2 := curatorName("6a6b6c6d-0002-4e4f-8a8b-9c9d0e0f1a1b", 8)
	payA := model.Queue{Path: "/locks/pay-a", State: model.PathPresent, Type: model.TypeMutex, Nodes: model.NodesOf(
		node(a1, 3, mu, c, ordering.RoleHolder, payOne, "10.0.4.1:41000", "payments-1", 20*time.Second),
		waits(node(a2, 4, mu, c, ordering.RoleWaiting, payTwo, "10.0.4.2:41000", "payments-2", 12*time.Second), a1, model.LinkVerified),
	)}
	payB := model.Queue{Path: "/locks/pay-b", State: model.PathPresent, Type: model.TypeMutex, Nodes: model.NodesOf(
		node(b1, 7, mu, c, ordering.RoleHolder, payTwo, "10.0.4.2:41000", "payments-2", 15*time.Second),
		waits(node(b2, 8, mu, c, ordering.RoleWaiting, payOne, "10.0.4.1:41000", "payments-1", 14*time.Second), b1, model.LinkVerified),
	)}
	s := fleet()
	qs := append(s.Queues.Slice(), payA, payB)
	slices.SortFunc(qs, func(a, b model.Queue) int { return strings.Compare(a.Path, b.Path) })
	s.Queues = model.QueuesOf(qs...)
	s.Deadlocks = sessions.FindDeadlocks(s.Queues, s.At)
	return s
}

func withDeadlock(m Console) Console {
	return step(m, updateMsg{model.Update{Snapshot: deadlockFleet()}})
}

// selectSession puts the pane's cursor on session id.
func selectSession(t *testing.T, m Console, id int64) Console {
	t.Helper()
	for i := range m.sessions.Count() {
		if s := m.sessions.Sessions; i >= len(s.Deadlocks) && s.List[i-len(s.Deadlocks)].Session == id {
			m.sessions.Cursor = i
			m.sessions.Clamp()
			return m
		}
	}
	t.Fatalf("session %#x not in the pane", id)
	return m
}

var sessionScenarios = []struct {
	name  string
	setup func(*testing.T, Console) Console
}{
	// The main view says a cross-lock deadlock exists.
	{"sessions-banner", func(_ *testing.T, m Console) Console { return selectPath(withDeadlock(m), "/locks/pay-a") }},
	// The pane, its first row (the deadlock) spelled out below.
	{"sessions-deadlock", func(_ *testing.T, m Console) Console {
		m, _ = press(withDeadlock(m), "w")
		return m
	}},
	// The root blocker selected.
	{"sessions-root-blocker", func(_ *testing.T, m Console) Console {
		m, _ = press(withDeadlock(m), "w", "down")
		return m
	}},
	// A session marked in every queue, back in the main view.
	{"sessions-marked", func(t *testing.T, m Console) Console {
		m, _ = press(withDeadlock(m), "w")
		m = selectSession(t, m, payOne)
		m, _ = press(m, "enter")
		return m
	}},
	{"sessions-force-dialog", func(t *testing.T, m Console) Console {
		m, _ = press(withDeadlock(m), "w")
		m = selectSession(t, m, payOne)
		m, _ = press(m, "f", "00")
		return m
	}},
}

// TestSessionsGolden draws the sessions pane and what leads to it, every
// scenario in every theme at 80x24 and 160x48.
func TestSessionsGolden(t *testing.T) {
	for _, sc := range sessionScenarios {
		for _, sz := range sizes {
			name := fmt.Sprintf("%s-%dx%d", sc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				layoutGolden(t, name, sz[0], sz[1], func(theme string) Console { return sc.setup(t, newTest(theme, sz[0], sz[1])) })
			})
		}
	}
}

func TestSessionsPaneResizeKeepsFrame(t *testing.T) {
	for _, sc := range sessionScenarios {
		m := sc.setup(t, newTest("dark", 80, 24))
		for _, w := range []int{60, 70, 80, 99, 120, 160, 250} {
			for _, h := range []int{16, 20, 24, 30, 40, 60} {
				m = step(m, sizeMsg(w, h))
				checkFrame(t, ansi.Strip(m.View()), w, h)
			}
		}
	}
}

func TestSessionsPaneTable(t *testing.T) {
	m, _ := press(withDeadlock(newTest("dark", 160, 48)), "w")
	view := ansi.Strip(m.View())
	for _, want := range []string{
		"Sessions · 17 sessions · 1 cycle",
		"‼ DEADLOCK 0x60000a1b2c0001 → 0x60000a1b2c0002 → 0x60000a1b2c0001 on /locks/pay-b, /locks/pay-a · no handoff for 12s",
		"SESSION", "CLIENT", "BLOCKS", "DIRECT", "OLDEST", "HOLDS", "WAITS ON",
		"CROSS-LOCK DEADLOCK",
		"0x60000a1b2c0001 (10.0.4.1:41000) holds /locks/pay-a #3; waits on /locks/pay-b #8",
		"A session is not a thread",
		"w locks",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("pane lacks %q:\n%s", want, view)
		}
	}
	// The root blocker is the first session: the holder of /locks/job-a,
	// three waiters behind it.
	s := m.sessions.Sessions.List[0]
	if s.Session != 0x10000a3f2c0011 || s.Blocks != 3 || s.BlocksDirect != 3 {
		t.Errorf("root blocker %+v", s)
	}
	// w goes back; the banner is in the main view only.
	m, _ = press(m, "w")
	if m.view != viewMain || !strings.Contains(ansi.Strip(m.View()), "‼ CROSS-LOCK DEADLOCK 12s: 0x60000a1b2c0001 ⇄ 0x60000a1b2c0002 on /locks/pay-b, /locks/pay-a") {
		t.Errorf("back in the main view without the banner:\n%s", ansi.Strip(m.View()))
	}
	// A snapshot without the deadlock: no banner.
	m = step(m, updateMsg{model.Update{Snapshot: fleet()}})
	if strings.Contains(ansi.Strip(m.View()), "CROSS-LOCK") {
		t.Error("banner after the deadlock cleared")
	}
}

// Selecting a session marks its nodes in every queue and its locks in
// the list; esc clears the mark.
func TestSessionsMarkHighlightsNodes(t *testing.T) {
	m, _ := press(withDeadlock(newTest("dark", 160, 48)), "w")
	m = selectSession(t, m, payOne)
	m, _ = press(m, "enter")
	if m.view != viewMain || m.mark != payOne || m.list.Selected != "/locks/pay-a" {
		t.Fatalf("view %v mark %#x selected %s", m.view, m.mark, m.list.Selected)
	}
	marked := map[string]bool{}
	for _, r := range m.list.Rows {
		marked[r.Path] = r.Marked
	}
	if !marked["/locks/pay-a"] || !marked["/locks/pay-b"] || marked["/locks/job-a"] {
		t.Errorf("marked rows %v", marked)
	}
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "◆") || !strings.Contains(view, "esc clear mark") {
		t.Errorf("no mark shown:\n%s", view)
	}
	m = selectPath(m, "/locks/pay-b")
	if !strings.Contains(ansi.Strip(m.View()), "◆   2   8") {
		t.Errorf("the waiting node on pay-b is not marked:\n%s", ansi.Strip(m.View()))
	}
	m, _ = press(m, "esc")
	if m.mark != 0 || strings.Contains(ansi.Strip(m.View()), "◆") {
		t.Error("esc did not clear the mark")
	}
}

// runAll runs a command and every batch or sequence inside it.
func runAll(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, runAll(c)...)
		}
		return out
	}
	// tea.Sequence's message is an unexported []tea.Cmd.
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeOf(tea.Cmd(nil)) {
		var out []tea.Msg
		for i := range v.Len() {
			out = append(out, runAll(v.Index(i).Interface().(tea.Cmd))...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// Force-releasing a session asks for its id's last four hex digits, then
// deletes each of its nodes through the Backend (waits first), one call
// (one owner check, one audit entry) per node.
func TestSessionsForceReleaseSession(t *testing.T) {
	fb := &fakeBackend{}
	m := withDeadlock(newTest("dark", 160, 48, func(o *Options) { o.Backend = fb }))
	m, _ = press(m, "w")
	// A cycle row is not a session: f does nothing there.
	m, _ = press(m, "f")
	if m.dialog != nil {
		t.Fatal("f on a cycle row opened a dialog")
	}
	m = selectSession(t, m, payOne)
	m, _ = press(m, "f")
	view := ansi.Strip(m.View())
	for _, want := range []string{
		"FORCE-RELEASE SESSION 0x60000a1b2c0001",
		"/locks/pay-b #8 (waiting)", "/locks/pay-a #3 (HOLDER)",
		"Type the session's last 4 hex digits 0001 to confirm",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("dialog lacks %q:\n%s", want, view)
		}
	}
	m, cmd := press(m, "0002", "enter")
	if len(runAll(cmd)) != 0 || m.dialog == nil || len(fb.Calls()) != 0 {
		t.Fatal("a wrong id was accepted")
	}
	if !strings.Contains(ansi.Strip(m.View()), `"0002" is not 0001: nothing deleted`) {
		t.Error("the refusal is not shown")
	}
	m, cmd = press(m, "0x60000A1B2C0001", "enter")
	if m.dialog != nil {
		t.Fatal("the full id was not accepted")
	}
	var done int
	for _, msg := range runAll(cmd) {
		if a, ok := msg.(actionMsg); ok && a.err == nil && a.verb == "force-release" {
			done++
			m = step(m, a)
		}
	}
	want := []string{
		"force /locks/pay-b " + curatorName("6a6b6c6d-0002-4e4f-8a8b-9c9d0e0f1a1b", 8) + " 0x60000a1b2c0001",
		"force /locks/pay-a " + curatorName("5a5b5c5d-0001-4e4f-8a8b-9c9d0e0f1a1b", 3) + " 0x60000a1b2c0001",
	}
	if calls := fb.Calls(); !slices.Equal(calls, want) || done != 2 {
		t.Fatalf("backend calls %v (%d done), want %v", calls, done, want)
	}
	// The last four digits do as well.
	m = selectSession(t, m, payTwo)
	m, cmd = press(m, "f", "0002", "enter")
	if m.dialog != nil || len(runAll(cmd)) != 2 {
		t.Fatal("the last four digits were not accepted")
	}
}

// A read-only console refuses: no key, no dialog, no call.
func TestSessionsForceReleaseReadOnly(t *testing.T) {
	fb := &fakeBackend{}
	m := withDeadlock(newTest("dark", 160, 48, func(o *Options) { o.ReadOnly = true; o.Backend = fb }))
	m, _ = press(m, "w")
	m = selectSession(t, m, payOne)
	m, cmd := press(m, "f")
	if m.dialog != nil || cmd != nil || len(fb.Calls()) != 0 {
		t.Fatal("read-only: f opened a dialog or ran a command")
	}
	if footer := lastLine(ansi.Strip(m.View())); strings.Contains(footer, "force") {
		t.Errorf("read-only footer offers force: %s", footer)
	}
	// Even a confirmed intent does nothing.
	if cmd := m.perform(intent{kind: intentForceSession, session: payOne, targets: []forceTarget{{path: "/locks/pay-a", node: "x"}}}); cmd != nil {
		t.Fatal("read-only ran a force-release")
	}
}

// Help lists the key.
func TestSessionsKeyInHelp(t *testing.T) {
	m, _ := press(newTest("dark", 160, 48), "?")
	if !strings.Contains(ansi.Strip(m.View()), "w sessions") {
		t.Errorf("help lacks the sessions key:\n%s", ansi.Strip(m.View()))
	}
}
