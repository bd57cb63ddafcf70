package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/draw"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/themes"
)

// intent is what a dialog asks the root to do once it closes; the root
// turns it into a Backend call.
type intent struct {
	kind     intentKind
	path     string
	node     string
	session  int64
	lockKind ordering.Kind
	targets  []forceTarget // intentForceSession: the session's nodes, as confirmed
}

type intentKind int

const (
	intentNone intentKind = iota
	intentTake
	intentRevoke
	intentForce
	intentForceSession // every node of one session (sessiondialog.go)
	intentQuit
)

// verb is what the intent does, as the status bar says it.
func (k intentKind) verb() string {
	switch k {
	case intentTake:
		return "take"
	case intentRevoke:
		return "revoke"
	case intentForce, intentForceSession:
		return "force-release"
	case intentQuit:
		return "quit"
	}
	return "nothing"
}

// dialog is a modal box over the console. update returns the next dialog
// (nil once closed) and what to do.
type dialog interface {
	update(msg tea.Msg, k dialogKeys) (dialog, intent, tea.Cmd)
	view(st *themes.Styles, screenW, screenH int) []string
}

// dialogWidth is a dialog's outer width on a screen w cells wide.
func dialogWidth(w int) int { return max(min(w-4, 78), 20) }

// dialogBox frames body lines (already styled, at most w-4 cells wide). On
// a short screen blank lines go first, so that the question and its keys
// stay visible.
func dialogBox(border lipgloss.Style, title string, body []string, w, screenH int) []string {
	if len(body)+4 > screenH {
		var dense []string
		for _, b := range body {
			if b != "" {
				dense = append(dense, b)
			}
		}
		body = dense
	}
	pad := len(body)+4 <= screenH
	lines := make([]string, 0, len(body)+2)
	if pad {
		lines = append(lines, "")
	}
	for _, b := range body {
		lines = append(lines, " "+b)
	}
	if pad {
		lines = append(lines, "")
	}
	if over := len(lines) + 2 - screenH; over > 0 && screenH > 2 {
		lines = lines[over:] // keep the end: the prompt and the keys
	}
	return draw.Box(border, title, "", lines, w, len(lines)+2)
}

// keyHints renders "enter delete · esc cancel".
func keyHints(st *themes.Styles, pairs ...string) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, st.Key.Render(pairs[i])+" "+st.Muted.Render(pairs[i+1]))
	}
	return strings.Join(parts, st.Muted.Render(" · "))
}

// follower is a dialog about something in the snapshot. The root gives
// it every new snapshot and every tick of the clock, and shows the dialog
// it returns (a copy: an earlier Console may still share the old one), so
// that a dialog never says what is no longer so.
type follower interface {
	follow(snap *model.Snapshot, now time.Time) dialog
}

// followDialog hands m's open dialog, if it follows, snap and now.
func followDialog(m *Console) {
	if f, ok := m.dialog.(follower); ok {
		m.dialog = f.follow(m.snap, m.now)
	}
}

// nodeNow looks for node name of session under path in snap: the node as
// snap has it, or gone (true) once snap read the queue and it is not
// there (nor the parent); neither while snap cannot tell (stale, not
// read, no permission).
func nodeNow(snap *model.Snapshot, path, name string, session int64) (n *model.Node, gone bool) {
	if snap == nil || snap.Stale {
		return nil, false
	}
	q := snap.Queue(path)
	if q == nil {
		return nil, false
	}
	switch q.State {
	case model.PathPresent:
	case model.PathAbsent:
		return nil, true
	default:
		return nil, false
	}
	for _, n := range q.Nodes.All() {
		if n.Name == name {
			return n, n.Session != session
		}
	}
	return nil, true
}

// detailsDialog shows everything known about one node, unabbreviated,
// as the newest snapshot has it and aged by the clock.
type detailsDialog struct {
	followedNode
	ref func(string) string
}

// followedNode is the node a dialog is about, as the newest snapshot has
// it, and the clock; once a snapshot shows it gone, goneAt says when and
// the node stays what was last known of it.
type followedNode struct {
	path   string
	node   model.Node
	now    time.Time
	goneAt time.Time // zero while the node exists
}

