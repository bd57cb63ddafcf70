package ui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/timeline"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// fakeTimeline records the console's calls.
type fakeTimeline struct {
	st    timeline.PlayerState
	calls []string
}

func (f *fakeTimeline) State() timeline.PlayerState { return f.st }
func (f *fakeTimeline) Toggle() timeline.PlayerState {
	f.calls = append(f.calls, "toggle")
	f.st.Playing = !f.st.Playing
	return f.st
}
func (f *fakeTimeline) Step(n int) timeline.PlayerState {
	f.calls = append(f.calls, map[int]string{1: "step+1", -1: "step-1"}[n])
	f.st.Playing = false
	f.st.Step += n
	f.st.At = f.st.At.Add(time.Duration(n) * time.Second)
	return f.st
}
func (f *fakeTimeline) Seek(t time.Time) timeline.PlayerState {
	f.calls = append(f.calls, "seek "+t.Format("15:04:05"))
	f.st.At = t
	return f.st
}
func (f *fakeTimeline) Faster() timeline.PlayerState {
	f.calls = append(f.calls, "faster")
	f.st.Speed *= 2
	return f.st
}
func (f *fakeTimeline) Slower() timeline.PlayerState {
	f.calls = append(f.calls, "slower")
	return f.st
}

// TestReplayKeys: in a replay the timeline's keys drive it from commands,
// the status bar says where the replay stands, the clock follows a step,
// and the lock actions are off.
func TestReplayKeys(t *testing.T) {
	tl := &fakeTimeline{st: timeline.PlayerState{At: t0, Steps: 10, Speed: 1, Start: t0, End: t0.Add(time.Minute)}}
	m := newTest("dark", 160, 48, func(o *Options) { o.Replay = tl; o.ReadOnly = true; o.Backend = nil })
	if v := ansi.Strip(m.View()); !strings.Contains(v, " REPLAY  ‖ paused ") {
		t.Fatalf("no replay status:\n%s", ansi.Strip(m.View()))
	}
	apply := func(keys ...string) {
		t.Helper()
		var cmd Console
		for _, k := range keys {
			next, c := press(m, k)
			cmd = next
			for _, msg := range runCmd(c) {
				cmd = step(cmd, msg)
			}
			m = cmd
		}
	}
	apply(" ", ".", "+")
	if next, c := m.Update(keyMsgNamed("left")); c != nil {
		m = next.(Console)
		for _, msg := range runCmd(c) {
			m = step(m, msg)
		}
	}
	if got := strings.Join(tl.calls, ","); got != "toggle,step+1,faster,step-1" {
		t.Errorf("calls %s", got)
	}
	if !m.now.Equal(t0) {
		t.Errorf("clock %v after a step forward and back, want %v", m.now, t0)
	}
	if s := ansi.Strip(m.View()); !strings.Contains(s, "2x") {
		t.Errorf("speed not shown:\n%s", lastLine(s))
	}
	// Jump: a clock time of the recording's day.
	apply("J")
	if _, ok := m.dialog.(*jumpDialog); !ok {
		t.Fatalf("J opened %T", m.dialog)
	}
	want := t0.Add(30 * time.Second).Local().Format("15:04:05")
	for _, r := range want {
		m, _ = press(m, string(r))
	}
	next, c := m.Update(keyMsg("enter"))
	m = next.(Console)
	for _, msg := range runCmd(c) {
		m = step(m, msg)
	}
	if last := tl.calls[len(tl.calls)-1]; last != "seek "+t0.Add(30*time.Second).Format("15:04:05") || m.dialog != nil {
		t.Errorf("jump: calls %v, dialog %T", tl.calls, m.dialog)
	}
	// The lock actions stay off.
	for _, k := range []string{"t", "f", "R"} {
		if next, c := press(m, k); next.dialog != nil || c != nil {
			t.Errorf("replay: %q acts", k)
		}
	}
}

func keyMsgNamed(s string) tea.KeyMsg {
	if s == "left" {
		return tea.KeyMsg{Type: tea.KeyLeft}
	}
	return keyMsg(s)
}

