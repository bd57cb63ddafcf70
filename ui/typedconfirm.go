package ui

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// typedConfirm is the typed confirmation of a destructive dialog, shared
// by the node and the session force-release: the operator types a token
// (a sequence number, a session id's last hex digits) instead of pressing
// y, so that they read what they are about to delete. It owns the input
// and the last wrong entry; the dialog says what the token is.
type typedConfirm struct {
	input  textinput.Model
	wrong  string // the last entry that did not match, sanitized
	wrongW int    // how many cells of a wrong entry are shown
}

// answer is what a key did to a typedConfirm.
type answer int

const (
	answerTyping    answer = iota // still typing (or a wrong entry was cleared)
	answerCancelled               // esc
	answerConfirmed               // enter on a matching entry
)

func newTypedConfirm(limit int, placeholder string, wrongW int) typedConfirm {
	ti := textinput.New()
	ti.Prompt = "> "
	ti.CharLimit = limit
	ti.Placeholder = placeholder
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.Focus()
	return typedConfirm{input: ti, wrongW: wrongW}
}

// Update answers one message: esc cancels; enter confirms an entry
// matches accepts, or keeps a wrong one to show and clears the input;
// anything else edits the entry.
func (t typedConfirm) Update(msg tea.Msg, k dialogKeys, matches func(string) bool) (typedConfirm, answer, tea.Cmd) {
	if km, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(km, k.Cancel):
			return t, answerCancelled, nil
		case key.Matches(km, k.Confirm):
			if matches(t.input.Value()) {
				return t, answerConfirmed, nil
			}
			t.wrong = draw.Clean(t.input.Value(), t.wrongW)
			t.input.Reset()
			return t, answerTyping, nil
		}
	}
	var cmd tea.Cmd
	t.input, cmd = t.input.Update(msg)
	return t, answerTyping, cmd
}

// View is the end of the dialog, inner cells wide: the risk, the owner
// guard (none on a short screen), what to type (prompt, then token), the
// input, and the last wrong answer.
func (t typedConfirm) View(st *themes.Styles, inner int, risk, guard, prompt, token string) []string {
	var body []string
	for _, l := range draw.Wrap(risk, inner) {
		body = append(body, st.Danger.Render(l))
	}
	for _, l := range draw.Wrap(guard, inner) {
		body = append(body, st.Muted.Render(l))
	}
	body = append(body, "", st.Text.Render(prompt)+st.Danger.Render(token)+st.Text.Render(" to confirm:"))
	in := t.input
	in.Width = max(inner-4, 4)
	in.PromptStyle = st.Danger
	in.PlaceholderStyle = st.Muted
	body = append(body, in.View())
	if t.wrong != "" {
		body = append(body, st.Warning.Render(draw.Clean("\""+t.wrong+"\" is not "+token+": nothing deleted", inner)))
	} else {
		body = append(body, "")
	}
	return body
}
