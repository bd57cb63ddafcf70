package ui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// notice is the outcome of the operator's last action, shown in the status
// bar until the next one.
type notice struct {
	text   string // safe
	failed bool
	// take is the path of the take whose answer this is: the lock core's
	// next report of that lock replaces it.
	take string
}

// statusView is the line above the footer: the operator's own locks, each
// in words ("HOLDING since ...", "LOST"), then the last action's outcome.
func statusView(st *themes.Styles, own map[string]OwnLock, n notice, readOnly bool, rec string, w int, now time.Time) string {
	paths := make([]string, 0, len(own))
	for p := range own {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var segs []draw.Seg
	if rec != "" {
		// First, in the loud style: a recording runs until it is stopped.
		segs = append(segs, draw.Seg{Text: " ● REC " + draw.CleanLeft(rec, 40) + " ", Style: st.Lost}, draw.Seg{Text: " ", Style: st.Text})
	}
	for _, p := range paths {
		o := own[p]
		style := st.Own
		if o.State == OwnLost || o.State == OwnSuspended {
			style = st.Lost
		}
		text := " ★ " + draw.CleanLeft(p, 40) + "  " + ownState(&o, now, draw.NodeRef) + " "
		if o.Err != "" && o.State != OwnHolding {
			text += "(" + draw.Clean(o.Err, 60) + ") "
		}
		segs = append(segs, draw.Seg{Text: text, Style: style}, draw.Seg{Text: " ", Style: st.Text})
	}
	if len(own) == 0 {
		hint := " You hold no locks."
		if readOnly {
			hint += " Read-only: take, release, revoke and force are off."
		}
		segs = append(segs, draw.Seg{Text: hint, Style: st.Muted})
	}
	segs = append(segs, noticeSegs(st, n)...)
	return draw.Fit(draw.Line(segs, nil), w)
}

// noticeSegs is the last action's outcome after a separator, none when
// there is no notice.
func noticeSegs(st *themes.Styles, n notice) []draw.Seg {
	if n.text == "" {
		return nil
	}
	style := st.Text
	if n.failed {
		style = st.Danger
	}
	return []draw.Seg{{Text: " │ ", Style: st.Muted}, {Text: n.text, Style: style}}
}

// footerView is the keys k that apply now; help and quit are pinned
// right so that a narrow terminal never hides them. While the filter has
// the keyboard only its own keys are shown.
func footerView(st *themes.Styles, k KeyMap, filtering bool, w int) string {
	bs := k.ShortHelp()
	h := helpModel(st, 0)
	if filtering {
		// The filter has the keyboard: only its own keys do anything.
		keys := []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		}
		return draw.Fit(" "+st.Muted.Render("filtering: type a path part")+"  "+h.ShortHelpView(keys), w)
	}
	right := h.ShortHelpView(bs[len(bs)-2:]) + " "
	room := w - ansi.StringWidth(right) - 3
	shown, cut := fitBindings(bs[:len(bs)-2], room-2, ansi.StringWidth(h.ShortSeparator))
	left := " " + h.ShortHelpView(shown)
	if cut {
		left += " " + st.Muted.Render("…")
	}
	gap := max(w-ansi.StringWidth(left)-ansi.StringWidth(right), 1)
	return draw.Fit(left+strings.Repeat(" ", gap)+right, w)
}

// fitBindings keeps the enabled bindings that fit in width cells as help
// items ("key desc", sep between). bubbles/help truncates by itself, but
// when even its ellipsis does not fit it adds the item anyway and the line
// overflows; choosing the items here keeps the footer inside the screen.
func fitBindings(bs []key.Binding, width, sep int) (shown []key.Binding, cut bool) {
	used := 0
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		w := ansi.StringWidth(b.Help().Key) + 1 + ansi.StringWidth(b.Help().Desc)
		if used > 0 {
			w += sep
		}
		if used+w > width {
			return shown, true
		}
		used += w
		shown = append(shown, b)
	}
	return shown, false
}

// tooSmallView fills a w x h screen with a request for a bigger terminal.
func tooSmallView(st *themes.Styles, w, h int) []string {
	out := draw.Blank(w, h)
	msg := []string{"zklock needs", fmt.Sprintf("%dx%d or more", minWidth, minHeight), fmt.Sprintf("(now %dx%d)", w, h)}
	top := max((h-len(msg))/2, 0)
	for i, s := range msg {
		if top+i < len(out) {
			out[top+i] = st.Warning.Render(draw.Fit(draw.FitRight(s, (w+len(s))/2), w))
		}
	}
	return out
}
