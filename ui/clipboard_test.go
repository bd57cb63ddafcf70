package ui

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// copyWith presses y on m and runs the command it returns, as the program
// would; out receives what the terminal would.
func copyWith(t *testing.T, m Console) Console {
	t.Helper()
	m, cmd := press(m, "y")
	if cmd == nil {
		t.Fatal("y ran no command")
	}
	for _, msg := range runCmd(cmd) {
		m = step(m, msg)
	}
	return m
}

func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
}

// y puts the selection on the terminal's clipboard with OSC 52: the lock's
// path, the node's full path in the queue, the session id in the sessions
// pane; the status bar says what was copied.
func TestCopySelection(t *testing.T) {
	n42 := curatorName("77e1a0c2-9b8d-4e7f-a6b5-c4d3e2f1a0b9", 42)
	tests := []struct {
		name        string
		setup       func(Console) Console
		copied, say string
	}{
		{"lock", func(m Console) Console { return selectPath(m, "/locks/job-a") }, "/locks/job-a", "copied /locks/job-a"},
		{"node", func(m Console) Console {
			m, _ = press(selectPath(m, "/locks/job-a"), "tab", "down")
			return m
		}, "/locks/job-a/" + n42, "copied /locks/job-a/" + n42},
		{"session", func(m Console) Console {
			m, _ = press(m, "w")
			return selectSession(t, m, 0x10000a3f2c0012)
		}, "0x10000a3f2c0012", "copied session 0x10000a3f2c0012"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			m := tt.setup(newTest("dark", 160, 48, func(o *Options) { o.Output = &out }))
			m = copyWith(t, m)
			if got, want := out.String(), osc52(tt.copied); got != want {
				t.Errorf("wrote %q, want %q", got, want)
			}
			if view := ansi.Strip(m.View()); !strings.Contains(view, tt.say) {
				t.Errorf("status does not say %q:\n%s", tt.say, view)
			}
		})
	}
}

// The clipboard gets the path's raw bytes (base64-encoded, so nothing
// reaches the terminal raw); the status bar shows it sanitized.
func TestCopyHostilePath(t *testing.T) {
	evil := "/locks/\x1b]0;pwned\a\u202eevil"
	var out bytes.Buffer
	m := newTest("dark", 160, 48, func(o *Options) { o.Output = &out; o.Paths = []string{evil} })
	m = copyWith(t, selectPath(m, evil))
	if got, want := out.String(), osc52(evil); got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
	if strings.Count(out.String(), "\x1b") != 1 || strings.Count(out.String(), "\a") != 1 {
		t.Errorf("the sequence is not one OSC 52: %q", out.String())
	}
	rest := sgr.ReplaceAllString(m.View(), "")
	if strings.ContainsAny(rest, "\x1b\a\u202e") {
		t.Fatal("a raw control or bidi character reached the view")
	}
	if !strings.Contains(rest, `copied /locks/\x1b]0;pwned`) {
		t.Errorf("status does not show the escaped path:\n%s", ansi.Strip(m.View()))
	}
}

// A failed write is said, not swallowed; with nothing selected y does
// nothing.
func TestCopyFailureAndNothingSelected(t *testing.T) {
	m := newTest("dark", 160, 48, func(o *Options) { o.Output = failingWriter{} })
	m = copyWith(t, selectPath(m, "/locks/job-a"))
	if !m.notice.failed || !strings.Contains(m.notice.text, "broken pipe") {
		t.Errorf("notice %+v, want the write error", m.notice)
	}
	empty := New(Options{Theme: mustTheme("dark"), Now: func() time.Time { return t0 }})
	empty = step(empty, sizeMsg(80, 24))
	if _, cmd := press(empty, "y"); cmd != nil {
		t.Error("y with nothing selected ran a command")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) {
	return 0, errors.New("write /dev/pts/3: broken pipe")
}
