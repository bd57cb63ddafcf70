package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
)

// forceDialog confirms deleting someone else's lock node. Typing the
// node's sequence number, not pressing y, is the confirmation: the operator
// has to read which node they are about to delete.
type forceDialog struct {
	path, node string
	seq        int32
	session    int64
	client     string // sanitized
	data       string // sanitized
	role       string
	confirm    typedConfirm
}

func newForceDialog(path string, n *model.Node, now time.Time) *forceDialog {
	role := "waiting in line"
	if n.Believes == ordering.RoleHolder || n.Role == ordering.RoleHolder {
		role = "HOLDER"
		if !n.Since().IsZero() {
			role += " for " + since(now, n.Since())
		}
	}
	data := model.Sanitize(n.Data(), 0)
	if int(n.DataLen) > len(n.Data()) {
		data += "…"
	}
	return &forceDialog{
		path: path, node: n.Name, seq: n.Seq, session: n.Session,
		client: clean(n.Client(), 0), data: data, role: role, confirm: newTypedConfirm(12, "sequence number", 16),
	}
}

func (d *forceDialog) update(msg tea.Msg, k dialogKeys) (dialog, intent, tea.Cmd) {
	var ans answer
	var cmd tea.Cmd
	d.confirm, ans, cmd = d.confirm.Update(msg, k, d.matches)
	switch ans {
	case answerCancelled:
		return nil, intent{}, nil
	case answerConfirmed:
		return nil, intent{kind: intentForce, path: d.path, node: d.node, session: d.session}, nil
	}
	return d, intent{}, cmd
}

// matches accepts the node's confirmation (model.Confirms): its sequence
// number, or the end of the name of a node without one.
func (d *forceDialog) matches(typed string) bool { return model.Confirms(d.node, typed) }

func (d *forceDialog) view(st *themes.Styles, screenW, screenH int) []string {
	w := dialogWidth(screenW)
	inner := w - 4
	what, seq := model.ConfirmToken(d.node)
	seq = clean(seq, 0)
	var body []string
	field := func(name, value string, style lipgloss.Style) {
		lines := wrap(value, max(inner-10, 8))
		if len(lines) == 0 {
			lines = []string{"-"}
		}
		for i, l := range lines {
			label := "          "
			if i == 0 {
				label = fit(name, 10)
			}
			body = append(body, st.Muted.Render(label)+style.Render(l))
		}
	}
	field("Lock", clean(d.path, 0), st.Text)
	field("Delete", clean(d.node, 0), st.Danger)
	field("Owner", "session "+session(d.session), st.Text)
	client := d.client
	if client == "" {
		client = "unknown (the servers do not tell)"
	}
	field("Client", client, st.Text)
	field("Data", d.data, st.Text)
	field("Role", d.role, st.Holder)
	body = append(body, "")
	risk := "RISK: the holder is not told and may still act."
	tight := screenH < 24
	if !tight {
		risk += " It goes on as if it held the lock while the next waiter takes it: two clients in the critical section."
	}
	guard := ""
	if !tight {
		guard = "The node is deleted only if its owner is still session " + session(d.session) + "."
	}
	body = append(body, d.confirm.View(st, inner, risk, guard, "Type the "+what+" ", seq)...)
	body = append(body, keyHints(st, "enter", "delete node", "esc", "cancel"))
	return dialogBox(st.Danger, st.Danger.Render("FORCE-RELEASE #"+seq), body, w, screenH)
}
