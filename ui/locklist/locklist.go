package locklist

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/lipgloss"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// List is the left pane: every watched lock, sortable and filterable.
type List struct {
	draw.Pane
	Keys     Keys
	Rows     []Row
	Visible  []int // indices into rows, filtered and sorted
	Cursor   int   // index into visible
	Offset   int   // first visible row drawn
	Selected string
	Sort     SortMode
	// orders holds every row index in each sort order, sorted on first
	// use after a rebuild (listorder.go).
	orders    [SortModes][]int
	Filter    textinput.Model
	Filtering bool // the filter input has the keyboard
	// WaitingOnly shows only the parents with waiters (W).
	WaitingOnly bool
	// Gen counts the changes of rows, flags and held order; shown* say
	// what visible was filtered from, so that a filter that narrows
	// filters visible again (refresh).
	Gen          int
	shownGen     int
	shownSort    SortMode
	shownNeedle  string
	shownWaiting bool
	// prefix is the parent all paths share ("/locks/"), named once in the
	// title instead of on every row.
	prefix string
	// heldRank is the order drawn (each row's place in it, -1 for a row
	// new since, over heldN places): a list re-sorted by contention under
	// the cursor would send j to a row never seen there. Nil until the
	// first rows, and from a re-sort to the refresh that takes it
	// (listorder.go). movedAt is when the operator last moved through
	// the list, sortedAt when the order was last taken from the sort.
	heldRank []int32
	heldN    int
	movedAt  time.Time
	sortedAt time.Time
	// pathW is the widest lock name shown: a path after the prefix, a
	// system's label. The PATH column grows to it before the holder's
	// gets the rest.
	pathW int
	// Roots are where lock parents are looked for (Options.Roots).
	Roots []string
}

// Keys are the list's own keys, as the console's KeyMap binds them.
type Keys struct {
	Filter, Clear, Sort, Waiting key.Binding
}

// New is an empty list with its filter input ready.
func New() List {
	ti := textinput.New()
	ti.Prompt = " / "
	ti.Placeholder = "filter paths"
	ti.CharLimit = 256
	// A blinking cursor would redraw the screen twice a second for nothing.
	ti.Cursor.SetMode(cursor.CursorStatic)
	return List{Filter: ti}
}

// Update handles the list's keys (navigation, filter, sort, clear), the
// filter's editing while it has the keyboard, and the mouse (the root
// gives Y from the pane's top border). The root shows the selected
// lock's queue afterwards.
func (l List) Update(msg tea.Msg) (List, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if l.Filtering {
			return l.filterKey(msg)
		}
		k := l.Keys
		switch {
		case key.Matches(msg, k.Filter):
			l.Filtering = true
			return l, l.Filter.Focus()
		case key.Matches(msg, k.Clear):
			if l.Filter.Value() != "" {
				l.Filter.Reset()
				l.Refresh()
			}
		case key.Matches(msg, k.Sort):
			l.Sort = (l.Sort + 1) % SortModes
			l.Resort(l.Now) // the operator asked for this order
			l.Refresh()
		case key.Matches(msg, k.Waiting):
			l.WaitingOnly = !l.WaitingOnly
			l.Refresh()
		default:
			if d, ok := draw.NavDelta(msg, l.Nav, max(l.RowsFor(l.Height-2)-1, 1)); ok {
				l.hold(l.Now)
				l.move(d, l.RowsFor(l.Height-2))
			}
		}
	case tea.MouseMsg:
		if d, ok := draw.WheelDelta(msg); ok {
			l.hold(l.Now)
			l.move(d, l.RowsFor(l.Height-2))
		} else if i, ok := l.rowAt(msg.Y-1, l.Height-2); ok && draw.LeftClick(msg) {
			l.hold(l.Now)
			l.move(i-l.Cursor, l.RowsFor(l.Height-2))
		}
	default:
		if l.Filtering {
			// A text input's own messages.
			l.Filter, cmd = l.Filter.Update(msg)
		}
	}
	return l, cmd
}