// take takes in the node as snap has it and the clock.
func (f *followedNode) take(snap *model.Snapshot, now time.Time) {
	f.now = now
	if !f.goneAt.IsZero() {
		return
	}
	switch n, gone := nodeNow(snap, f.path, f.node.Name, f.node.Session); {
	case gone:
		f.goneAt = now
	case n != nil:
		f.node = *n
	}
}

// follow takes in the node as snap has it and the clock; once the node
// is gone, the dialog says so instead of passing the old node off as
// current.
func (d *detailsDialog) follow(snap *model.Snapshot, now time.Time) dialog {
	c := *d
	c.take(snap, now)
	return &c
}

func (d *detailsDialog) update(msg tea.Msg, _ dialogKeys) (dialog, intent, tea.Cmd) {
	if _, ok := msg.(tea.KeyMsg); ok {
		return nil, intent{}, nil
	}
	return d, intent{}, nil
}

func (d *detailsDialog) view(st *themes.Styles, screenW, screenH int) []string {
	w := dialogWidth(screenW)
	inner := w - 4
	n := &d.node
	var body []string
	field := func(name, value string) {
		lines := draw.Wrap(value, max(inner-11, 8))
		if len(lines) == 0 {
			lines = []string{"-"}
		}
		for i, l := range lines {
			label := "           "
			if i == 0 {
				label = draw.Fit(name, 11)
			}
			body = append(body, st.Muted.Render(label)+st.Text.Render(l))
		}
	}
	if !d.goneAt.IsZero() {
		for _, l := range draw.Wrap("DELETED: this node is gone (seen at "+d.goneAt.Format(time.TimeOnly)+"); below is what was known of it.", inner) {
			body = append(body, st.Danger.Render(l))
		}
		body = append(body, "")
	}
	field("Lock", draw.Clean(d.path, 0))
	field("Node", draw.Clean(n.Name, 0))
	field("Sequence", strconv.Itoa(int(n.Seq)))
	field("Kind", n.Kind.String()+" ("+n.Recipe.String()+" recipe)")
	field("Role", n.Role.String()+" by sequence; believes "+n.Believes.String())
	if n.Watches() != "" {
		field("Watches", d.ref(n.Watches())+" "+draw.Clean(n.Watches(), 0)+" ("+n.Link.String()+")")
	}
	field("Session", draw.Session(n.Session))
	field("Client", draw.Clean(n.Client(), 0))
	data := model.Sanitize(n.Data(), 0)
	if int(n.DataLen) > len(n.Data()) {
		data += " … (" + strconv.Itoa(int(n.DataLen)) + " bytes in all)"
	}
	field("Data", data)
	field("Created", n.Ctime().Format(time.DateTime)+" ("+draw.Since(d.now, n.Ctime())+" ago)")
	field("Version", strconv.Itoa(int(n.Version)))
	if n.Czxid != 0 {
		field("Token", strconv.FormatInt(n.Czxid, 10)+" (czxid: the fencing token of its holder)")
	}
	body = append(body, "", keyHints(st, "any key", "close"))
	return dialogBox(st.FocusBorder, st.Title.Render("NODE "+d.ref(n.Name)), body, w, screenH)
}

// overlay draws box centered over base (both lists of lines of the
// screen), with a blank cell either side of it: what it covers of a pane
// is cut mid-word, and a lone letter beside the box would read as part of
// it.
func overlay(base, box []string, w int) []string {
	if len(box) == 0 {
		return base
	}
	bw := 0
	for _, l := range box {
		bw = max(bw, ansi.StringWidth(l))
	}
	x := max((w-bw)/2, 0)
	y := max((len(base)-len(box))/2, 0)
	gapL, gapR := min(x, 1), min(max(w-x-bw, 0), 1)
	out := make([]string, len(base))
	copy(out, base)
	for i, l := range box {
		row := y + i
		if row >= len(out) {
			break
		}
		left := draw.Fit(ansi.Truncate(out[row], x-gapL, ""), x-gapL) + strings.Repeat(" ", gapL)
		right := strings.Repeat(" ", gapR) + ansi.TruncateLeft(out[row], x+bw+gapR, "")
		out[row] = draw.Fit(left+draw.Fit(l, bw)+right, w)
	}
	return out
}
