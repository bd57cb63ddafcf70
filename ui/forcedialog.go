package ui

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// forceDialog confirms deleting someone else's lock node. Typing the
// node's sequence number, not pressing y, is the confirmation: the operator
// has to read which node they are about to delete. It follows the node
// through the snapshots: its role and hold time as they are now, and once
// the node is gone a refusal instead of the question.
type forceDialog struct {
	followedNode
	confirm typedConfirm
}

func newForceDialog(path string, n *model.Node, now time.Time) *forceDialog {
	return &forceDialog{followedNode: followedNode{path: path, node: *n, now: now}, confirm: newTypedConfirm(12, "sequence number", 16)}
}

// follow takes in the node as snap has it and the clock.
func (d *forceDialog) follow(snap *model.Snapshot, now time.Time) dialog {
	c := *d
	c.take(snap, now)
	return &c
}

func (d *forceDialog) update(msg tea.Msg, k dialogKeys) (dialog, intent, tea.Cmd) {
	if !d.goneAt.IsZero() {
		// Nothing left to delete: enter or esc closes, nothing is sent.
		if km, ok := msg.(tea.KeyMsg); ok && key.Matches(km, k.Confirm, k.Cancel) {
			return nil, intent{}, nil
		}
		return d, intent{}, nil
	}
	var ans answer
	var cmd tea.Cmd
	c := *d
	c.confirm, ans, cmd = d.confirm.Update(msg, k, d.matches)
	switch ans {
	case answerCancelled:
		return nil, intent{}, nil
	case answerConfirmed:
		return nil, intent{kind: intentForce, path: d.path, node: d.node.Name, session: d.node.Session}, nil
	}
	return &c, intent{}, cmd
}

// matches accepts the node's confirmation (model.Confirms): its sequence
// number, or the end of the name of a node without one.
func (d *forceDialog) matches(typed string) bool { return model.Confirms(d.node.Name, typed) }

// role is the node's place as the newest snapshot has it.
func (d *forceDialog) role() string {
	n := &d.node
	if n.Believes != ordering.RoleHolder && n.Role != ordering.RoleHolder {
		return "waiting in line"
	}
	if n.Since().IsZero() {
		return "HOLDER"
	}
	return "HOLDER for " + draw.Since(d.now, n.Since())
}

func (d *forceDialog) view(st *themes.Styles, screenW, screenH int) []string {
	w := dialogWidth(screenW)
	inner := w - 4
	n := &d.node
	what, seq := model.ConfirmToken(n.Name)
	seq = draw.Clean(seq, 0)
	var body []string
	field := func(name, value string, style lipgloss.Style) {
		lines := draw.Wrap(value, max(inner-10, 8))
		if len(lines) == 0 {
			lines = []string{"-"}
		}
		for i, l := range lines {
			label := "          "
			if i == 0 {
				label = draw.Fit(name, 10)
			}
			body = append(body, st.Muted.Render(label)+style.Render(l))
		}
	}
	gone := !d.goneAt.IsZero()
	field("Lock", draw.Clean(d.path, 0), st.Text)
	if gone {
		field("Node", draw.Clean(n.Name, 0), st.Muted)
	} else {
		field("Delete", draw.Clean(n.Name, 0), st.Danger)
	}
	field("Owner", "session "+draw.Session(n.Session), st.Text)
	client := draw.Clean(n.Client(), 0)
	if client == "" {
		client = "unknown (the servers do not tell)"
	}
	field("Client", client, st.Text)
	data := model.Sanitize(n.Data(), 0)
	if int(n.DataLen) > len(n.Data()) {
		data += "…"
	}
	field("Data", data, st.Text)
	if gone {
		body = append(body, "")
		for _, l := range draw.Wrap("#"+seq+" is already gone (seen at "+draw.Clock(d.goneAt)+"): released, or its session ended. Nothing to delete.", inner) {
			body = append(body, st.Warning.Render(l))
		}
		body = append(body, "", keyHints(st, "enter/esc", "close"))
		return dialogBox(st.Muted, st.Title.Render("FORCE-RELEASE #"+seq+": ALREADY GONE"), body, w, screenH)
	}
	field("Role", d.role(), st.Holder)
	body = append(body, "")
	risk := "RISK: the holder is not told and may still act."
	tight := screenH < 24
	if !tight {
		risk += " It goes on as if it held the lock while the next waiter takes it: two clients in the critical section."
	}
	guard := ""
	if !tight {
		guard = "The node is deleted only if its owner is still session " + draw.Session(n.Session) + "."
	}
	body = append(body, d.confirm.View(st, inner, risk, guard, "Type the "+what+" ", seq)...)
	body = append(body, keyHints(st, "enter", "delete node", "esc", "cancel"))
	return dialogBox(st.Danger, st.Danger.Render("FORCE-RELEASE #"+seq), body, w, screenH)
}
