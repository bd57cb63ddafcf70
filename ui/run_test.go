package ui

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// runConsole runs Run on pipes; onMsg sees every message before Update and
// may type into the console.
func runConsole(t *testing.T, ctx context.Context, opts Options, onMsg func(tea.Msg, io.Writer)) error {
	t.Helper()
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		onMsg(msg, pw)
		return msg
	}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, opts, tea.WithInput(pr), tea.WithOutput(io.Discard), tea.WithoutSignalHandler(), tea.WithFilter(filter))
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return")
		return nil
	}
}

// typeKeys writes s from a goroutine: the filter runs on the event loop,
// which must not block on the pipe.
func typeKeys(w io.Writer, s string) { go func() { _, _ = w.Write([]byte(s)) }() }

func TestRunReleasesOwnLocksOnQuit(t *testing.T) {
	fb := &fakeBackend{}
	own := make(chan OwnLock, 1)
	own <- OwnLock{Path: "/locks/job-a", State: OwnHolding, Since: t0}
	defer close(own)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	asked := false
	err := runConsole(t, ctx, Options{Theme: mustTheme("mono"), Backend: fb, Own: own, Now: func() time.Time { return t0 }},
		func(msg tea.Msg, w io.Writer) {
			switch msg := msg.(type) {
			case ownMsg:
				typeKeys(w, "q")
			case tea.KeyMsg:
				if msg.String() == "q" && !asked {
					asked = true
					typeKeys(w, "y")
				}
			}
		})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := fb.Calls(); strings.Join(got, ",") != "release /locks/job-a" {
		t.Fatalf("calls %v, want the held lock released", got)
	}
}

func TestRunReleasesOnCancel(t *testing.T) {
	fb := &fakeBackend{err: errors.New("zk: connection closed")}
	own := make(chan OwnLock, 2)
	own <- OwnLock{Path: "/locks/a", State: OwnQueued, Position: 3}
	own <- OwnLock{Path: "/locks/b", State: OwnLost}
	defer close(own)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := runConsole(t, ctx, Options{Theme: mustTheme("mono"), Backend: fb, Own: own},
		func(msg tea.Msg, _ io.Writer) {
			if _, ok := msg.(ownMsg); ok {
				cancel()
			}
		})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrRelease) {
		t.Fatalf("Run = %v, want context.Canceled and ErrRelease", err)
	}
	// The queued lock is given up; the lost one is not held any more.
	if got := fb.Calls(); strings.Join(got, ",") != "release /locks/a" {
		t.Fatalf("calls %v", got)
	}
}
