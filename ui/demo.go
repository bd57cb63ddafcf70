package ui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
)

// demoMsg is the outcome of one presenter's call on Options.Demo.
type demoMsg struct {
	verb string // pause, step, kill, split
	path string // the selected lock, for kill and split
	text string // the demo's sentence for the event log
	err  error
}

// demoCall runs fn as a command bounded by actionTimeout under parent.
func demoCall(parent context.Context, verb, path string, fn func(context.Context) (string, error)) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(parent, actionTimeout)
		defer cancel()
		text, err := fn(ctx)
		return demoMsg{verb: verb, path: path, text: text, err: err}
	}
}
