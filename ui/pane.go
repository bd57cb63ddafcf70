package ui

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/zklock/zklock/themes"
)

// pane is what the root gives each of its panes (lock list, queue, event
// log, sessions pane) before it hands one a message or draws it: the
// styles, the border (focus and staleness are the root's to judge), the
// outer size in cells, the clock and the focus. A pane's Update and View
// read it; only the root writes it (Model.layoutPanes).
type pane struct {
	st            *themes.Styles
	border        lipgloss.Style
	width, height int // outer, border included
	now           time.Time
	focused       bool
	keys          KeyMap // the console's keys: a pane matches its own
}

// wheelRows is how far one notch of the wheel moves a pane's cursor.
const wheelRows = 3

// navDelta is how far a navigation key moves a cursor in a pane showing
// page rows: ok is false for any other key. Home and End go far enough
// for any pane; the pane clamps.
func navDelta(msg tea.KeyMsg, k KeyMap, page int) (delta int, ok bool) {
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

// wheelDelta is how far a press of the wheel moves a cursor; ok is false
// for any other mouse message.
func wheelDelta(msg tea.MouseMsg) (delta int, ok bool) {
	if msg.Action != tea.MouseActionPress {
		return 0, false
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		return -wheelRows, true
	case tea.MouseButtonWheelDown:
		return wheelRows, true
	}
	return 0, false
}

// leftClick says whether msg is a press of the left button.
func leftClick(msg tea.MouseMsg) bool {
	return msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft
}