// filterKey edits the filter; enter keeps it, esc drops it.
func (l List) filterKey(msg tea.KeyMsg) (List, tea.Cmd) {
	var cmd tea.Cmd
	switch msg.Type {
	case tea.KeyEnter:
		l.Filtering = false
		l.Filter.Blur()
	case tea.KeyEsc:
		l.Filtering = false
		l.Filter.Blur()
		l.Filter.Reset()
	default:
		l.Filter, cmd = l.Filter.Update(msg)
	}
	l.Refresh()
	return l, cmd
}

// KeepInView keeps the cursor on screen after a change of size or data.
func (l *List) KeepInView() { l.scroll(l.RowsFor(l.Height - 2)) }

// View draws the pane in its border, width x height cells.
func (l List) View() []string {
	title, foot := l.titles(l.St)
	return draw.Box(l.Border, title, foot, l.body(l.St, l.Width-2, l.Height-2, l.Now, l.Focused), l.Width, l.Height)
}

// Rebuild recomputes the rows from a snapshot, the configured paths and the
// operator's own locks (own: each path's lost or suspended), keeping the
// selection on the same path. A queue
// the same as in the last snapshot keeps its row: on a root of 100,000
// lock parents most of them are.
func (l *List) Rebuild(snap *model.Snapshot, paths []string, own map[string]bool) {
	var queues model.Queues
	if snap != nil {
		queues = snap.Queues
	}
	// A row whose queue is the same in this snapshot as in the one it was
	// built from (its q) is kept.
	prev := l.Rows
	// Fresh slices, not l.rows[:0]: an earlier Console value may still share
	// the old ones.
	rows := make([]Row, 0, queues.Len()+len(paths))
	pending := pendingRows(snap, paths)
	sorted := true
	j := 0
	var last *model.Queue
	for _, q := range queues.All() {
		if last != nil && last.Path >= q.Path {
			sorted = false
		}
		last = q
		for len(pending) > 0 && pending[0].Path < q.Path {
			rows, pending = append(rows, pending[0]), pending[1:]
		}
		for j < len(prev) && prev[j].Path < q.Path {
			j++
		}
		var r Row
		if j < len(prev) && prev[j].Path == q.Path && prev[j].q != nil && sameQueue(prev[j].q, q) {
			r = prev[j]
			r.own, r.ownLost, r.Marked, r.crossLock = false, false, false, false
		} else {
			r = summarize(q)
		}
		r.q = q
		rows = append(rows, r)
	}
	rows = append(rows, pending...)
	if !sorted {
		// Path order is what every sort falls back on (listorder.go).
		slices.SortFunc(rows, func(a, b Row) int { return strings.Compare(a.Path, b.Path) })
	}
	if l.heldRank != nil {
		l.heldRank = carryRanks(prev, rows, l.heldRank)
	}
	l.Rows = rows
	l.prefix = commonParent(l.Rows)
	l.pathW = 0
	prefixW := draw.Width(draw.Clean(l.prefix, 0))
	for i := range l.Rows {
		r := &l.Rows[i]
		if r.system != "" {
			l.pathW = max(l.pathW, draw.Width(r.system)) // a system's row is whole with its name alone
		} else {
			l.pathW = max(l.pathW, r.labelW-prefixW)
		}
	}
	l.reorder()
	for i := 0; i < len(l.Rows) && len(own) > 0; i++ {
		if lost, ok := own[l.Rows[i].Path]; ok {
			l.Rows[i].own, l.Rows[i].ownLost = true, lost
		}
	}
	// Flagged before the order is drawn: a lock new in a deadlock is
	// placed as dangerous from its first frame.
	l.flagDeadlocks(snap)
	l.Refresh()
}

// pendingRows are the rows of the configured paths the snapshot lacks,
// in path order.
func pendingRows(snap *model.Snapshot, paths []string) []Row {
	// Configured paths the snapshot lacks are looked up in it: a set of
	// every path would cost a snapshot of many locks more than all the
	// rows do.
	var pending []Row
	added := make(map[string]bool, len(paths))
	for _, p := range paths {
		if !added[p] && snap.Queue(p) == nil {
			added[p] = true
			label := draw.Clean(p, 0)
			pending = append(pending, Row{Path: p, label: label, lower: strings.ToLower(label), labelW: draw.Width(label), state: model.PathPending})
		}
	}
	slices.SortFunc(pending, func(a, b Row) int { return strings.Compare(a.Path, b.Path) })
	return pending
}

