package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/model"
)

// fakeDemo records the presenter's calls.
type fakeDemo struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (f *fakeDemo) record(s, text string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
	if f.err != nil {
		return "", f.err
	}
	return text, nil
}

func (f *fakeDemo) Pause(context.Context) (string, error) {
	return f.record("pause", "contenders paused")
}

func (f *fakeDemo) Step(context.Context) (string, error) {
	return f.record("step", "one handoff on /locks/job-a")
}

func (f *fakeDemo) Kill(_ context.Context, path string) (string, error) {
	return f.record("kill "+path, "killed the holder of "+path)
}

func (f *fakeDemo) Split(_ context.Context, path string) (string, error) {
	return f.record("split "+path, "a Kazoo-style client joined "+path)
}

func (f *fakeDemo) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func withDemo(d Demo) func(*Options) {
	return func(o *Options) { o.Demo = d; o.Narration = true }
}

// demoOf runs the command a presenter's key made and feeds its outcome
// back, as the program would.
func demoOf(t *testing.T, m Console, keys ...string) Console {
	t.Helper()
	m, cmd := press(m, keys...)
	found := false
	for _, msg := range runCmd(cmd) {
		if d, ok := msg.(demoMsg); ok {
			m = step(m, d)
			found = true
		}
	}
	if !found {
		t.Fatalf("%v ran no demo call", keys)
	}
	return m
}

func TestDemoKeysOnlyInTheDemo(t *testing.T) {
	m := selectPath(newTest("dark", 160, 48), "/locks/job-a")
	footer := lastLine(ansi.Strip(m.View()))
	for _, hidden := range []string{"pause", "step", "kill", "split"} {
		if strings.Contains(footer, hidden) {
			t.Errorf("plain console footer shows %q: %s", hidden, footer)
		}
	}
	for _, k := range []string{"p", " ", "x", "S"} {
		if _, cmd := press(m, k); cmd != nil {
			t.Errorf("plain console: %q ran a command", k)
		}
	}
	m, _ = press(m, "?")
	if help := ansi.Strip(m.View()); strings.Contains(help, "kill holder") {
		t.Error("plain console help shows the presenter's keys")
	}

	fd := &fakeDemo{}
	m = selectPath(newTest("dark", 160, 48, withDemo(fd)), "/locks/job-a")
	footer = lastLine(ansi.Strip(m.View()))
	for _, shown := range []string{"p pause", "space step", "x kill holder", "S split"} {
		if !strings.Contains(footer, shown) {
			t.Errorf("demo footer lacks %q: %s", shown, footer)
		}
	}
	m, _ = press(m, "?")
	if help := ansi.Strip(m.View()); !strings.Contains(help, "kill holder") || !strings.Contains(help, "space") {
		t.Errorf("demo help lacks the presenter's keys:\n%s", help)
	}
}

// The presenter's keys must not shadow any key of the console.
func TestDemoKeysDoNotClash(t *testing.T) {
	k := DefaultKeyMap()
	demo := map[string]bool{}
	for _, b := range [][]string{k.Pause.Keys(), k.Step.Keys(), k.Kill.Keys(), k.Split.Keys()} {
		for _, s := range b {
			demo[s] = true
		}
	}
	others := [][]string{k.Up.Keys(), k.Down.Keys(), k.PageUp.Keys(), k.PageDown.Keys(), k.Home.Keys(), k.End.Keys(),
		k.Focus.Keys(), k.Enter.Keys(), k.Filter.Keys(), k.Clear.Keys(), k.Sort.Keys(), k.Take.Keys(), k.Release.Keys(),
		k.Revoke.Keys(), k.Force.Keys(), k.Narrate.Keys(), k.Help.Keys(), k.Quit.Keys(), k.Abort.Keys()}
	for _, b := range others {
		for _, s := range b {
			if demo[s] {
				t.Errorf("presenter's key %q is also a console key", s)
			}
		}
	}
}

func TestDemoCalls(t *testing.T) {
	fd := &fakeDemo{}
	m := selectPath(newTest("dark", 160, 48, withDemo(fd)), "/locks/job-a")
	m = demoOf(t, m, "p")
	view := ansi.Strip(m.View())
	if !m.paused || !strings.Contains(view, "PAUSED") || !strings.Contains(lastLine(view), "p resume") {
		t.Fatalf("after p: paused=%v\n%s", m.paused, view)
	}
	if !strings.Contains(view, "demo     contenders paused") {
		t.Errorf("event log lacks the pause:\n%s", view)
	}
	m = demoOf(t, m, " ")
	m = demoOf(t, m, "x")
	m = demoOf(t, m, "S")
	if view := ansi.Strip(m.View()); !strings.Contains(view, "a Kazoo-style client joined /locks/job-a") {
		t.Errorf("split not told:\n%s", view)
	}
	m = demoOf(t, m, "p")
	if m.paused || strings.Contains(ansi.Strip(m.View()), "PAUSED") {
		t.Error("p did not resume")
	}
	want := "pause,step,kill /locks/job-a,split /locks/job-a,pause"
	if got := strings.Join(fd.Calls(), ","); got != want {
		t.Errorf("calls %s, want %s", got, want)
	}

	// A failure is shown, and does not flip the paused state.
	fd.err = errors.New("no demo client holds /locks/job-a")
	m = demoOf(t, m, "x")
	m = demoOf(t, m, "p")
	view = ansi.Strip(m.View())
	if m.paused || !strings.Contains(view, "kill: no demo client holds /locks/job-a") {
		t.Errorf("failure not shown, or paused flipped (%v):\n%s", m.paused, view)
	}
}

// Keys typed into a dialog or the filter are not the presenter's.
func TestDemoKeysInsideDialogs(t *testing.T) {
	fd := &fakeDemo{}
	m := selectPath(newTest("dark", 160, 48, withDemo(fd)), "/locks/job-a")
	m, _ = press(m, "/", "px S", "esc")
	m, _ = press(m, "tab", "f", "x", "p", " ", "esc")
	if calls := fd.Calls(); len(calls) != 0 {
		t.Fatalf("demo called from a dialog or the filter: %v", calls)
	}
}

// The narration follows the queue on screen: a step on another lock does
// not interrupt the story of the selected one.
func TestNarrationFollowsTheSelectedLock(t *testing.T) {
	m := selectPath(newTest("dark", 160, 48, withDemo(&fakeDemo{})), "/locks/job-a")
	job := curatorName("77e1a0c2-9b8d-4e7f-a6b5-c4d3e2f1a0b9", 42)
	other := curatorName("1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", 10)
	deleted := func(path, node string) updateMsg {
		return updateMsg{model.Update{Changes: []model.Change{{At: t0, Kind: model.ChangeReleased, Path: path, Node: model.Node{Name: node}}}}}
	}
	// The first step on the selected lock takes over from the fixture's.
	m = step(m, deleted("/locks/job-a", job))
	if !strings.HasPrefix(m.narration.Text, "#42 was deleted") {
		t.Fatalf("narration %q, want the step on /locks/job-a", m.narration.Text)
	}
	// A step on another lock is not told.
	m = step(m, deleted("/locks/shared-ledger", other))
	if !strings.HasPrefix(m.narration.Text, "#42 was deleted") {
		t.Fatalf("narration %q: another lock's step interrupted", m.narration.Text)
	}
	// Once another lock is selected, its steps are told.
	m = selectPath(m, "/locks/shared-ledger")
	m = step(m, deleted("/locks/shared-ledger", other))
	if !strings.HasPrefix(m.narration.Text, "#10 was deleted") {
		t.Fatalf("narration %q, want the newly selected lock's step", m.narration.Text)
	}
}
