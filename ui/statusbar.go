package ui

import (
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
)

// notice is the outcome of the operator's last action, shown in the status
// bar until the next one.
type notice struct {
	text   string // safe
	failed bool
}

// statusView is the line above the footer: the operator's own locks, each
// in words ("HOLDING since ...", "LOST"), then the last action's outcome.
func statusView(st *themes.Styles, own map[string]OwnLock, n notice, readOnly bool, rec string, w int, now time.Time) string {
	paths := make([]string, 0, len(own))
	for p := range own {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var segs []seg
	if rec != "" {
		// First, in the loud style: a recording runs until it is stopped.
		segs = append(segs, seg{" ● REC " + cleanLeft(rec, 40) + " ", st.Lost}, seg{" ", st.Text})
	}
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
	segs = append(segs, noticeSegs(st, n)...)
	return fit(line(segs, nil), w)
}

// noticeSegs is the last action's outcome after a separator, none when
// there is no notice.
func noticeSegs(st *themes.Styles, n notice) []seg {
	if n.text == "" {
		return nil
	}
	style := st.Text
	if n.failed {
		style = st.Danger
	}
	return []seg{{" │ ", st.Muted}, {n.text, style}}
}

// nodeRef names a node by its sequence number when the name carries one.
func nodeRef(name string) string {
	return model.NodeRef(name, 24)
}

// narrationLines is the demo's narration: the last step of the recipe,
// on one line, or on two when one would cut the sentence (the end of it,
// "so it sets a watch on #43 and waits", is what the room is told). While
// the demo's contenders are paused it says so first, so the room knows
// why nothing moves.
func narrationLines(st *themes.Styles, text string, paused bool, w int) []string {
	if text == "" {
		text = "Waiting for the next step of the recipe…"
	}
	text = clean(text, 0)
	label := st.Key.Render(" ▸ narration ")
	if paused {
		label = st.Warning.Render(" ‖ PAUSED ") + st.Key.Render(" ▸ ")
	}
	room := max(w-ansi.StringWidth(label), 1)
	if ansi.StringWidth(text) <= room {
		return []string{fit(label+st.Text.Render(text), w)}
	}
	// Break at the last space that fits; the second line, indented a
	// little, is cut with an ellipsis if the sentence is longer still.
	first, rest := text, ""
	cut := ansi.Truncate(text, room, "")
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		first, rest = cut[:i], cut[i+1:]+text[len(cut):]
	} else {
		first, rest = cut, text[len(cut):]
	}
	return []string{
		fit(label+st.Text.Render(first), w),
		fit("   "+st.Text.Render(clean(rest, max(w-3, 1))), w),
	}
}
