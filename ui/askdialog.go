package ui

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// takeDialog asks whether to take a read or a write lock on a queue that
// holds read/write nodes.
type takeDialog struct{ path string }

func (d *takeDialog) update(msg tea.Msg, k dialogKeys) (dialog, intent, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return d, intent{}, nil
	}
	switch {
	case key.Matches(km, k.Cancel, k.No):
		return nil, intent{}, nil
	case key.Matches(km, k.Read):
		return nil, intent{kind: intentTake, path: d.path, lockKind: ordering.KindRead}, nil
	case key.Matches(km, k.Write):
		return nil, intent{kind: intentTake, path: d.path, lockKind: ordering.KindWrite}, nil
	}
	return d, intent{}, nil
}

func (d *takeDialog) view(st *themes.Styles, screenW, screenH int) []string {
	w := min(dialogWidth(screenW), 60)
	body := []string{
		st.Text.Render("This queue holds read/write nodes. Take"),
		st.Title.Render(draw.CleanLeft(d.path, w-6)),
		st.Text.Render("as a read lock (shared) or a write lock?"),
		"",
		keyHints(st, "r", "read", "w", "write", "esc", "cancel"),
	}
	return dialogBox(st.FocusBorder, st.Title.Render("TAKE"), body, w, screenH)
}

// confirmDialog is a yes/no question (quit while holding, revoke).
type confirmDialog struct {
	title string
	body  []string // safe, unstyled
	yes   string   // what y does, for the hint
	on    intent
	loud  bool
	// gone: a revoke's node went while the question was open; y does
	// nothing then.
	gone bool
}

// follow: a revoke follows its node (on.path, on.node of on.session);
// once it is gone, the question turns into a refusal.
func (d *confirmDialog) follow(snap *model.Snapshot, _ time.Time) dialog {
	if d.on.kind != intentRevoke || d.gone {
		return d
	}
	if _, gone := nodeNow(snap, d.on.path, d.on.node, d.on.session); !gone {
		return d
	}
	c := *d
	c.gone = true
	c.body = []string{draw.NodeRef(d.on.node) + " is already gone (released, or its session ended): nothing to revoke."}
	return &c
}

func (d *confirmDialog) update(msg tea.Msg, k dialogKeys) (dialog, intent, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return d, intent{}, nil
	}
	switch {
	case key.Matches(km, k.Cancel, k.No):
		return nil, intent{}, nil
	case key.Matches(km, k.Yes) && !d.gone:
		return nil, d.on, nil
	}
	return d, intent{}, nil
}

func (d *confirmDialog) view(st *themes.Styles, screenW, screenH int) []string {
	w := min(dialogWidth(screenW), 64)
	border := st.FocusBorder
	if d.loud {
		border = st.Danger
	}
	var body []string
	for _, p := range d.body {
		for _, l := range draw.Wrap(p, w-4) {
			body = append(body, st.Text.Render(l))
		}
	}
	if d.gone {
		body = append(body, "", keyHints(st, "esc", "close"))
		return dialogBox(st.Muted, st.Title.Render(d.title+": ALREADY GONE"), body, w, screenH)
	}
	body = append(body, "", keyHints(st, "y", d.yes, "n/esc", "cancel"))
	return dialogBox(border, st.Title.Render(d.title), body, w, screenH)
}
