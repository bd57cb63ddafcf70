package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

type fakeRecorder struct {
	starts, stops int
	startErr      error
}

func (f *fakeRecorder) Start() (string, error) {
	f.starts++
	return "zklock-20261125-031204.zkrec", f.startErr
}

func (f *fakeRecorder) Stop() (int, error) { f.stops++; return 42, nil }

// TestRecordKey: ctrl+r starts a recording, which the status bar shows
// first for as long as it runs; ctrl+r again stops it and says how many
// updates it holds. Without a recorder (replay, tests) the key does nothing.
func TestRecordKey(t *testing.T) {
	fr := &fakeRecorder{}
	m := newTest("dark", 160, 48, func(o *Options) { o.Recorder = fr })
	m, cmd := press(m, "ctrl+r")
	if cmd == nil {
		t.Fatal("ctrl+r ran nothing")
	}
	m = step(m, cmd())
	status := statusLine(ansi.Strip(m.View()))
	if fr.starts != 1 || !strings.Contains(status, "● REC zklock-20261125-031204.zkrec") {
		t.Fatalf("after ctrl+r: %d starts, status %q", fr.starts, status)
	}
	m, cmd = press(m, "ctrl+r")
	m = step(m, cmd())
	status = statusLine(ansi.Strip(m.View()))
	if fr.stops != 1 || strings.Contains(status, "● REC") || !strings.Contains(status, "recorded 42 updates") {
		t.Fatalf("after the second ctrl+r: %d stops, status %q", fr.stops, status)
	}

	// A failed start says why and shows no recording.
	fr = &fakeRecorder{startErr: errors.New("read-only file system")}
	m = newTest("dark", 160, 48, func(o *Options) { o.Recorder = fr })
	m, cmd = press(m, "ctrl+r")
	m = step(m, cmd())
	if status := statusLine(ansi.Strip(m.View())); strings.Contains(status, "● REC") || !strings.Contains(status, "read-only file system") {
		t.Errorf("failed start: status %q", status)
	}

	if _, cmd := press(newTest("dark", 160, 48), "ctrl+r"); cmd != nil {
		t.Error("ctrl+r without a recorder ran a command")
	}
}

// statusLine is the line above the footer.
func statusLine(view string) string {
	lines := strings.Split(view, "\n")
	return lines[len(lines)-2]
}