// MarkSession flags the rows of the locks where session id (0: none)
// owns a node in snap.
func (l *List) MarkSession(snap *model.Snapshot, id int64) {
	if id == 0 || snap == nil {
		return
	}
	has := map[string]bool{}
	for _, q := range snap.Queues.All() {
		for _, n := range q.Nodes.All() {
			if n.Session == id {
				has[q.Path] = true
				break
			}
		}
	}
	for i := range l.Rows {
		l.Rows[i].Marked = has[l.Rows[i].Path]
	}
}

// flagDeadlocks flags the locks of a cross-lock deadlock in snap (‼,
// sorted first, found by the filter "deadlock"), as a deadlock within one
// queue is. The caller refreshes.
func (l *List) flagDeadlocks(snap *model.Snapshot) {
	if snap == nil {
		return
	}
	in := map[string]bool{}
	for _, d := range snap.Deadlocks {
		if d.State == model.CycleDeadlock {
			for _, p := range d.Paths {
				in[p] = true
			}
		}
	}
	for i := range l.Rows {
		if r := &l.Rows[i]; in[r.Path] {
			r.crossLock = true
		}
	}
}

// titles are the pane's top and bottom border labels.
func (l *List) titles(st *themes.Styles) (title, foot string) {
	title = st.Title.Render("Locks")
	if l.prefix != "" {
		title += st.Muted.Render(" in ") + st.Title.Render(draw.Clean(l.prefix, 0))
	}
	count := strconv.Itoa(len(l.Rows))
	if len(l.Visible) != len(l.Rows) {
		count = strconv.Itoa(len(l.Visible)) + " of " + count
	}
	title += st.Muted.Render(" · " + count)
	foot = st.Muted.Render("sort: " + l.Sort.String())
	if l.WaitingOnly {
		foot += st.Muted.Render(" · waiting only")
	}
	if l.moving(l.Now) {
		foot += st.Muted.Render(" · held while you move")
	}
	return title, foot
}

func (l *List) syncSelected() {
	if len(l.Visible) == 0 {
		l.Cursor = 0
		return
	}
	l.Cursor = min(max(l.Cursor, 0), len(l.Visible)-1)
	l.Selected = l.Rows[l.Visible[l.Cursor]].Path
}

// Current is the row under the cursor, nil when the list is empty.
func (l *List) Current() *Row {
	if len(l.Visible) == 0 {
		return nil
	}
	return &l.Rows[l.Visible[l.Cursor]]
}

// move moves the cursor by delta rows and keeps it on screen.
func (l *List) move(delta, pageRows int) {
	l.Cursor += delta
	l.syncSelected()
	l.scroll(pageRows)
}

func (l *List) scroll(rows int) {
	rows = max(rows, 1)
	if l.Cursor < l.Offset {
		l.Offset = l.Cursor
	}
	if l.Cursor >= l.Offset+rows {
		l.Offset = l.Cursor - rows + 1
	}
	l.Offset = min(max(l.Offset, 0), max(len(l.Visible)-rows, 0))
}

// FilterShown says whether the filter line takes a row of the pane.
func (l *List) FilterShown() bool { return l.Filtering || l.Filter.Value() != "" }

// RowsFor is how many lock rows fit in a pane of inner height h.
func (l *List) RowsFor(h int) int {
	h-- // column header
	if l.FilterShown() {
		h--
	}
	return max(h, 1)
}

// list columns in priority order; listOrder is their display order.
const (
	lcMark = iota
	lcPath
	lcDepth
	lcHeld
	lcWait
	lcHolder
)

var listOrder = []int{lcMark, lcPath, lcHolder, lcDepth, lcWait, lcHeld}

// Columns lays out the list's columns in w cells for the rows drawn,
// from..to: each as wide as what it holds there (PATH as the widest
// path of all, so that it does not jump while scrolling); the holder's
// column takes what is left over.
func (l *List) Columns(st *themes.Styles, w, from, to int, now time.Time) []draw.Column {
	return draw.LayoutColumns(w, l.wantColumns(st, from, to, now), listOrder)
}

