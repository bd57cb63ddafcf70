package ui

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// demoMsg is the outcome of one presenter's call on Options.Demo.
type demoMsg struct {
	verb string // pause, step, kill, split
	path string // the selected lock, for kill and split
	text string // the demo's sentence for the event log
	err  error
}

// present runs the presenter's key as a command on Options.Demo. Kill and
// split act on the lock selected in the list (the queue pane shows the
// same lock).
func (m *Model) present(msg tea.KeyMsg, k KeyMap) tea.Cmd {
	d := m.opts.Demo
	if d == nil {
		return nil
	}
	path := ""
	if row := m.list.current(); row != nil {
		path = row.path
	}
	switch {
	case key.Matches(msg, k.Pause):
		return m.demoCall("pause", "", d.Pause)
	case key.Matches(msg, k.Step):
		return m.demoCall("step", "", d.Step)
	case key.Matches(msg, k.Kill):
		m.notice = notice{text: "killing the client holding " + cleanLeft(path, 50) + "…"}
		return m.demoCall("kill", path, func(ctx context.Context) (string, error) { return d.Kill(ctx, path) })
	case key.Matches(msg, k.Split):
		m.notice = notice{text: "making a split-holders queue on " + cleanLeft(path, 50) + "…"}
		return m.demoCall("split", path, func(ctx context.Context) (string, error) { return d.Split(ctx, path) })
	}
	return nil
}

// demoCall runs fn as a command bounded by actionTimeout.
func (m *Model) demoCall(verb, path string, fn func(context.Context) (string, error)) tea.Cmd {
	parent := m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(parent, actionTimeout)
		defer cancel()
		text, err := fn(ctx)
		return demoMsg{verb: verb, path: path, text: text, err: err}
	}
}

// applyDemo shows the outcome in the status bar and the event log, and
// follows the contenders' paused state.
func (m *Model) applyDemo(d demoMsg) {
	if d.err != nil {
		m.notice = notice{text: d.verb + ": " + clean(d.err.Error(), 0), failed: true}
		m.log.add(logEntry{at: m.now, kind: logFailed, path: clean(d.path, 0), text: d.verb + ": " + clean(d.err.Error(), 0)})
		return
	}
	switch d.verb {
	case "pause":
		m.paused = !m.paused
	case "step":
		m.paused = true
	}
	text := clean(d.text, 0)
	if text == "" {
		text = d.verb + " done"
	}
	m.notice = notice{text: text}
	m.log.add(logEntry{at: m.now, kind: logDemo, path: clean(d.path, 0), text: text})
	// The narration line may now need a row, or give one back.
	m.fixScroll()
}
