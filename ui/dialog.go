package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"

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
	return box(border, title, "", lines, w, len(lines)+2)
}

// keyHints renders "enter delete · esc cancel".
func keyHints(st *themes.Styles, pairs ...string) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, st.Key.Render(pairs[i])+" "+st.Muted.Render(pairs[i+1]))
	}
	return strings.Join(parts, st.Muted.Render(" · "))
}

// detailsDialog shows everything known about one node, unabbreviated.
type detailsDialog struct {
	path string
	node model.Node
	ref  func(string) string
	now  time.Time
	// goneAt is when a snapshot first showed the node gone (zero while it
	// exists): the dialog then says so above what was known of it.
	goneAt time.Time
}

// follow looks for the dialog's node in snap: once it is gone, the dialog
// says so instead of passing the old node off as current.
func (d *detailsDialog) follow(snap *model.Snapshot, now time.Time) {
	if snap == nil || !d.goneAt.IsZero() {
		return
	}
	for _, q := range snap.Queues.All() {
		if q.Path != d.path {
			continue
		}
		for _, n := range q.Nodes.All() {
			if n.Name == d.node.Name && n.Session == d.node.Session {
				return
			}
		}
		if q.State != model.PathPresent {
			return // not read (stale, absent, no permission): unknown
		}
	}
	d.goneAt = now
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
		lines := wrap(value, max(inner-11, 8))
		if len(lines) == 0 {
			lines = []string{"-"}
		}
		for i, l := range lines {
			label := "           "
			if i == 0 {
				label = fit(name, 11)
			}
			body = append(body, st.Muted.Render(label)+st.Text.Render(l))
		}
	}
	if !d.goneAt.IsZero() {
		for _, l := range wrap("DELETED: this node is gone (seen at "+d.goneAt.Format(time.TimeOnly)+"); below is what was known of it.", inner) {
			body = append(body, st.Danger.Render(l))
		}
		body = append(body, "")
	}
	field("Lock", clean(d.path, 0))
	field("Node", clean(n.Name, 0))
	field("Sequence", strconv.Itoa(int(n.Seq)))
	field("Kind", n.Kind.String()+" ("+n.Recipe.String()+" recipe)")
	field("Role", n.Role.String()+" by sequence; believes "+n.Believes.String())
	if n.Watches() != "" {
		field("Watches", d.ref(n.Watches())+" "+clean(n.Watches(), 0)+" ("+n.Link.String()+")")
	}
	field("Session", session(n.Session))
	field("Client", clean(n.Client(), 0))
	data := model.Sanitize(n.Data(), 0)
	if int(n.DataLen) > len(n.Data()) {
		data += " … (" + strconv.Itoa(int(n.DataLen)) + " bytes in all)"
	}
	field("Data", data)
	field("Created", n.Ctime().Format(time.DateTime)+" ("+since(d.now, n.Ctime())+" ago)")
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
		left := fit(ansi.Truncate(out[row], x-gapL, ""), x-gapL) + strings.Repeat(" ", gapL)
		right := strings.Repeat(" ", gapR) + ansi.TruncateLeft(out[row], x+bw+gapR, "")
		out[row] = fit(left+fit(l, bw)+right, w)
	}
	return out
}