// Slack is what the list leaves blank in a pane of inner size w x h,
// and how many cells more it needs for every column whole (see slack).
func (l *List) Slack(st *themes.Styles, w, h int, now time.Time) (spare, short int) {
	from := l.Offset
	to := max(min(from+l.RowsFor(h), len(l.Visible)), from)
	return draw.Slack(w, l.wantColumns(st, from, to, now))
}

// wantColumns are the list's columns in priority order, each with what
// it needs to hold the rows from..to whole.
func (l *List) wantColumns(st *themes.Styles, from, to int, now time.Time) []draw.Column {
	want := []draw.Column{
		lcMark: {Title: "", Width: 2},
		// The lock's name whole before any number beside it, up to 16 cells.
		lcPath:   {Title: "PATH", Width: min(max(l.pathW, 10), 16), Need: max(l.pathW, 1)},
		lcDepth:  {Title: "QUEUE", Width: 5, Right: true, Need: 1},
		lcHeld:   {Title: "HELD", Width: 6, Right: true, Need: 1},
		lcWait:   {Title: "WAIT", Width: 6, Right: true, Need: 1},
		lcHolder: {Title: "HOLDER", Width: 10, Flex: true, Need: 1},
	}
	for i := from; i < to; i++ {
		r := &l.Rows[l.Visible[i]]
		for _, ci := range []int{lcDepth, lcHeld, lcWait, lcHolder} {
			text, _ := listCell(st, want[ci].Title, r, now)
			want[ci].Need = max(want[ci].Need, draw.Width(text))
		}
	}
	return want
}

// body draws the pane's inner lines (w x h).
func (l *List) body(st *themes.Styles, w, h int, now time.Time, focused bool) []string {
	lines := make([]string, 0, h)
	if l.FilterShown() {
		f := l.Filter
		f.Width = max(w-5, 1)
		f.PromptStyle = st.Key
		f.PlaceholderStyle = st.Muted
		lines = append(lines, draw.Fit(f.View(), w))
	}
	rows := h - len(lines) - 1 // the column header
	from, to := l.Offset, min(l.Offset+max(rows, 0), len(l.Visible))
	cols := l.Columns(st, w, from, to, now)
	var head []draw.Seg
	for i, c := range cols {
		t := c.Title
		if i > 0 {
			head = append(head, draw.Seg{Text: " ", Style: st.Column})
		}
		if c.Right {
			t = draw.FitRight(t, c.Width)
		}
		head = append(head, draw.Seg{Text: draw.Fit(t, c.Width), Style: st.Column})
	}
	lines = append(lines, draw.Line(head, nil))
	if len(l.Visible) == 0 {
		msg := "no lock paths: pass PATH... or --root"
		switch {
		case len(l.Roots) > 0 && len(l.Rows) == 0:
			msg = "no lock parents found below " + draw.Clean(strings.Join(l.Roots, ", "), 0) + " yet"
		case l.Filter.Value() != "":
			msg = "nothing matches the filter (esc clears)"
		case l.WaitingOnly && len(l.Rows) > 0:
			msg = "no lock has waiters (W shows all)"
		}
		lines = append(lines, st.Muted.Render(draw.Fit(" "+msg, w)))
		return lines
	}
	rows = h - len(lines)
	var segs []draw.Seg // one buffer for every row: a seg holds a whole style
	for i := l.Offset; i < len(l.Visible) && i < l.Offset+rows; i++ {
		r := &l.Rows[l.Visible[i]]
		var over *lipgloss.Style
		if i == l.Cursor {
			sel := st.Selection
			if !focused {
				sel = sel.UnsetBackground().UnsetReverse().Bold(true)
			}
			over = &sel
		}
		segs = l.rowSegs(segs[:0], st, r, cols, now, i == l.Cursor)
		lines = append(lines, draw.Line(segs, over))
	}
	return lines
}

