package themes

import "github.com/charmbracelet/lipgloss"

// Styles are a Theme's elements as Lip Gloss styles. Build them once per
// theme (Theme.Styles) and pass them down; there are no package-level
// styles, so two consoles in one process can use different themes.
type Styles struct {
	Text        lipgloss.Style
	Muted       lipgloss.Style
	Title       lipgloss.Style
	Header      lipgloss.Style
	Column      lipgloss.Style
	Border      lipgloss.Style
	FocusBorder lipgloss.Style
	Selection   lipgloss.Style
	Holder      lipgloss.Style
	Waiter      lipgloss.Style
	Own         lipgloss.Style
	Lost        lipgloss.Style
	Stale       lipgloss.Style
	Warning     lipgloss.Style
	Danger      lipgloss.Style
	Alarm       lipgloss.Style
	Verified    lipgloss.Style
	Missing     lipgloss.Style
	Inferred    lipgloss.Style
	Key         lipgloss.Style
}

// Styles builds the Lip Gloss styles for t with the default renderer, which
// picks adaptive colors by the terminal's background and drops colors the
// terminal cannot show.
func (t Theme) Styles() Styles {
	return Styles{
		Text:        t.Text.Style(),
		Muted:       t.Muted.Style(),
		Title:       t.Title.Style(),
		Header:      t.Header.Style(),
		Column:      t.Column.Style(),
		Border:      t.Border.Style(),
		FocusBorder: t.FocusBorder.Style(),
		Selection:   t.Selection.Style(),
		Holder:      t.Holder.Style(),
		Waiter:      t.Waiter.Style(),
		Own:         t.Own.Style(),
		Lost:        t.Lost.Style(),
		Stale:       t.Stale.Style(),
		Warning:     t.Warning.Style(),
		Danger:      t.Danger.Style(),
		Alarm:       t.Alarm.Style(),
		Verified:    t.Verified.Style(),
		Missing:     t.Missing.Style(),
		Inferred:    t.Inferred.Style(),
		Key:         t.Key.Style(),
	}
}

// Style is s as a Lip Gloss style. Attributes left false are left unset,
// so that Inherit can layer a row's selection over a cell's own style.
func (s Spec) Style() lipgloss.Style {
	st := lipgloss.NewStyle()
	if !s.Fg.IsZero() {
		st = st.Foreground(s.Fg.terminal())
	}
	if !s.Bg.IsZero() {
		st = st.Background(s.Bg.terminal())
	}
	if s.Bold {
		st = st.Bold(true)
	}
	if s.Faint {
		st = st.Faint(true)
	}
	if s.Italic {
		st = st.Italic(true)
	}
	if s.Underline {
		st = st.Underline(true)
	}
	if s.Reverse {
		st = st.Reverse(true)
	}
	return st
}

func (c Color) terminal() lipgloss.TerminalColor {
	switch {
	case c.IsZero():
		return lipgloss.NoColor{}
	case c.Adaptive():
		return lipgloss.AdaptiveColor{Light: c.Light, Dark: c.Dark}
	}
	return lipgloss.Color(c.Dark)
}
