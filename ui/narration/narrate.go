package narration

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"

	"github.com/zklock/zklock/model"
)

// Line is the demo's narration line: the latest step of the recipe
// on the screen's locks, told while on.
type Line struct {
	On   bool
	Text string
	path string // the lock the narration is about
}

// Follow tells the latest step of the recipe among events, before being
// the snapshot they happened after and after the one that shows them.
// The narration follows the queue on screen (selected): a step on it
// wins; a step elsewhere is told only while the narration is not yet
// about it, so that a room watching one queue is not told about another
// one mid-sentence. Only the step told is worked out.
func (n *Line) Follow(events []model.Change, before, after *model.Snapshot, selected string) {
	for _, only := range []bool{true, false} {
		if !only && n.Text != "" && n.path == selected {
			return
		}
		for i := len(events) - 1; i >= 0; i-- {
			e := events[i]
			if only && e.Path != selected {
				continue
			}
			if s := Narrate(e, before, after); s != "" {
				n.Text, n.path = s, e.Path
				return
			}
		}
	}
}

// View is the narration as drawn now, w cells wide: none when it is off.
func (n Line) View(st *themes.Styles, paused bool, w int) []string {
	if !n.On || w <= 0 {
		return nil
	}
	return Lines(st, n.Text, paused, w)
}

// Narrate tells, in one sentence for a room watching the demo, which step of
// the lock recipe an event shows: node created, children listed, watch set
// on the predecessor, predecessor deleted, successor notified, re-check,
// holds. before is the snapshot the event happened after, after the one
// that shows its result. "" when the event is not a recipe step.
func Narrate(ev model.Change, before, after *model.Snapshot) string {
	path := draw.Clean(ev.Path, 0) // whole: narrationLines wraps it, and cuts with "…" only past two lines
	me := draw.NodeRef(ev.Node.Name)
	switch {
	case ev.Kind == model.ChangeJoined:
		n := FindNode(after, ev.Path, ev.Node.Name)
		switch {
		case n == nil:
			return me + " created its ephemeral sequential node under " + path + "."
		case n.Role == ordering.RoleHolder:
			return me + " created its ephemeral sequential node and listed the children of " + path +
				": it is the lowest, so it holds the lock at once."
		case n.Believes == ordering.RoleHolder:
			// Split holders: its recipe cannot see the nodes before it.
			return me + " created its ephemeral sequential node and listed the children of " + path +
				": its " + n.Recipe.String() + " recipe sees none of the nodes before it, so it believes it holds the lock too: split holders."
		case n.WatchesChildren():
			return me + " created its ephemeral sequential node and listed the children of " + path +
				": no lease is free, so it sets a watch on the children of " + draw.Clean(n.Watches(), 0) + " and waits."
		case n.Watches() != "":
			return me + " created its ephemeral sequential node and listed the children of " + path +
				": it is not the lowest, so it sets a watch on " + draw.NodeRef(n.Watches()) + " and waits."
		}
		return me + " created its node under " + path + " and waits."
	case ev.Kind.Departure():
		var watchers []string
		if q := before.Queue(ev.Path); q != nil {
			for _, n := range q.Nodes.All() {
				if n.Watches() == ev.Node.Name {
					watchers = append(watchers, draw.NodeRef(n.Name))
				}
			}
		}
		s := me + " was deleted (" + ev.GoneWords() + ")"
		if len(watchers) == 0 {
			return s + "; nobody was watching it."
		}
		return s + ": ZooKeeper notifies its watcher " + strings.Join(watchers, ", ") + "."
	case ev.Kind == model.ChangeAcquired:
		// The console sees the deletion and the new holder, not the
		// holder's reads: a classic client lists the children again here,
		// zklock's lock core may already know the deleted node was the last
		// one in its way.
		return me + " was notified: no node it must wait for is left in " + path +
			", so it holds the lock (the recipe re-checks by listing the children again)."
	}
	return ""
}

// FindNode is the node called name in the queue at path, nil when s has
// no such node.
func FindNode(s *model.Snapshot, path, name string) *model.Node {
	q := s.Queue(path)
	if q == nil {
		return nil
	}
	for _, n := range q.Nodes.All() {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// Lines is the demo's narration: the last step of the recipe,
// on one line, or on two when one would cut the sentence (the end of it,
// "so it sets a watch on #43 and waits", is what the room is told). While
// the demo's contenders are paused it says so first, so the room knows
// why nothing moves.
func Lines(st *themes.Styles, text string, paused bool, w int) []string {
	if text == "" {
		text = "Waiting for the next step of the recipe…"
	}
	text = draw.Clean(text, 0)
	label := st.Key.Render(" ▸ narration ")
	if paused {
		label = st.Warning.Render(" ‖ PAUSED ") + st.Key.Render(" ▸ ")
	}
	room := max(w-ansi.StringWidth(label), 1)
	if ansi.StringWidth(text) <= room {
		return []string{draw.Fit(label+st.Text.Render(text), w)}
	}
	// Break at the last space that fits; the second line, indented a
	// little, is cut with an ellipsis if the sentence is longer still.
	first, rest := text, ""
	cut := ansi.Truncate(text, room, "")
	switch i := strings.LastIndexByte(cut, ' '); {
	case text[len(cut)] == ' ':
		first, rest = cut, text[len(cut)+1:] // the cut falls between words
	case i > 0:
		first, rest = cut[:i], cut[i+1:]+text[len(cut):]
	default:
		first, rest = cut, text[len(cut):]
	}
	return []string{
		draw.Fit(label+st.Text.Render(first), w),
		draw.Fit("   "+st.Text.Render(draw.Clean(rest, max(w-3, 1))), w),
	}
}
