package ui

import tea "github.com/charmbracelet/bubbletea"

// wheelRows is how far one notch of the wheel moves the cursor.
const wheelRows = 3

// mouse handles the mouse (Run enables cell-motion reporting, as k9s and
// lazygit do; terminals still select text with shift held): a left click
// focuses the pane under the pointer and selects the row clicked, the
// wheel moves the focused pane's cursor. Open dialogs and the filter keep
// the keyboard's focus: clicks are ignored then.
func (m Model) mouse(msg tea.MouseMsg) (tea.Model, tea.Cmd) {
	if m.dialog != nil || msg.Action != tea.MouseActionPress || m.width < minWidth || m.height < minHeight {
		return m, nil
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.scrollFocused(-wheelRows)
	case tea.MouseButtonWheelDown:
		m.scrollFocused(wheelRows)
	case tea.MouseButtonLeft:
		if !m.list.filtering {
			m.click(msg.X, msg.Y)
		}
	}
	return m, nil
}

// click hit-tests screen cell (x, y) against the layout View draws:
// header, deadlock banner, body (lock list beside queue, or the sessions
// pane), event log.
func (m *Model) click(x, y int) {
	fr := m.frame()
	top := 1 + m.bannerLines() // the body's first line
	if m.view == viewSessions {
		if y >= top && y < top+fr.bodyH {
			m.clickSessions(y - top)
		}
		return
	}
	switch {
	case y >= top && y < top+fr.bodyH:
		inner := y - top - 1 // line inside the pane's border
		if x < fr.listW {
			m.focus = focusList
			if i, ok := m.list.rowAt(inner, fr.bodyH-2); ok {
				m.list.hold(m.now)
				m.list.move(i-m.list.cursor, m.list.rowsFor(fr.bodyH-2))
				m.syncQueue()
			}
			return
		}
		m.focus = focusQueue
		w, h := fr.queueW-2, fr.bodyH-2
		head := len(m.queue.banners(m.st, m.snap, w, h, m.now)) + 1 // banners, column header
		rows := m.queue.rowsFor(m.st, m.snap, w, h, m.now)
		if i, ok := m.queue.nodeAt(inner-head, rows); ok {
			m.queue.move(i-m.queue.cursor, rows)
		}
	case y >= top+fr.bodyH && y < top+fr.bodyH+fr.logH:
		m.focus = focusLog
	}
}

// clickSessions selects the sessions-table row on line y of the body: the
// table's border and column header come first (sessionsPane.view).
func (m *Model) clickSessions(y int) {
	p := &m.sessions
	_, detail := p.detail(m.st, m.width-2, m.now)
	th, _ := p.heights(m.frame().bodyH, len(detail))
	rows := max(th-3, 1)
	r := y - 2
	if r < 0 || r >= rows {
		return
	}
	// The first row drawn, as the view works it out.
	first := min(max(p.top, p.cursor-rows+1), p.cursor)
	if first+r >= p.count() {
		return
	}
	p.top = first
	p.move(first+r-p.cursor, rows)
}
