package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/zkview"
)

// intent is what a dialog asks the root to do once it closes; the root
// turns it into a Backend call.
type intent struct {
	kind     intentKind
	path     string
	node     string
	session  int64
	lockKind lockops.Kind
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
	input      textinput.Model
	wrong      string // the last entry that did not match, sanitized
}

func newForceDialog(path string, n *zkview.Node, now time.Time) *forceDialog {
	ti := textinput.New()
	ti.Prompt = "> "
	ti.CharLimit = 12
	ti.Placeholder = "sequence number"
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.Focus()
	role := "waiting in line"
	if n.Believes == lockops.RoleHolder || n.Role == lockops.RoleHolder {
		role = "HOLDER"
		if !n.Since.IsZero() {
			role += " for " + since(now, n.Since)
		}
	}
	data := zkview.Sanitize(n.Data, 0)
	if int(n.DataLen) > len(n.Data) {
		data += "…"
	}
	return &forceDialog{
		path: path, node: n.Name, seq: n.Seq, session: n.Session,
		client: clean(n.Client, 0), data: data, role: role, input: ti,
	}
}

func (d *forceDialog) update(msg tea.Msg, k dialogKeys) (dialog, intent, tea.Cmd) {
	if km, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(km, k.Cancel):
			return nil, intent{}, nil
		case key.Matches(km, k.Confirm):
			if d.matches(d.input.Value()) {
				return nil, intent{kind: intentForce, path: d.path, node: d.node, session: d.session}, nil
			}
			d.wrong = clean(d.input.Value(), 16)
			d.input.Reset()
			return d, intent{}, nil
		}
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(msg)
	return d, intent{}, cmd
}

// matches accepts the node's confirmation (zkview.Confirms): its sequence
// number, or the end of the name of a node without one.
func (d *forceDialog) matches(typed string) bool { return zkview.Confirms(d.node, typed) }

func (d *forceDialog) view(st *themes.Styles, screenW, screenH int) []string {
	w := dialogWidth(screenW)
	inner := w - 4
	what, seq := zkview.ConfirmToken(d.node)
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
	body = append(body, typedConfirm(st, inner, risk, guard, "Type the "+what+" ", seq, d.input, d.wrong)...)
	body = append(body, keyHints(st, "enter", "delete node", "esc", "cancel"))
	return dialogBox(st.Danger, st.Danger.Render("FORCE-RELEASE #"+seq), body, w, screenH)
}

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
		return nil, intent{kind: intentTake, path: d.path, lockKind: lockops.KindRead}, nil
	case key.Matches(km, k.Write):
		return nil, intent{kind: intentTake, path: d.path, lockKind: lockops.KindWrite}, nil
	}
	return d, intent{}, nil
}

func (d *takeDialog) view(st *themes.Styles, screenW, screenH int) []string {
	w := min(dialogWidth(screenW), 60)
	body := []string{
		st.Text.Render("This queue holds read/write nodes. Take"),
		st.Title.Render(cleanLeft(d.path, w-6)),
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
}

func (d *confirmDialog) update(msg tea.Msg, k dialogKeys) (dialog, intent, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return d, intent{}, nil
	}
	switch {
	case key.Matches(km, k.Cancel, k.No):
		return nil, intent{}, nil
	case key.Matches(km, k.Yes):
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
		for _, l := range wrap(p, w-4) {
			body = append(body, st.Text.Render(l))
		}
	}
	body = append(body, "", keyHints(st, "y", d.yes, "n/esc", "cancel"))
	return dialogBox(border, st.Title.Render(d.title), body, w, screenH)
}

// helpDialog shows every key of the console's mode (plain, read-only,
// demo, replay, sessions pane) in titled groups, as k9s and lazygit do;
// any key closes it. Groups are laid out side by side while they fit and
// wrap onto further rows otherwise, so that no key is cut at any size
// from 80x24 up.
type helpDialog struct {
	groups []helpGroup
}

