package queuepane

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
	"github.com/zklock/zklock/ui/eventlog"
)

// loud says whether a warning gets the alarm banner.
func loud(code string) bool {
	return code == model.WarnSplitHolders || code == model.WarnDeadlock || code == model.WarnMixedRecipes ||
		code == model.WarnOverLimit
}

// Banners are the lines above the column header: stale data, the own lock
// lost, and every warning, wrapped to the pane's width w. Loud warnings
// also get their explanation when the pane is tall enough.
func Banners(p *Pane, st *themes.Styles, snap *model.Snapshot, w, h int, now time.Time) []bannerLine {
	var out []bannerLine
	add := func(style lipgloss.Style, first, text string, maxLines int) {
		for i, l := range WrapAtMost(text, max(w-3, 8), maxLines) {
			lead := "   "
			if i == 0 {
				lead = first
			}
			out = append(out, bannerLine{style, lead + l})
		}
	}
	if snap != nil && snap.Stale {
		add(st.Stale, " ! ", fmt.Sprintf("STALE: disconnected since %s (%s ago); this queue may have changed",
			draw.Clock(snap.Conn.Since), draw.Since(now, snap.Conn.Since)), 2)
	}
	if o := p.own; o != nil && (o.Lost || o.Suspended) {
		text := "YOUR LOCK IS LOST: you no longer hold it"
		if o.Suspended {
			text = "YOUR LOCK IS SUSPENDED: connection lost, you may no longer hold it"
		}
		if o.Err != "" {
			text += " (" + draw.Clean(o.Err, 0) + ")"
		}
		add(st.Lost, " ★ ", text, 2)
	}
	if p.q == nil {
		return out
	}
	for _, wn := range p.q.Warnings() {
		title, explain := describe(p, wn)
		msg := eventlog.NodeRefs(draw.Clean(wn.Message, 0))
		if msg == "" {
			msg = explain
		}
		if loud(wn.Code) {
			add(st.Alarm, " ‼ ", title, 2)
			if h >= 20 {
				add(st.Alarm, "   ", msg, 2)
			}
			continue
		}
		lines := 2
		if h >= 20 {
			lines = 4 // room to name what a warning is about, whole
		}
		add(st.Warning, " ! ", title+": "+msg, lines)
	}
	// Keep at least half the pane for the queue itself.
	if limit := max(h/2, 1); len(out) > limit {
		more := len(out) - limit + 1
		out = append(out[:limit-1], bannerLine{st.Warning, fmt.Sprintf(" ! %d more warning lines: see `zklock ls`", more)})
	}
	return out
}

// WrapAtMost wraps text to w cells in at most n lines; the last ends in
// "…" when the text goes on.
func WrapAtMost(text string, w, n int) []string {
	lines := draw.Wrap(text, w)
	if len(lines) <= n {
		return lines
	}
	lines = lines[:n]
	last := lines[n-1]
	if draw.Width(last) >= w {
		last = ansi.Truncate(last, w-1, "")
	}
	lines[n-1] = last + "…"
	return lines
}

type bannerLine struct {
	style lipgloss.Style
	Text  string // safe, unstyled
}

// describe names a warning and the nodes it concerns, by sequence number.
func describe(p *Pane, w model.Warning) (title, explain string) {
	refs := make([]string, 0, len(w.Nodes))
	for i, name := range w.Nodes {
		if i == 8 {
			refs = append(refs, fmt.Sprintf("+%d more", len(w.Nodes)-i))
			break
		}
		j, ok := p.index.Find(name)
		ref := p.refOf(name, j, ok)
		if ok && p.mixed {
			ref += " " + p.q.Nodes.At(j).Recipe.String()
		}
		refs = append(refs, ref)
	}
	nodes := strings.Join(refs, ", ")
	switch w.Code {
	case model.WarnSplitHolders:
		return "SPLIT HOLDERS: " + nodes + " each believe they hold this lock",
			"Their recipes cannot see each other's nodes; both critical sections can run at once."
	case model.WarnDeadlock:
		return "DEADLOCK: " + strings.Join(refs, " ⇄ ") + " wait on each other",
			"The watches form a cycle: none of these waiters will ever wake."
	case model.WarnMixedRecipes:
		return "MIXED RECIPES on this path: " + nodes,
			"Clients of different recipes do not exclude each other here."
	case model.WarnMissingWatch:
		return "MISSING WATCH on " + nodes, "the servers show no watch: this waiter will never wake"
	case model.WarnOverLimit:
		return "OVER LIMIT: " + holdersText(p.q) + ": " + nodes,
			"More clients hold a lease than the semaphore allows: a client's limit differs from the others'."
	case model.WarnHerd:
		return "HERD on " + nodes, "more watchers than the recipes predict"
	case model.WarnDuplicateParticipant:
		return "DUPLICATE PARTICIPANT: " + nodes,
			"One participant has nodes from two sessions (a reconnect left its old one): both may believe they lead."
	case model.WarnStale:
		return "STALE", "data may be out of date"
	}
	return strings.ToUpper(draw.Clean(w.Code, 20)) + " " + nodes, ""
}
