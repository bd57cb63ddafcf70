package draw

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/zklock/zklock/themes"
)

// Pane is what the root gives each of its panes (lock list, queue, event
// log, sessions pane) before it hands one a message or draws it: the
// styles, the border (focus and staleness are the root's to judge), the
// outer size in cells, the clock and the focus. A pane's Update and View
// read it; only the root writes it (Console.layoutPanes).
type Pane struct {
	St            *themes.Styles
	Border        lipgloss.Style
	Width, Height int // outer, border included
	Now           time.Time
	Focused       bool
	Nav           NavKeys // the console's keys that move a cursor
}

// NavKeys are the keys that move a cursor in a pane, as the console's
// KeyMap binds them.
type NavKeys struct {
	Up, Down, PageUp, PageDown, Home, End key.Binding
}

// WheelRows is how far one notch of the wheel moves a pane's cursor.
const WheelRows = 3

// NavDelta is how far a navigation key moves a cursor in a pane showing
// page rows: ok is false for any other key. Home and End go far enough
// for any pane; the pane clamps.
func NavDelta(msg tea.KeyMsg, k NavKeys, page int) (delta int, ok bool) {
	switch {
	case key.Matches(msg, k.Up):
		return -1, true
	case key.Matches(msg, k.Down):
		return 1, true
	case key.Matches(msg, k.PageUp):
		return -page, true
	case key.Matches(msg, k.PageDown):
		return page, true
	case key.Matches(msg, k.Home):
		return -1 << 30, true
	case key.Matches(msg, k.End):
		return 1 << 30, true
	}
	return 0, false
}

// WheelDelta is how far a press of the wheel moves a cursor; ok is false
// for any other mouse message.
func WheelDelta(msg tea.MouseMsg) (delta int, ok bool) {
	if msg.Action != tea.MouseActionPress {
		return 0, false
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		return -WheelRows, true
	case tea.MouseButtonWheelDown:
		return WheelRows, true
	}
	return 0, false
}

// LeftClick says whether msg is a press of the left button.
func LeftClick(msg tea.MouseMsg) bool {
	return msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft
}