// helpGroup is one titled column of the help.
type helpGroup struct {
	title string
	keys  []key.Binding
}

// helpGroups are the mode's keys by what they are for; mode holds the
// bindings the mode has (a read-only console has no actions, the plain
// console no presenter's keys), whatever is selected now.
func helpGroups(mode KeyMap, replay bool) []helpGroup {
	all := []helpGroup{
		{"Move", []key.Binding{mode.Up, mode.Down, mode.PageUp, mode.PageDown, mode.Home, mode.End}},
		{"View", []key.Binding{mode.Focus, mode.Enter, mode.Filter, mode.Clear, mode.Sort, mode.Copy, mode.Sessions, mode.Narrate, mode.Record}},
		{"Act on locks", []key.Binding{mode.Take, mode.Release, mode.Revoke, mode.Force}},
		{"Presenter", []key.Binding{mode.Pause, mode.Step, mode.Kill, mode.Split}},
	}
	if replay {
		rk := newReplayKeys()
		all = append(all, helpGroup{"Replay", []key.Binding{rk.Play, rk.Forward, rk.Back, rk.Faster, rk.Slower, rk.Jump}})
	}
	all = append(all, helpGroup{"General", []key.Binding{mode.Help, mode.Quit, mode.Abort}})
	var out []helpGroup
	for _, g := range all {
		var ks []key.Binding
		for _, k := range g.keys {
			if k.Enabled() && k.Help().Key != "" {
				ks = append(ks, k)
			}
		}
		if len(ks) > 0 {
			out = append(out, helpGroup{g.title, ks})
		}
	}
	return out
}

func (d *helpDialog) update(msg tea.Msg, _ dialogKeys) (dialog, intent, tea.Cmd) {
	if _, ok := msg.(tea.KeyMsg); ok {
		return nil, intent{}, nil
	}
	return d, intent{}, nil
}

// helpGap is the space between two groups side by side.
const helpGap = 3

func (d *helpDialog) view(st *themes.Styles, screenW, screenH int) []string {
	cols := make([][]string, len(d.groups))
	widths := make([]int, len(d.groups))
	need := 0
	for i, g := range d.groups {
		kw := 0
		for _, k := range g.keys {
			kw = max(kw, ansi.StringWidth(k.Help().Key))
		}
		col := []string{st.Title.Render(g.title)}
		w := ansi.StringWidth(g.title)
		for _, k := range g.keys {
			h := k.Help()
			line := st.Key.Render(h.Key) + strings.Repeat(" ", kw-ansi.StringWidth(h.Key)+1) + st.Text.Render(h.Desc)
			col = append(col, line)
			w = max(w, ansi.StringWidth(h.Key)+kw-ansi.StringWidth(h.Key)+1+ansi.StringWidth(h.Desc))
		}
		cols[i], widths[i] = col, w
		need += w + helpGap
	}
	// As wide as the groups need side by side, within the screen.
	w := max(min(screenW-4, need-helpGap+4), dialogWidth(screenW))
	inner := w - 4
	var body []string
	for start := 0; start < len(cols); {
		// As many groups as fit on this row (at least one).
		end, used := start+1, widths[start]
		for end < len(cols) && used+helpGap+widths[end] <= inner {
			used += helpGap + widths[end]
			end++
		}
		rows := 0
		for _, c := range cols[start:end] {
			rows = max(rows, len(c))
		}
		if start > 0 {
			body = append(body, "")
		}
		for r := range rows {
			var b strings.Builder
			for i := start; i < end; i++ {
				cell := ""
				if r < len(cols[i]) {
					cell = cols[i][r]
				}
				b.WriteString(cell)
				if i < end-1 {
					b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(cell)+helpGap))
				}
			}
			body = append(body, ansi.Truncate(b.String(), inner, "…"))
		}
		start = end
	}
	body = append(body, "", keyHints(st, "any key", "close"))
	return dialogBox(st.FocusBorder, st.Title.Render("KEYS"), body, w, screenH)
}

