package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/ui/draw"
	"github.com/zklock/zklock/ui/queuepane"
)

// cellOf finds text on the screen, in columns [from, to) of its line:
// the cell a person would click. It fails the test when text is not there.
func cellOf(t *testing.T, m Console, text string, from, to int) (x, y int) {
	t.Helper()
	for y, l := range strings.Split(ansi.Strip(m.View()), "\n") {
		r := []rune(l)
		seg := string(r[min(from, len(r)):min(to, len(r))])
		if i := strings.Index(seg, text); i >= 0 {
			return from + ansi.StringWidth(seg[:i]), y
		}
	}
	t.Fatalf("%q is not on screen in columns %d-%d:\n%s", text, from, to, ansi.Strip(m.View()))
	return 0, 0
}

func click(m Console, x, y int) Console {
	return step(m, tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
}

func wheel(m Console, b tea.MouseButton) Console {
	return step(m, tea.MouseMsg{X: 100, Y: 10, Action: tea.MouseActionPress, Button: b})
}

// A click on a lock list row focuses the list and selects the lock; the
// queue follows.
func TestClickSelectsLock(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := newTest("dark", sz[0], sz[1])
		m, _ = press(m, "tab") // focus the queue first: the click moves it back
		listW := m.frame().listW
		x, y := cellOf(t, m, "orders", 0, listW)
		m = click(m, x, y)
		if m.focus != focusList || m.list.Selected != "/locks/orders" || m.queue.Path != "/locks/orders" {
			t.Errorf("%dx%d: click at %d,%d: focus %d, selected %q, queue %q", sz[0], sz[1], x, y, m.focus, m.list.Selected, m.queue.Path)
		}
		// With a filter kept, its line sits above the column header.
		m, _ = press(m, "/", "o", "enter")
		x, y = cellOf(t, m, "job-a", 0, listW)
		m = click(m, x, y)
		if m.list.Selected != "/locks/job-a" {
			t.Errorf("%dx%d: under a filter, click on job-a selected %q", sz[0], sz[1], m.list.Selected)
		}
	}
}

// A click on a queue row, or on the chain line under it, focuses the queue
// and selects that node.
func TestClickSelectsNode(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := selectPath(newTest("dark", sz[0], sz[1]), "/locks/job-a")
		listW := m.frame().listW
		x, y := cellOf(t, m, " 43 ", listW, sz[0])
		m = click(m, x+1, y)
		if n := m.queue.Node(); m.focus != focusQueue || n == nil || n.Seq != 43 {
			t.Fatalf("%dx%d: click on #43's row: focus %d, node %+v", sz[0], sz[1], m.focus, n)
		}
		// #44's chain line ("watches #43") is the line under #44's row.
		x, y = cellOf(t, m, " 44 ", listW, sz[0])
		m = click(m, x+1, y+1)
		if n := m.queue.Node(); n == nil || n.Seq != 44 {
			t.Errorf("%dx%d: click on #44's chain line selected %+v", sz[0], sz[1], n)
		}
	}
}

// Banners above the queue (a deadlock's) shift its rows: the click still
// lands on the node drawn there.
func TestClickNodeUnderBanners(t *testing.T) {
	m := selectPath(newTest("dark", 160, 48), "/locks/inventory")
	if len(queuepane.Banners(&m.queue, m.st, m.snap, m.frame().queueW-2, m.frame().bodyH-2, m.now)) == 0 {
		t.Fatal("the fixture has no banner over /locks/inventory")
	}
	for _, seq := range []int32{22, 21} {
		x, y := cellOf(t, m, fmt.Sprintf(" %d ", seq), m.frame().listW, 160)
		m = click(m, x+1, y)
		if n := m.queue.Node(); n == nil || n.Seq != seq {
			t.Errorf("click on #%d selected %+v", seq, n)
		}
	}
}

// Borders, column headers, the header and the footer select nothing; the
// event log takes the focus; dialogs and the filter ignore clicks.
func TestClickElsewhere(t *testing.T) {
	m := selectPath(newTest("dark", 160, 48), "/locks/job-a")
	before := m.list.Selected
	top := 1 + m.bannerLines()
	for _, at := range [][2]int{{5, 0}, {5, top}, {5, top + 1}, {100, top + 1}, {5, 47}} {
		m = click(m, at[0], at[1])
		if m.list.Selected != before || m.queue.Cursor != 0 {
			t.Errorf("click at %v changed the selection to %q / node %d", at, m.list.Selected, m.queue.Cursor)
		}
	}
	fr := m.frame()
	m = click(m, 10, top+fr.bodyH+2)
	if m.focus != focusLog {
		t.Errorf("click in the event log: focus %d", m.focus)
	}
	m, _ = press(m, "?")
	x, y := 3, top+3
	m = click(m, x, y)
	if m.dialog == nil || m.focus != focusLog {
		t.Error("a click went through the help dialog")
	}
	m, _ = press(m, "esc", "/")
	m = click(m, 100, top+4)
	if m.focus != focusList || !m.list.Filtering {
		t.Error("a click took the focus from the filter")
	}
}

// The wheel moves the focused pane's cursor.
func TestWheelScrollsFocused(t *testing.T) {
	m := selectPath(newTest("dark", 160, 48), "/locks/job-a")
	m, _ = press(m, "tab")
	m = wheel(m, tea.MouseButtonWheelDown)
	if m.queue.Cursor != 3 {
		t.Errorf("wheel down in the queue: cursor %d, want 3", m.queue.Cursor)
	}
	m = wheel(m, tea.MouseButtonWheelUp)
	if m.queue.Cursor != 0 {
		t.Errorf("wheel up: cursor %d, want 0", m.queue.Cursor)
	}
	m, _ = press(m, "tab", "tab") // the lock list
	was := m.list.Cursor
	m = wheel(m, tea.MouseButtonWheelDown)
	if m.list.Cursor != was+draw.WheelRows || m.queue.Path != m.list.Selected {
		t.Errorf("wheel down in the list: cursor %d (was %d), queue %q", m.list.Cursor, was, m.queue.Path)
	}
}

// In the sessions pane a click selects the session row.
func TestClickSelectsSession(t *testing.T) {
	m, _ := press(withDeadlock(newTest("dark", 160, 48)), "w")
	x, y := cellOf(t, m, "0x20000b11d40007", 0, 160)
	m = click(m, x, y)
	if s := m.sessions.Session(); s == nil || s.Session != 0x20000b11d40007 {
		t.Fatalf("click on the session's row selected %+v", s)
	}
	// Column header: nothing changes.
	_, hy := cellOf(t, m, "SESSION", 0, 160)
	m = click(m, x, hy)
	if s := m.sessions.Session(); s == nil || s.Session != 0x20000b11d40007 {
		t.Errorf("click on the column header moved the cursor to %+v", s)
	}
}
