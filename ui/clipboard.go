package ui

import (
	"io"
	"os"
	"path"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// copiedMsg is the outcome of writing to the clipboard.
type copiedMsg struct {
	shown string // what was copied, sanitized for the status bar
	err   error
}

// copyTarget is what y copies now: in the sessions pane the selected
// session's id; in the queue the selected node's full path; else the
// selected lock's path. raw is the text as ZooKeeper has it (it goes to
// the clipboard, base64-encoded); shown is its sanitized name for the
// status bar. ok is false when nothing is selected.
func (m *Model) copyTarget() (raw, shown string, ok bool) {
	if m.view == viewSessions {
		s := m.sessions.session()
		if s == nil {
			return "", "", false
		}
		id := session(s.Session)
		return id, "session " + id, true
	}
	if m.focus == focusQueue {
		if n := m.queue.node(); n != nil {
			p := m.queue.path
			if n.Name != "" { // a plain ephemeral lock's waiters own no node
				p = path.Join(p, n.Name)
			}
			return p, clean(p, 0), true
		}
	}
	if row := m.list.current(); row != nil {
		return row.path, clean(row.path, 0), true
	}
	return "", "", false
}

// copyToClipboard writes text to the terminal's clipboard with OSC 52,
// which the terminal, not the host, carries out: it works over SSH, and
// in tmux with set-clipboard on. Bubble Tea v1 has no command for it, so
// the sequence is written to the program's output in one Write, which
// the renderer's frames cannot split.
func copyToClipboard(out io.Writer, text, shown string) tea.Cmd {
	if out == nil {
		out = os.Stdout
	}
	return func() tea.Msg {
		_, err := io.WriteString(out, ansi.SetSystemClipboard(text))
		return copiedMsg{shown: shown, err: err}
	}
}

// copySelected copies the selection (see copyTarget).
func (m Model) copySelected() (tea.Model, tea.Cmd) {
	raw, shown, ok := m.copyTarget()
	if !ok {
		return m, nil
	}
	return m, copyToClipboard(m.opts.Output, raw, shown)
}

// applyCopied says in the status bar what was copied.
func (m *Model) applyCopied(c copiedMsg) {
	if c.err != nil {
		m.notice = notice{text: "copy " + c.shown + ": " + clean(c.err.Error(), 0), failed: true}
		return
	}
	m.notice = notice{text: "copied " + c.shown}
}
