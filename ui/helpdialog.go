package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/themes"
)

// helpDialog shows every key of the console's mode (plain, read-only,
// demo, replay, sessions pane) in titled groups, as k9s and lazygit do;
// any key closes it. Groups are laid out side by side while they fit and
// wrap onto further rows otherwise, so that no key is cut at any size
// from 80x24 up.
type helpDialog struct {
	groups []helpGroup
}

// helpGroup is one titled column of the help.
type helpGroup struct {
	title string
	keys  []key.Binding
}

// helpGroups are the mode's keys by what they are for; mode holds the
// bindings the mode has (a read-only console has no actions, the plain
// console no presenter's keys), whatever is selected now.
func helpGroups(mode KeyMap, replay bool) []helpGroup {
	all := []helpGroup{
		{"Move", []key.Binding{mode.Up, mode.Down, mode.PageUp, mode.PageDown, mode.Home, mode.End}},
		{"View", []key.Binding{mode.Focus, mode.Enter, mode.Filter, mode.Clear, mode.Sort, mode.Waiting, mode.Copy, mode.Sessions, mode.Narrate, mode.Record}},
		{"Act on locks", []key.Binding{mode.Take, mode.Release, mode.Revoke, mode.Force}},
		{"Presenter", []key.Binding{mode.Pause, mode.Step, mode.Kill, mode.Split}},
	}
	if replay {
		rk := newReplayKeys()
		all = append(all, helpGroup{"Replay", []key.Binding{rk.Play, rk.Forward, rk.Back, rk.Faster, rk.Slower, rk.Jump}})
	}
	all = append(all, helpGroup{"General", []key.Binding{mode.Help, mode.Quit, mode.Abort}})
	var out []helpGroup
	for _, g := range all {
		var ks []key.Binding
		for _, k := range g.keys {
			if k.Enabled() && k.Help().Key != "" {
				ks = append(ks, k)
			}
		}
		if len(ks) > 0 {
			out = append(out, helpGroup{g.title, ks})
		}
	}
	return out
}

func (d *helpDialog) update(msg tea.Msg, _ dialogKeys) (dialog, intent, tea.Cmd) {
	if _, ok := msg.(tea.KeyMsg); ok {
		return nil, intent{}, nil
	}
	return d, intent{}, nil
}

// helpGap is the space between two groups side by side.
const helpGap = 3

func (d *helpDialog) view(st *themes.Styles, screenW, screenH int) []string {
	cols := make([][]string, len(d.groups))
	widths := make([]int, len(d.groups))
	need := 0
	for i, g := range d.groups {
		kw := 0
		for _, k := range g.keys {
			kw = max(kw, ansi.StringWidth(k.Help().Key))
		}
		col := []string{st.Title.Render(g.title)}
		w := ansi.StringWidth(g.title)
		for _, k := range g.keys {
			h := k.Help()
			line := st.Key.Render(h.Key) + strings.Repeat(" ", kw-ansi.StringWidth(h.Key)+1) + st.Text.Render(h.Desc)
			col = append(col, line)
			w = max(w, ansi.StringWidth(h.Key)+kw-ansi.StringWidth(h.Key)+1+ansi.StringWidth(h.Desc))
		}
		cols[i], widths[i] = col, w
		need += w + helpGap
	}
	// As wide as the groups need side by side, within the screen.
	w := max(min(screenW-4, need-helpGap+4), dialogWidth(screenW))
	inner := w - 4
	var body []string
	for start := 0; start < len(cols); {
		// As many groups as fit on this row (at least one).
		end, used := start+1, widths[start]
		for end < len(cols) && used+helpGap+widths[end] <= inner {
			used += helpGap + widths[end]
			end++
		}
		rows := 0
		for _, c := range cols[start:end] {
			rows = max(rows, len(c))
		}
		if start > 0 {
			body = append(body, "")
		}
		for r := range rows {
			var b strings.Builder
			for i := start; i < end; i++ {
				cell := ""
				if r < len(cols[i]) {
					cell = cols[i][r]
				}
				b.WriteString(cell)
				if i < end-1 {
					b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(cell)+helpGap))
				}
			}
			body = append(body, ansi.Truncate(b.String(), inner, "…"))
		}
		start = end
	}
	body = append(body, "", keyHints(st, "any key", "close"))
	return dialogBox(st.FocusBorder, st.Title.Render("KEYS"), body, w, screenH)
}

// helpModel is bubbles/help styled by the theme.
func helpModel(st *themes.Styles, w int) help.Model {
	h := help.New()
	h.Width = w
	h.ShortSeparator = " · "
	h.Styles = help.Styles{
		Ellipsis:       st.Muted,
		ShortKey:       st.Key,
		ShortDesc:      st.Muted,
		ShortSeparator: st.Muted,
		FullKey:        st.Key,
		FullDesc:       st.Text,
		FullSeparator:  st.Muted,
	}
	return h
}