// rowSegs appends row r's cells to segs.
func (l *List) rowSegs(segs []draw.Seg, st *themes.Styles, r *Row, cols []draw.Column, now time.Time, cursorRow bool) []draw.Seg {
	for i, c := range cols {
		if i > 0 {
			segs = append(segs, draw.Seg{Text: " ", Style: st.Text})
		}
		var text string
		style := st.Text
		switch c.Title {
		case "":
			segs = append(segs, rowFlag(st, r, cursorRow)...)
			continue
		case "PATH":
			text = draw.CleanLeft(r.Path[len(l.prefix):], c.Width)
			switch {
			case r.dangerous():
				style = st.Danger
			case r.state != model.PathPresent:
				style = st.Muted
			}
			if sys, pathW := systemCell(r.system, c.Width); sys != "" {
				// The system's name after the path ("…/election solr overseer"),
				// or alone where the path would not show.
				sysW := c.Width
				if pathW > 0 {
					segs = append(segs, draw.Seg{Text: draw.Fit(draw.CleanLeft(r.Path[len(l.prefix):], pathW), pathW) + " ", Style: style})
					sysW -= pathW + 1
				}
				segs = append(segs, draw.Seg{Text: draw.Fit(sys, sysW), Style: st.Muted})
				continue
			}
		default:
			text, style = listCell(st, c.Title, r, now)
		}
		if c.Right {
			text = draw.FitRight(text, c.Width)
		}
		segs = append(segs, draw.Seg{Text: draw.Fit(text, c.Width), Style: style})
	}
	return segs
}

// listCell is row r's text, safe and whole, in the column titled title
// (not PATH), and its style.
func listCell(st *themes.Styles, title string, r *Row, now time.Time) (string, lipgloss.Style) {
	switch title {
	case "HOLDER":
		text, style := holderCell(st, r)
		return draw.Clean(text, 0), style
	case "QUEUE":
		if r.state == model.PathPresent {
			return strconv.Itoa(r.Depth), st.Text
		}
	case "WAIT":
		return draw.Since(now, r.WaitSince), st.Waiter
	case "HELD":
		text := draw.Since(now, r.HoldSince)
		switch {
		case text == "":
		case r.holdBound == model.BoundEarliest:
			// Found holding: at most since its creation.
			text = "≤" + text
		case r.holdBound == model.BoundLatest:
			text = "≥" + text
		}
		return text, st.Holder
	}
	return "", st.Text
}

// rowFlag is a row's first two cells: the cursor's mark and the flag
// that says the most urgent thing about the lock (own and lost, marked,
// dangerous, own, warned).
func rowFlag(st *themes.Styles, r *Row, cursorRow bool) []draw.Seg {
	mark, flag, style := " ", " ", st.Text
	if cursorRow {
		mark = "❯"
	}
	switch {
	case r.own && r.ownLost:
		flag, style = "★", st.Lost
	case r.Marked:
		flag, style = "◆", st.Key
	case r.dangerous():
		flag, style = "‼", st.Danger
	case r.own:
		flag, style = "★", st.Own
	case r.warn:
		flag, style = "!", st.Warning
	}
	return []draw.Seg{{Text: mark, Style: st.Key}, {Text: flag, Style: style}}
}

// holderCell is the HOLDER column's text and style for r: its holder,
// "-" with none, or what keeps the queue from being read.
func holderCell(st *themes.Styles, r *Row) (string, lipgloss.Style) {
	switch r.state {
	case model.PathPresent:
		switch {
		case r.holders == 0:
			return "-", st.Muted
		case r.holders > 1 && r.dangerous():
			return r.Holder, st.Danger
		}
		return r.Holder, st.Holder
	case model.PathNoAuth:
		return "no access (NoAuth)", st.Danger
	case model.PathError:
		return "error", st.Danger
	case model.PathAbsent:
		if r.Holder != "" {
			return r.Holder, st.Muted // a single barrier's node gone: open
		}
	}
	return r.state.String(), st.Muted
}

// rowAt is the visible row drawn on line y inside a pane of inner height
// h (as view draws it), false for the filter line, the column header and
// the lines past the last row. For mouse.go.
func (l *List) rowAt(y, h int) (int, bool) {
	head := 1
	if l.FilterShown() {
		head++
	}
	i := l.Offset + y - head
	if y < head || y-head >= l.RowsFor(h) || i >= len(l.Visible) {
		return 0, false
	}
	return i, true
}
