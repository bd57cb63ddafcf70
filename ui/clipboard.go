package ui

import (
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/ui/draw"
)

// copiedMsg is the outcome of writing to the clipboard.
type copiedMsg struct {
	shown string // what was copied, sanitized for the status bar
	err   error
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

// copiedNotice says in the status bar what was copied.
func copiedNotice(c copiedMsg) notice {
	if c.err != nil {
		return notice{text: "copy " + c.shown + ": " + draw.Clean(c.err.Error(), 0), failed: true}
	}
	return notice{text: "copied " + c.shown}
}
