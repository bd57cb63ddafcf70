package ui

// The replay's timeline (`zklock replay`): keys that drive a Timeline,
// its state in the status bar, and the jump-to-time dialog. The console
// draws a replay as it draws the Watcher: snapshots arrive on
// Options.Updates, the clock is the recording's (Options.Now), and every
// action on locks is off (read-only, no Backend).

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/zklock/zklock/timeline"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/zklock/zklock/themes"
)

// Timeline drives a replay (timeline.Player). The console calls it only
// from tea.Cmds; each call returns where the replay then stands.
type Timeline interface {
	State() timeline.PlayerState
	// Toggle plays or pauses.
	Toggle() timeline.PlayerState
	// Step pauses and moves n updates (negative: back).
	Step(n int) timeline.PlayerState
	// Seek jumps to the recording's moment t.
	Seek(t time.Time) timeline.PlayerState
	Faster() timeline.PlayerState
	Slower() timeline.PlayerState
}

// replayKeys are the timeline's keys, on top of the console's.
type replayKeys struct {
	Play, Forward, Back, Faster, Slower, Jump key.Binding
}

func newReplayKeys() replayKeys {
	return replayKeys{
		Play:    key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "play/pause")),
		Forward: key.NewBinding(key.WithKeys("right", "."), key.WithHelp("→/.", "next update")),
		Back:    key.NewBinding(key.WithKeys("left", ","), key.WithHelp("←/,", "previous update")),
		Faster:  key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		Slower:  key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "slower")),
		Jump:    key.NewBinding(key.WithKeys("J"), key.WithHelp("J", "jump to a time")),
	}
}

// replayMsg is where the replay stands after a timeline call.
type replayMsg struct{ state timeline.PlayerState }

// replayKey handles the timeline's keys; ok is false for any other key.
func (m Model) replayKey(msg tea.KeyMsg) (Model, tea.Cmd, bool) {
	tl := m.opts.Replay
	if tl == nil {
		return m, nil, false
	}
	k := newReplayKeys()
	call := func(f func() timeline.PlayerState) tea.Cmd {
		return func() tea.Msg { return replayMsg{state: f()} }
	}
	switch {
	case key.Matches(msg, k.Play):
		return m, call(tl.Toggle), true
	case key.Matches(msg, k.Forward):
		return m, call(func() timeline.PlayerState { return tl.Step(1) }), true
	case key.Matches(msg, k.Back):
		return m, call(func() timeline.PlayerState { return tl.Step(-1) }), true
	case key.Matches(msg, k.Faster):
		return m, call(tl.Faster), true
	case key.Matches(msg, k.Slower):
		return m, call(tl.Slower), true
	case key.Matches(msg, k.Jump):
		m.dialog = newJumpDialog(tl, m.now)
		return m, textinput.Blink, true
	}
	return m, nil, false
}

// applyReplay shows the replay's state: the clock jumps with a step, and
// the status bar says where the replay stands and which keys drive it.
func (m *Model) applyReplay(r replayMsg) {
	m.now = r.state.At
	m.notice = notice{text: replayText(r.state)}
}

// replayText is the status bar's line for a replay.
func replayText(s timeline.PlayerState) string {
	return "REPLAY " + s.String() + " · space play/pause · ←/→ step · +/- speed · J jump"
}

// replayNotice is the first status line of a replay.
func replayNotice(tl Timeline) notice {
	return notice{text: replayText(tl.State())}
}

// jumpDialog asks for a moment of the recording: a clock time
// (15:04:05, 15:04:05.000, on the recording's first day) or an offset
// from the shown time (+90s, -5m).
type jumpDialog struct {
	tl    Timeline
	now   time.Time
	input textinput.Model
	wrong string
}

func newJumpDialog(tl Timeline, now time.Time) *jumpDialog {
	ti := textinput.New()
	ti.Prompt = "> "
	ti.CharLimit = 24
	ti.Placeholder = "15:04:05 or +30s"
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.Focus()
	return &jumpDialog{tl: tl, now: now, input: ti}
}

func (d *jumpDialog) update(msg tea.Msg, k dialogKeys) (dialog, intent, tea.Cmd) {
	if km, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(km, k.Cancel):
			return nil, intent{}, nil
		case key.Matches(km, k.Confirm):
			t, ok := parseJump(d.input.Value(), d.now, d.tl.State().Start)
			if !ok {
				d.wrong = clean(d.input.Value(), 24)
				d.input.Reset()
				return d, intent{}, nil
			}
			tl := d.tl
			return nil, intent{}, func() tea.Msg { return replayMsg{state: tl.Seek(t)} }
		}
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(msg)
	return d, intent{}, cmd
}

// parseJump reads a clock time (on the day of start, in local time) or
// an offset from now.
func parseJump(s string, now, start time.Time) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
		d, err := time.ParseDuration(s)
		return now.Add(d), err == nil
	}
	for _, layout := range []string{"15:04:05.000", "15:04:05", "15:04"} {
		if c, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			day := start.Local()
			t := time.Date(day.Year(), day.Month(), day.Day(), c.Hour(), c.Minute(), c.Second(), c.Nanosecond(), time.Local)
			if t.Before(day.Add(-time.Second)) {
				t = t.AddDate(0, 0, 1) // past midnight in a recording that spans it
			}
			return t, true
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

func (d *jumpDialog) view(st *themes.Styles, screenW, screenH int) []string {
	w := dialogWidth(screenW)
	inner := w - 4
	s := d.tl.State()
	body := []string{
		st.Text.Render(clean("The recording runs from "+s.Start.Local().Format("15:04:05")+" to "+s.End.Local().Format("15:04:05")+".", inner)),
		st.Muted.Render(clean("A time (15:04:05, 15:04:05.000) or a move from "+d.now.Local().Format("15:04:05")+" (+30s, -5m).", inner)),
		"",
	}
	in := d.input
	in.Width = max(inner-4, 4)
	in.PromptStyle = st.Key
	in.PlaceholderStyle = st.Muted
	body = append(body, in.View())
	if d.wrong != "" {
		body = append(body, st.Warning.Render(clean("\""+d.wrong+"\" is not a time", inner)))
	} else {
		body = append(body, "")
	}
	body = append(body, keyHints(st, "enter", "jump", "esc", "cancel"))
	return dialogBox(st.Border, st.Title.Render("JUMP TO"), body, w, screenH)
}