func TestParseJump(t *testing.T) {
	start := time.Date(2026, 11, 23, 3, 0, 0, 0, time.Local)
	end := start.Add(30 * time.Minute)
	now := start.Add(10 * time.Minute)
	for in, want := range map[string]time.Time{
		"03:12:07":     start.Add(12*time.Minute + 7*time.Second),
		"03:12:07.250": start.Add(12*time.Minute + 7250*time.Millisecond),
		"+90s":         now.Add(90 * time.Second),
		"-5m":          now.Add(-5 * time.Minute),
		// Before the start: that day (the player starts from the
		// beginning), not the next day, which is after the end.
		"02:59:00": start.Add(-time.Minute),
		"04:00":    start.Add(time.Hour),
	} {
		if got, ok := parseJump(in, now, start, end); !ok || !got.Equal(want) {
			t.Errorf("%q: %v %v, want %v", in, got, ok, want)
		}
	}
	// A recording that runs past midnight: an early hour is the next day.
	late := time.Date(2026, 11, 23, 23, 50, 0, 0, time.Local)
	if got, _ := parseJump("00:05", late, late, late.Add(20*time.Minute)); !got.Equal(late.Add(15 * time.Minute)) {
		t.Errorf("00:05 in a recording from 23:50 to 00:10: %v", got)
	}
	if _, ok := parseJump("soon", now, start, end); ok {
		t.Errorf("soon parsed")
	}
}

// TestReplayRuns: the console over a real timeline.Player: played at
// 100x to the end of the recording, then quit, with no error.
func TestReplayRuns(t *testing.T) {
	var file bytes.Buffer
	r, err := timeline.NewRecorder(&file, timeline.RecordingHeader{Started: t0, Zklock: "test"})
	if err != nil {
		t.Fatal(err)
	}
	base := fleet()
	for i := range 30 {
		s := *base
		s.At = t0.Add(time.Duration(i) * 100 * time.Millisecond)
		if i%2 == 1 {
			s.Queues = model.QueuesOf(s.Queues.Slice()[1:]...)
		}
		if err := r.Record(model.Update{Snapshot: &s, Changes: changes()}); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := timeline.ReadRecording(&file)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	p := timeline.NewPlayer(ctx, rec)
	started, ended, faster := false, false, 0
	err = runConsole(t, ctx, Options{Theme: mustTheme("mono"), ReadOnly: true, Updates: p.Updates(), Replay: p, Now: p.Now},
		func(msg tea.Msg, w io.Writer) {
			switch msg := msg.(type) {
			case replayMsg:
				// One key at a time: a burst arrives as one message.
				if faster++; faster < 6 {
					typeKeys(w, "+")
				} else if faster == 6 {
					typeKeys(w, " ")
				}
			case updateMsg:
				if !started {
					started = true
					typeKeys(w, "+")
				}
				for _, e := range msg.Changes {
					if strings.Contains(e.Text(), "the end of the recording") && !ended {
						ended = true
						typeKeys(w, "q")
					}
				}
			}
		})
	if err != nil || !ended {
		t.Fatalf("replay console: %v (reached the end: %v)", err, ended)
	}
	if st := p.State(); st.Step != 29 || st.Speed != timeline.MaxSpeed {
		t.Errorf("after playing: %+v", st)
	}
}

// TestReplayFirstFrame: a replay's first frame, drawn before the player
// delivers anything, shows the recording's first snapshot (its locks,
// its connection, its server view), and a recording made with --root
// whose first snapshot lists nothing says where it looks.
func TestReplayFirstFrame(t *testing.T) {
	// The second as `zklock record --root` starts: before the root's
	// first read.
	for _, first := range []*model.Snapshot{fleet(), {At: t0, Conn: fleet().Conn, Unread: 1}} {
		var file bytes.Buffer
		r, err := timeline.NewRecorder(&file, timeline.RecordingHeader{Started: t0, Zklock: "test", Roots: []string{"/locks"}})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range []*model.Snapshot{first, fleet(), fleet()} {
			c := *s
			c.At = t0.Add(time.Duration(i) * time.Second)
			if err := r.Record(model.Update{Snapshot: &c}); err != nil {
				t.Fatal(err)
			}
		}
		rec, err := timeline.ReadRecording(&file)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		p := timeline.NewPlayer(ctx, rec)
		opts := ReplayOptions(rec.Header, p)
		opts.Theme = mustTheme("mono")
		m := step(New(opts), sizeMsg(160, 48))
		v := ansi.Strip(m.View())
		cancel()
		want := []string{"Locks in /locks/ · 7", "watches verified 03:11:57", "recorded from zk1.prod:2181"}
		if first.Queues.Len() == 0 {
			want = []string{"Locks · 0", "no lock parents found below /locks yet", "recorded from zk1.prod:2181", "reading 1 paths…", "watches not verified yet"}
		}
		for _, w := range want {
			if !strings.Contains(v, w) {
				t.Errorf("first frame lacks %q:\n%s", w, v)
			}
		}
		for _, bad := range []string{"no lock paths", "connecting", "watches inferred"} {
			if strings.Contains(v, bad) {
				t.Errorf("first frame says %q:\n%s", bad, v)
			}
		}
	}
}
