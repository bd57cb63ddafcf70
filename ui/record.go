package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/zklock/zklock/ui/draw"
)

// recordMsg is the answer of Options.Recorder to the record key.
type recordMsg struct {
	started bool   // Start answered (else Stop)
	file    string // Start's file
	updates int    // Stop's count
	err     error
}

// toggleRecording starts a recording, or stops the one running to the
// file running ("" for none); the recorder's I/O runs in a command.
func toggleRecording(rec Recorder, running string) tea.Cmd {
	if rec == nil {
		return nil
	}
	if running == "" {
		return func() tea.Msg {
			f, err := rec.Start()
			return recordMsg{started: true, file: f, err: err}
		}
	}
	file := running
	return func() tea.Msg {
		n, err := rec.Stop()
		return recordMsg{file: file, updates: n, err: err}
	}
}

// outcome is the file recorded to once r is taken in ("" for none) and
// what the status bar says of it (the running recording stays there,
// first, until it stops).
func (r recordMsg) outcome(running string) (string, notice) {
	switch {
	case r.started && r.err != nil:
		return running, notice{text: "recording not started: " + draw.Clean(r.err.Error(), 120), failed: true}
	case r.started:
		return r.file, notice{text: "recording to " + draw.Clean(r.file, 80) + " (ctrl+r stops it; zklock replay " + draw.Clean(r.file, 60) + " plays it)"}
	case r.err != nil:
		return "", notice{text: "recording ended with an error: " + draw.Clean(r.err.Error(), 120), failed: true}
	}
	return "", notice{text: fmt.Sprintf("recorded %d updates to %s", r.updates, draw.Clean(r.file, 80))}
}
