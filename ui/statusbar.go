package ui

import (
	"sort"
	"strconv"
	"time"

	"github.com/charmbracelet/x/ansi"

	"zklock/themes"
)

// notice is the outcome of the operator's last action, shown in the status
// bar until the next one.
type notice struct {
	text   string // safe
	failed bool
}

// statusView is the line above the footer: the operator's own locks, each
// in words ("HOLDING since ...", "LOST"), then the last action's outcome.
func statusView(st *themes.Styles, own map[string]OwnLock, n notice, readOnly bool, w int, now time.Time) string {
	paths := make([]string, 0, len(own))
	for p := range own {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var segs []seg
	for _, p := range paths {
		o := own[p]
		style := st.Own
		if o.State == OwnLost || o.State == OwnSuspended {
			style = st.Lost
		}
		text := " ★ " + cleanLeft(p, 40) + "  " + ownState(&o, now, nodeRef) + " "
		if o.Err != "" && o.State != OwnHolding {
			text += "(" + clean(o.Err, 60) + ") "
		}
		segs = append(segs, seg{text, style}, seg{" ", st.Text})
	}
	if len(own) == 0 {
		hint := " You hold no locks."
		if readOnly {
			hint += " Read-only: take, release, revoke and force are off."
		}
		segs = append(segs, seg{hint, st.Muted})
	}
	if n.text != "" {
		style := st.Text
		if n.failed {
			style = st.Danger
		}
		segs = append(segs, seg{" │ ", st.Muted}, seg{n.text, style})
	}
	return fit(line(segs, nil), w)
}

// nodeRef names a node by its sequence number when the name carries one.
func nodeRef(name string) string {
	if seq, ok := seqOf(name); ok {
		return "#" + strconv.Itoa(int(seq))
	}
	return clean(shortName(name), 24)
}

// narrationView is the demo's line telling the last step of the recipe.
func narrationView(st *themes.Styles, text string, w int) string {
	if text == "" {
		text = "Waiting for the next step of the recipe…"
	}
	label := st.Key.Render(" ▸ narration ")
	return fit(label+st.Text.Render(clean(text, max(w-ansi.StringWidth(label), 1))), w)
}