// helpModel is bubbles/help styled by the theme.
func helpModel(st *themes.Styles, w int) help.Model {
	h := help.New()
	h.Width = w
	h.ShortSeparator = " · "
	h.Styles = help.Styles{
		Ellipsis:       st.Muted,
		ShortKey:       st.Key,
		ShortDesc:      st.Muted,
		ShortSeparator: st.Muted,
		FullKey:        st.Key,
		FullDesc:       st.Text,
		FullSeparator:  st.Muted,
	}
	return h
}

// detailsDialog shows everything known about one node, unabbreviated.
type detailsDialog struct {
	path string
	node zkview.Node
	ref  func(string) string
	now  time.Time
	// goneAt is when a snapshot first showed the node gone (zero while it
	// exists): the dialog then says so above what was known of it.
	goneAt time.Time
}

// follow looks for the dialog's node in snap: once it is gone, the dialog
// says so instead of passing the old node off as current.
func (d *detailsDialog) follow(snap *zkview.Snapshot, now time.Time) {
	if snap == nil || !d.goneAt.IsZero() {
		return
	}
	for _, q := range snap.Queues {
		if q.Path != d.path {
			continue
		}
		for _, n := range q.Nodes.All() {
			if n.Name == d.node.Name && n.Session == d.node.Session {
				return
			}
		}
		if q.State != zkview.PathPresent {
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
	if n.Watches != "" {
		field("Watches", d.ref(n.Watches)+" "+clean(n.Watches, 0)+" ("+n.Link.String()+")")
	}
	field("Session", session(n.Session))
	field("Client", clean(n.Client, 0))
	data := zkview.Sanitize(n.Data, 0)
	if int(n.DataLen) > len(n.Data) {
		data += " … (" + strconv.Itoa(int(n.DataLen)) + " bytes in all)"
	}
	field("Data", data)
	field("Created", n.Ctime.Format(time.DateTime)+" ("+since(d.now, n.Ctime)+" ago)")
	field("Version", strconv.Itoa(int(n.Version)))
	if n.Czxid != 0 {
		field("Token", strconv.FormatInt(n.Czxid, 10)+" (czxid: the fencing token of its holder)")
	}
	body = append(body, "", keyHints(st, "any key", "close"))
	return dialogBox(st.FocusBorder, st.Title.Render("NODE "+d.ref(n.Name)), body, w, screenH)
}

// overlay draws box centered over base (both lists of lines of the screen).
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
	out := make([]string, len(base))
	copy(out, base)
	for i, l := range box {
		row := y + i
		if row >= len(out) {
			break
		}
		left := fit(ansi.Truncate(out[row], x, ""), x)
		right := ansi.TruncateLeft(out[row], x+bw, "")
		out[row] = fit(left+fit(l, bw)+right, w)
	}
	return out
}

// typedConfirm is the end of a destructive dialog, shared by the node and
// the session force-release: the risk, the owner guard (none on a short
// screen), what to type (prompt, then token), the input, and the last
// wrong answer.
func typedConfirm(st *themes.Styles, inner int, risk, guard, prompt, token string, in textinput.Model, wrong string) []string {
	var body []string
	for _, l := range wrap(risk, inner) {
		body = append(body, st.Danger.Render(l))
	}
	for _, l := range wrap(guard, inner) {
		body = append(body, st.Muted.Render(l))
	}
	body = append(body, "", st.Text.Render(prompt)+st.Danger.Render(token)+st.Text.Render(" to confirm:"))
	in.Width = max(inner-4, 4)
	in.PromptStyle = st.Danger
	in.PlaceholderStyle = st.Muted
	body = append(body, in.View())
	if wrong != "" {
		body = append(body, st.Warning.Render(clean("\""+wrong+"\" is not "+token+": nothing deleted", inner)))
	} else {
		body = append(body, "")
	}
	return body
}
