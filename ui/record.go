package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
)

// recordMsg is the answer of Options.Recording to the record key.
type recordMsg struct {
	started bool   // Start answered (else Stop)
	file    string // Start's file
	updates int    // Stop's count
	err     error
}

// toggleRecording starts a recording, or stops the one running; the
// recorder's I/O runs in a command.
func (m *Model) toggleRecording() tea.Cmd {
	rec := m.opts.Recording
	if rec == nil {
		return nil
	}
	if m.recording == "" {
		return func() tea.Msg {
			f, err := rec.Start()
			return recordMsg{started: true, file: f, err: err}
		}
	}
	file := m.recording
	return func() tea.Msg {
		n, err := rec.Stop()
		return recordMsg{file: file, updates: n, err: err}
	}
}

// applyRecord shows a recording's start and end in the status bar (the
// running one stays there, first, until it stops).
func (m *Model) applyRecord(r recordMsg) {
	switch {
	case r.started && r.err != nil:
		m.notice = notice{text: "recording not started: " + clean(r.err.Error(), 120), failed: true}
	case r.started:
		m.recording = r.file
		m.notice = notice{text: "recording to " + clean(r.file, 80) + " (ctrl+r stops it; zklock replay " + clean(r.file, 60) + " plays it)"}
	case r.err != nil:
		m.recording = ""
		m.notice = notice{text: "recording ended with an error: " + clean(r.err.Error(), 120), failed: true}
	default:
		m.recording = ""
		m.notice = notice{text: fmt.Sprintf("recorded %d updates to %s", r.updates, clean(r.file, 80))}
	}
}
