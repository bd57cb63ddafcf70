package ui

// The replay's timeline (`zklock replay`): keys that drive a Timeline,
// its state in the status bar, and the jump-to-time dialog. The console
// draws a replay as it draws the live model: snapshots arrive on
// Options.Updates, the clock is the recording's (Options.Now), and every
// action on locks is off (read-only, no Backend).

import (
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/timeline"
	"github.com/zklock/zklock/ui/draw"
)

// Timeline drives a replay (timeline.Player). The console calls it only
// from tea.Cmds; each call returns where the replay then stands.
type Timeline interface {
	// State returns at once (no I/O): the console reads it on every tick
	// and update, since a playing replay moves with no key pressed.
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

// Replayer is a Timeline that also delivers the replayed updates on its
// own clock: a timeline.Player.
type Replayer interface {
	Timeline
	Updates() <-chan model.Update
	Now() time.Time
	// Snapshot is the update shown now (the first, before playing).
	Snapshot() *model.Snapshot
}

// ReplayOptions are the console's options over a recording made with
// header h and played by r: read-only, the recording's updates and
// clock, and the paths the recorder was given as the live console lists
// them. A root (--root) is not one: the queues found below it are in the
// snapshots, and the root listed as a path of its own would be a row that
// is no lock and never read. The first frame is drawn from the
// recording's first snapshot (its locks, its connection, its server
// view), not from defaults.
func ReplayOptions(h timeline.RecordingHeader, r Replayer) Options {
	return Options{ReadOnly: true, Updates: r.Updates(), Paths: slices.Clone(h.Paths), Roots: slices.Clone(h.Roots),
		Replay: r, Now: r.Now, Snapshot: r.Snapshot()}
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

// replayKey turns the timeline's keys into a call on tl or the jump
// dialog (from the shown time now); ok is false for any other key, and
// without a replay.
func replayKey(tl Timeline, msg tea.KeyMsg, now time.Time) (jump dialog, cmd tea.Cmd, ok bool) {
	if tl == nil {
		return nil, nil, false
	}
	k := newReplayKeys()
	call := func(f func() timeline.PlayerState) tea.Cmd {
		return func() tea.Msg { return replayMsg{state: f()} }
	}
	switch {
	case key.Matches(msg, k.Play):
		return nil, call(tl.Toggle), true
	case key.Matches(msg, k.Forward):
		return nil, call(func() timeline.PlayerState { return tl.Step(1) }), true
	case key.Matches(msg, k.Back):
		return nil, call(func() timeline.PlayerState { return tl.Step(-1) }), true
	case key.Matches(msg, k.Faster):
		return nil, call(tl.Faster), true
	case key.Matches(msg, k.Slower):
		return nil, call(tl.Slower), true
	case key.Matches(msg, k.Jump):
		return newJumpDialog(tl, now), textinput.Blink, true
	}
	return nil, nil, false
}

// replayStatus is the status bar of a replay: where it stands, always
// whole, then the last action's outcome and the timeline's keys, as many
// whole hints as fit and "…" for the rest.
func replayStatus(st *themes.Styles, s timeline.PlayerState, n notice, w int) string {
	segs := []draw.Seg{{Text: " REPLAY ", Style: st.Warning.Reverse(true)}, {Text: " " + s.String(), Style: st.Text}}
	segs = append(segs, noticeSegs(st, n)...)
	head := draw.Line(segs, nil)
	room := w - ansi.StringWidth(head) - 3
	hint := func(k, desc string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc)) }
	hints := []key.Binding{hint("space", "play/pause"), hint("←/→", "step"), hint("+/-", "speed"), hint("J", "jump")}
	h := helpModel(st, 0)
	shown, cut := fitBindings(hints, room-2, ansi.StringWidth(h.ShortSeparator))
	if len(shown) > 0 {
		head += st.Muted.Render(" │ ") + h.ShortHelpView(shown)
	}
	if cut {
		head += " " + st.Muted.Render("…")
	}
	return draw.Fit(head, w)
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
			s := d.tl.State()
			t, ok := parseJump(d.input.Value(), d.now, s.Start, s.End)
			if !ok {
				d.wrong = draw.Clean(d.input.Value(), 24)
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

// parseJump reads a clock time or an offset from now. A clock time is
// taken on the day of the recording (start to end) that puts it nearest
// the recording: the next day only for a recording that runs past
// midnight, so a time before the start stays before it (the player then
// starts from the beginning) rather than landing a day later, at the end.
func parseJump(s string, now, start, end time.Time) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
		d, err := time.ParseDuration(s)
		return now.Add(d), err == nil
	}
	for _, layout := range []string{"15:04:05.000", "15:04:05", "15:04"} {
		if c, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			day := start.Local()
			t := time.Date(day.Year(), day.Month(), day.Day(), c.Hour(), c.Minute(), c.Second(), c.Nanosecond(), time.Local)
			if next := t.AddDate(0, 0, 1); outside(next, start, end) < outside(t, start, end) {
				t = next // past midnight in a recording that spans it
			}
			return t, true
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// outside is how far t lies outside [start, end] (0 inside).
func outside(t, start, end time.Time) time.Duration {
	switch {
	case t.Before(start):
		return start.Sub(t)
	case t.After(end):
		return t.Sub(end)
	}
	return 0
}

func (d *jumpDialog) view(st *themes.Styles, screenW, screenH int) []string {
	w := dialogWidth(screenW)
	inner := w - 4
	s := d.tl.State()
	body := []string{
		st.Text.Render(draw.Clean("The recording runs from "+s.Start.Local().Format("15:04:05")+" to "+s.End.Local().Format("15:04:05")+".", inner)),
		st.Muted.Render(draw.Clean("A time (15:04:05, 15:04:05.000) or a move from "+d.now.Local().Format("15:04:05")+" (+30s, -5m).", inner)),
		"",
	}
	in := d.input
	in.Width = max(inner-4, 4)
	in.PromptStyle = st.Key
	in.PlaceholderStyle = st.Muted
	body = append(body, in.View())
	if d.wrong != "" {
		body = append(body, st.Warning.Render(draw.Clean("\""+d.wrong+"\" is not a time", inner)))
	} else {
		body = append(body, "")
	}
	body = append(body, keyHints(st, "enter", "jump", "esc", "cancel"))
	return dialogBox(st.Border, st.Title.Render("JUMP TO"), body, w, screenH)
}
