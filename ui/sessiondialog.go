package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/ui/draw"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/zklock/zklock/themes"
)

// forceTarget is one node a session force-release deletes.
type forceTarget struct {
	path string // the znode's parent (the queue's path, or a semaphore's dir)
	node string
	hold bool
}

// sessionForceDialog confirms deleting every node of one session. The
// operator types the session id's last four hex digits (or the whole id):
// like the sequence number of a single force-release, it makes them read
// which session they are about to cut off, and it is short enough to type
// during an incident. Each node is then deleted through the Backend's
// ForceRelease, with its owner check and its audit entry.
type sessionForceDialog struct {
	session int64
	client  string // sanitized
	targets []forceTarget
	holds   int
	confirm typedConfirm
	// gone counts the nodes that went while the dialog was open (dropped
	// from targets); when none is left there is nothing to confirm.
	gone int
}

// follow drops the targets snap shows gone: the dialog lists, counts and
// deletes only what is still there.
func (d *sessionForceDialog) follow(snap *model.Snapshot, _ time.Time) dialog {
	var left []forceTarget
	holds := 0
	for _, t := range d.targets {
		if _, gone := nodeNow(snap, t.path, t.node, d.session); gone {
			continue
		}
		left = append(left, t)
		if t.hold {
			holds++
		}
	}
	if len(left) == len(d.targets) {
		return d
	}
	c := *d
	c.gone += len(d.targets) - len(left)
	c.targets, c.holds = left, holds
	return &c
}

// newSessionForceDialog is nil when s owns no node that can be deleted (a
// plain ephemeral lock's waiter owns none).
func newSessionForceDialog(s *sessions.SessionInfo, _ time.Time) *sessionForceDialog {
	d := &sessionForceDialog{session: s.Session, client: draw.Clean(s.Client, 0)}
	// The waits go first: cut off from the locks it waits on, the session
	// cannot take one of them while its holds are being deleted.
	for _, n := range s.Waits {
		if n.Node != "" {
			d.targets = append(d.targets, forceTarget{path: parentOf(n), node: n.Node})
		}
	}
	for _, n := range s.Holds {
		if n.Node != "" {
			d.targets = append(d.targets, forceTarget{path: parentOf(n), node: n.Node, hold: true})
			d.holds++
		}
	}
	if len(d.targets) == 0 {
		return nil
	}
	d.confirm = newTypedConfirm(24, "last 4 hex digits", 24)
	return d
}

func parentOf(n sessions.SessionNode) string {
	if n.Parent != "" {
		return n.Parent
	}
	return n.Path
}

// tail is the confirmation asked for: the id's last four hex digits.
func (d *sessionForceDialog) tail() string {
	h := strconv.FormatUint(uint64(d.session), 16)
	return h[max(len(h)-4, 0):]
}

// matches accepts the last four hex digits or the whole id, with or
// without 0x, in either case.
func (d *sessionForceDialog) matches(typed string) bool {
	t := strings.ToLower(strings.TrimSpace(typed))
	h := strconv.FormatUint(uint64(d.session), 16)
	return t == d.tail() || t == h || t == "0x"+h
}

func (d *sessionForceDialog) update(msg tea.Msg, k dialogKeys) (dialog, intent, tea.Cmd) {
	if len(d.targets) == 0 {
		// Nothing left to delete: enter or esc closes, nothing is sent.
		if km, ok := msg.(tea.KeyMsg); ok && key.Matches(km, k.Confirm, k.Cancel) {
			return nil, intent{}, nil
		}
		return d, intent{}, nil
	}
	var ans answer
	var cmd tea.Cmd
	d.confirm, ans, cmd = d.confirm.Update(msg, k, d.matches)
	switch ans {
	case answerCancelled:
		return nil, intent{}, nil
	case answerConfirmed:
		return nil, intent{kind: intentForceSession, session: d.session, targets: d.targets}, nil
	}
	return d, intent{}, cmd
}

func (d *sessionForceDialog) view(st *themes.Styles, screenW, screenH int) []string {
	w := dialogWidth(screenW)
	inner := w - 4
	var body []string
	field := func(name, value string, style func(...string) string) {
		for i, l := range draw.Wrap(value, max(inner-10, 8)) {
			label := "          "
			if i == 0 {
				label = draw.Fit(name, 10)
			}
			body = append(body, st.Muted.Render(label)+style(l))
		}
	}
	client := d.client
	if client == "" {
		client = "unknown (the servers do not tell)"
	}
	field("Session", draw.Session(d.session), st.Text.Render)
	field("Client", client, st.Text.Render)
	if len(d.targets) == 0 {
		body = append(body, "")
		for _, l := range draw.Wrap("Every node of session "+draw.Session(d.session)+" is already gone (released, or the session ended). Nothing to delete.", inner) {
			body = append(body, st.Warning.Render(l))
		}
		body = append(body, "", keyHints(st, "enter/esc", "close"))
		return dialogBox(st.Muted, st.Title.Render("FORCE-RELEASE SESSION "+draw.Session(d.session)+": ALREADY GONE"), body, w, screenH)
	}
	tight := screenH < 24
	shown := len(d.targets)
	if tight {
		shown = min(shown, 2)
	} else {
		shown = min(shown, 6)
	}
	for i, t := range d.targets[:shown] {
		role := "waiting"
		if t.hold {
			role = "HOLDER"
		}
		label := ""
		if i == 0 {
			label = "Delete"
		}
		field(label, draw.CleanLeft(t.path, 40)+" "+draw.NodeRef(t.node)+" ("+role+")", st.Danger.Render)
	}
	if rest := len(d.targets) - shown; rest > 0 {
		field("", "and "+draw.Plural(rest, "more node"), st.Danger.Render)
	}
	if d.gone > 0 {
		field("", draw.Plural(d.gone, "node")+" already gone since this opened", st.Muted.Render)
	}
	body = append(body, "")
	var risk string
	switch d.holds {
	case 0:
		risk = "RISK: the session's client is not told: it goes on waiting for locks it is no longer queued for."
	case 1:
		risk = "RISK: the session's client is not told and may still act on the lock it holds."
		if !tight {
			risk += " The next waiter takes it: two clients in the critical section."
		}
	default:
		risk = "RISK: the session's client is not told and may still act on the " + strconv.Itoa(d.holds) + " locks it holds."
		if !tight {
			risk += " The next waiters take them: two clients in each critical section."
		}
	}
	guard := ""
	if !tight {
		guard = "Each node is deleted only if its owner is still session " + draw.Session(d.session) + "; each deletion is audited."
	}
	body = append(body, d.confirm.View(st, inner, risk, guard, "Type the session's last 4 hex digits ", d.tail())...)
	body = append(body, keyHints(st, "enter", "delete "+draw.Plural(len(d.targets), "node"), "esc", "cancel"))
	return dialogBox(st.Danger, st.Danger.Render("FORCE-RELEASE SESSION "+draw.Session(d.session)), body, w, screenH)
}
