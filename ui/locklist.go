package ui

import (
	"cmp"
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
)

// sortMode orders the lock list.
type sortMode int

const (
	// sortContention puts broken queues first, then the longest queues,
	// then the longest waits: where an on-call engineer looks first.
	sortContention sortMode = iota
	sortName
	sortHold // longest held first
	sortModes
)

func (s sortMode) String() string {
	switch s {
	case sortName:
		return "name"
	case sortHold:
		return "hold time"
	}
	return "contention"
}

// lockList is the left pane: every watched lock, sortable and filterable.
type lockList struct {
	pane
	rows     []lockRow
	visible  []int // indices into rows, filtered and sorted
	cursor   int   // index into visible
	offset   int   // first visible row drawn
	selected string
	sort     sortMode
	// orders holds every row index in each sort order, sorted on first
	// use after a rebuild: a key that changes the sort or the filter
	// then costs one pass over the rows, not a sort.
	orders    [sortModes][]int
	filter    textinput.Model
	filtering bool // the filter input has the keyboard
	// prefix is the parent all paths share ("/locks/"), named once in the
	// title instead of on every row.
	prefix string
	// heldRank is the order the operator is moving through (path to
	// place), kept until heldUntil: a list re-sorted by contention under
	// the cursor would send j back to a row just left. Nil when not held.
	heldRank  map[string]int
	heldUntil time.Time
	// pathW is the widest path shown (after the prefix): the PATH column
	// grows to it before the holder's gets the rest.
	pathW int
}

func newLockList() lockList {
	ti := textinput.New()
	ti.Prompt = " / "
	ti.Placeholder = "filter paths"
	ti.CharLimit = 256
	// A blinking cursor would redraw the screen twice a second for nothing.
	ti.Cursor.SetMode(cursor.CursorStatic)
	return lockList{filter: ti}
}

// Update handles the list's keys (navigation, filter, sort, clear), the
// filter's editing while it has the keyboard, and the mouse (the root
// gives Y from the pane's top border). The root shows the selected
// lock's queue afterwards.
func (l lockList) Update(msg tea.Msg) (lockList, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if l.filtering {
			return l.filterKey(msg)
		}
		k := l.keys
		switch {
		case key.Matches(msg, k.Filter):
			l.filtering = true
			return l, l.filter.Focus()
		case key.Matches(msg, k.Clear):
			if l.filter.Value() != "" {
				l.filter.Reset()
				l.refresh()
			}
		case key.Matches(msg, k.Sort):
			l.sort = (l.sort + 1) % sortModes
			l.heldRank = nil // the operator asked for this order
			l.refresh()
		default:
			if d, ok := navDelta(msg, k, max(l.rowsFor(l.height-2)-1, 1)); ok {
				l.hold(l.now)
				l.move(d, l.rowsFor(l.height-2))
			}
		}
	case tea.MouseMsg:
		if d, ok := wheelDelta(msg); ok {
			l.hold(l.now)
			l.move(d, l.rowsFor(l.height-2))
		} else if i, ok := l.rowAt(msg.Y-1, l.height-2); ok && leftClick(msg) {
			l.hold(l.now)
			l.move(i-l.cursor, l.rowsFor(l.height-2))
		}
	default:
		if l.filtering {
			// A text input's own messages.
			l.filter, cmd = l.filter.Update(msg)
		}
	}
	return l, cmd
}

// filterKey edits the filter; enter keeps it, esc drops it.
func (l lockList) filterKey(msg tea.KeyMsg) (lockList, tea.Cmd) {
	var cmd tea.Cmd
	switch msg.Type {
	case tea.KeyEnter:
		l.filtering = false
		l.filter.Blur()
	case tea.KeyEsc:
		l.filtering = false
		l.filter.Blur()
		l.filter.Reset()
	default:
		l.filter, cmd = l.filter.Update(msg)
	}
	l.refresh()
	return l, cmd
}

// keepInView keeps the cursor on screen after a change of size or data.
func (l *lockList) keepInView() { l.scroll(l.rowsFor(l.height - 2)) }

// View draws the pane in its border, width x height cells.
func (l lockList) View() []string {
	title, foot := l.titles(l.st)
	return box(l.border, title, foot, l.body(l.st, l.width-2, l.height-2, l.now, l.focused), l.width, l.height)
}

// rebuild recomputes the rows from a snapshot, the configured paths and the
// operator's own locks, keeping the selection on the same path.
func (l *lockList) rebuild(snap *model.Snapshot, paths []string, own map[string]OwnLock) {
	n := len(paths)
	if snap != nil {
		n += len(snap.Queues)
	}
	// Fresh slices, not l.rows[:0]: an earlier Model value may still share
	// the old ones.
	l.rows = make([]lockRow, 0, n)
	if snap != nil {
		for i := range snap.Queues {
			l.rows = append(l.rows, summarize(&snap.Queues[i]))
		}
	}
	// Configured paths the snapshot lacks are looked up in it: a set of
	// every path would cost a snapshot of many locks more than all the
	// rows do.
	added := make(map[string]bool, len(paths))
	for _, p := range paths {
		if !added[p] && snap.Queue(p) == nil {
			added[p] = true
			label := clean(p, 0)
			l.rows = append(l.rows, lockRow{path: p, label: label, lower: strings.ToLower(label), state: model.PathPending})
		}
	}
	l.prefix = commonParent(l.rows)
	l.pathW = 0
	for i := range l.rows {
		l.pathW = max(l.pathW, width(clean(l.rows[i].path[len(l.prefix):], 0)))
	}
	l.orders = [sortModes][]int{}
	for i := 0; i < len(l.rows) && len(own) > 0; i++ {
		if o, ok := own[l.rows[i].path]; ok {
			l.rows[i].own = &o
		}
	}
	l.refresh()
}

// markSession flags the rows of the locks where session id (0: none)
// owns a node in snap.
func (l *lockList) markSession(snap *model.Snapshot, id int64) {
	if id == 0 || snap == nil {
		return
	}
	has := map[string]bool{}
	for i := range snap.Queues {
		q := &snap.Queues[i]
		for _, n := range q.Nodes.All() {
			if n.Session == id {
				has[q.Path] = true
				break
			}
		}
	}
	for i := range l.rows {
		l.rows[i].marked = has[l.rows[i].path]
	}
}

// flagDeadlocks flags the locks of a cross-lock deadlock in snap (‼,
// sorted first, found by the filter "deadlock"), as a deadlock within one
// queue is; it says whether any row was flagged.
func (l *lockList) flagDeadlocks(snap *model.Snapshot) bool {
	if snap == nil {
		return false
	}
	in := map[string]bool{}
	for _, d := range snap.Deadlocks {
		if d.State == model.CycleDeadlock {
			for _, p := range d.Paths {
				in[p] = true
			}
		}
	}
	if len(in) == 0 {
		return false
	}
	for i := range l.rows {
		if r := &l.rows[i]; in[r.path] {
			r.danger = true
			r.codes = strings.TrimSpace(r.codes + " cross-lock-deadlock")
		}
	}
	l.refresh()
	return true
}

// titles are the pane's top and bottom border labels.
func (l *lockList) titles(st *themes.Styles) (title, foot string) {
	title = st.Title.Render("Locks")
	if l.prefix != "" {
		title += st.Muted.Render(" in ") + st.Title.Render(clean(l.prefix, 0))
	}
	count := strconv.Itoa(len(l.rows))
	if len(l.visible) != len(l.rows) {
		count = strconv.Itoa(len(l.visible)) + " of " + count
	}
	title += st.Muted.Render(" · " + count)
	foot = st.Muted.Render("sort: " + l.sort.String())
	if l.heldRank != nil {
		foot += st.Muted.Render(" · held while you move")
	}
	return title, foot
}

// refresh re-applies filter and sort and puts the cursor back on the
// selected path (or as near as the list allows).
func (l *lockList) refresh() {
	needle := strings.ToLower(strings.TrimSpace(l.filter.Value()))
	order := l.order(l.sort)
	if l.heldRank != nil {
		order = l.heldOrder(order)
	}
	l.visible = make([]int, 0, len(order))
	for _, i := range order {
		if needle == "" || strings.Contains(l.rows[i].lower, needle) || strings.Contains(l.rows[i].codes, needle) {
			l.visible = append(l.visible, i)
		}
	}
	l.cursor = 0
	for i, ri := range l.visible {
		if l.rows[ri].path == l.selected {
			l.cursor = i
			break
		}
	}
	l.syncSelected()
}

// order is every row's index in sort mode s. It is sorted once per
// rebuild and only checked afterwards (rows flagged after a rebuild, as
// a cross-lock deadlock flags them, may move). Paths are unique, so the
// order is total: sorted is the one order a stable sort of the filtered
// rows would give too.
func (l *lockList) order(s sortMode) []int {
	rows := l.rows
	cmpRows := func(a, b *lockRow) int { return strings.Compare(a.path, b.path) }
	switch s {
	case sortContention:
		cmpRows = func(a, b *lockRow) int {
			switch {
			case a.danger != b.danger:
				if a.danger {
					return -1
				}
				return 1
			case a.depth != b.depth:
				return cmp.Compare(b.depth, a.depth)
			case !a.waitSince.Equal(b.waitSince):
				if earlier(a.waitSince, b.waitSince) {
					return -1
				}
				return 1
			}
			return strings.Compare(a.path, b.path)
		}
	case sortHold:
		cmpRows = func(a, b *lockRow) int {
			if !a.holdSince.Equal(b.holdSince) {
				if earlier(a.holdSince, b.holdSince) {
					return -1
				}
				return 1
			}
			return strings.Compare(a.path, b.path)
		}
	}
	byRow := func(i, j int) int { return cmpRows(&rows[i], &rows[j]) }
	order := l.orders[s]
	if order != nil && slices.IsSortedFunc(order, byRow) {
		return order
	}
	// A fresh slice: an earlier Model value may share the old one.
	order = make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, byRow)
	l.orders[s] = order
	return order
}

// holdOrder is how long the list keeps its order after the operator last
// moved through it: long enough to read a row and press j again, short
// enough that a queue that grew moves up soon after they stop.
const holdOrder = 5 * time.Second

// hold keeps the order shown until holdOrder after now: the rows stay
// where the operator sees them while new data arrives.
func (l *lockList) hold(now time.Time) {
	if l.heldRank == nil {
		l.heldRank = make(map[string]int, len(l.visible))
		for i, ri := range l.order(l.sort) {
			l.heldRank[l.rows[ri].path] = i
		}
	}
	l.heldUntil = now.Add(holdOrder)
}

// release lets the order follow the sort again once the hold has run out
// at now; it says whether the list changed.
func (l *lockList) release(now time.Time) bool {
	if l.heldRank == nil || now.Before(l.heldUntil) {
		return false
	}
	l.heldRank, l.heldUntil = nil, time.Time{}
	l.refresh()
	return true
}

// heldOrder puts order (the sort's) in the held order: rows held keep
// their place, rows new since the hold come after them, sorted.
func (l *lockList) heldOrder(order []int) []int {
	out := slices.Clone(order)
	rank := func(i int) int {
		if r, ok := l.heldRank[l.rows[i].path]; ok {
			return r
		}
		return len(l.heldRank)
	}
	slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(rank(a), rank(b)) })
	return out
}

func (l *lockList) syncSelected() {
	if len(l.visible) == 0 {
		l.cursor = 0
		return
	}
	l.cursor = min(max(l.cursor, 0), len(l.visible)-1)
	l.selected = l.rows[l.visible[l.cursor]].path
}

// current is the row under the cursor, nil when the list is empty.
func (l *lockList) current() *lockRow {
	if len(l.visible) == 0 {
		return nil
	}
	return &l.rows[l.visible[l.cursor]]
}

// move moves the cursor by delta rows and keeps it on screen.
func (l *lockList) move(delta, pageRows int) {
	l.cursor += delta
	l.syncSelected()
	l.scroll(pageRows)
}

func (l *lockList) scroll(rows int) {
	rows = max(rows, 1)
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+rows {
		l.offset = l.cursor - rows + 1
	}
	l.offset = min(max(l.offset, 0), max(len(l.visible)-rows, 0))
}

// filterShown says whether the filter line takes a row of the pane.
func (l *lockList) filterShown() bool { return l.filtering || l.filter.Value() != "" }

// rowsFor is how many lock rows fit in a pane of inner height h.
func (l *lockList) rowsFor(h int) int {
	h-- // column header
	if l.filterShown() {
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

func listColumns(w, pathW int) []column {
	return layoutColumns(w, []column{
		lcMark:   {title: "", width: 2},
		lcPath:   {title: "PATH", width: 10, flex: true, need: pathW},
		lcDepth:  {title: "QUEUE", width: 5, right: true},
		lcHeld:   {title: "HELD", width: 6, right: true},
		lcWait:   {title: "WAIT", width: 6, right: true},
		lcHolder: {title: "HOLDER", width: 10, flex: true},
	}, listOrder)
}

// body draws the pane's inner lines (w x h).
func (l *lockList) body(st *themes.Styles, w, h int, now time.Time, focused bool) []string {
	lines := make([]string, 0, h)
	if l.filterShown() {
		f := l.filter
		f.Width = max(w-5, 1)
		f.PromptStyle = st.Key
		f.PlaceholderStyle = st.Muted
		lines = append(lines, fit(f.View(), w))
	}
	cols := listColumns(w, l.pathW)
	var head []seg
	for i, c := range cols {
		t := c.title
		if i > 0 {
			head = append(head, seg{" ", st.Column})
		}
		if c.right {
			t = fitRight(t, c.width)
		}
		head = append(head, seg{fit(t, c.width), st.Column})
	}
	lines = append(lines, line(head, nil))
	if len(l.visible) == 0 {
		msg := "no lock paths: pass PATH... or --root"
		if l.filter.Value() != "" {
			msg = "nothing matches the filter (esc clears)"
		}
		lines = append(lines, st.Muted.Render(fit(" "+msg, w)))
		return lines
	}
	rows := h - len(lines)
	var segs []seg // one buffer for every row: a seg holds a whole style
	for i := l.offset; i < len(l.visible) && i < l.offset+rows; i++ {
		r := &l.rows[l.visible[i]]
		var over *lipgloss.Style
		if i == l.cursor {
			sel := st.Selection
			if !focused {
				sel = sel.UnsetBackground().UnsetReverse().Bold(true)
			}
			over = &sel
		}
		segs = l.rowSegs(segs[:0], st, r, cols, now, i == l.cursor)
		lines = append(lines, line(segs, over))
	}
	return lines
}

// rowSegs appends row r's cells to segs.
func (l *lockList) rowSegs(segs []seg, st *themes.Styles, r *lockRow, cols []column, now time.Time, cursorRow bool) []seg {
	for i, c := range cols {
		if i > 0 {
			segs = append(segs, seg{" ", st.Text})
		}
		var text string
		style := st.Text
		switch c.title {
		case "":
			mark, flag := " ", " "
			if cursorRow {
				mark = "❯"
			}
			switch {
			case r.own != nil && (r.own.State == OwnLost || r.own.State == OwnSuspended):
				flag, style = "★", st.Lost
			case r.marked:
				flag, style = "◆", st.Key
			case r.danger:
				flag, style = "‼", st.Danger
			case r.own != nil:
				flag, style = "★", st.Own
			case r.warn:
				flag, style = "!", st.Warning
			}
			segs = append(segs, seg{mark, st.Key}, seg{flag, style})
			continue
		case "PATH":
			text = cleanLeft(r.path[len(l.prefix):], c.width)
			switch {
			case r.danger:
				style = st.Danger
			case r.state != model.PathPresent:
				style = st.Muted
			}
			if sys, pathW := systemCell(r.system, c.width); sys != "" {
				// The system's name after the path ("…/election solr overseer"),
				// or alone where the path would not show.
				sysW := c.width
				if pathW > 0 {
					segs = append(segs, seg{fit(cleanLeft(r.path[len(l.prefix):], pathW), pathW) + " ", style})
					sysW -= pathW + 1
				}
				segs = append(segs, seg{fit(sys, sysW), st.Muted})
				continue
			}
		case "HOLDER":
			switch r.state {
			case model.PathPresent:
				text = r.holder
				if r.holders == 0 {
					text, style = "-", st.Muted
				} else if r.holders > 1 && r.danger {
					style = st.Danger
				} else {
					style = st.Holder
				}
			case model.PathNoAuth:
				text, style = "no access (NoAuth)", st.Danger
			case model.PathError:
				text, style = "error", st.Danger
			default:
				text, style = r.state.String(), st.Muted
			}
			text = clean(text, c.width)
		case "QUEUE":
			if r.state == model.PathPresent {
				text = strconv.Itoa(r.depth)
			}
		case "WAIT":
			text, style = since(now, r.waitSince), st.Waiter
		case "HELD":
			text, style = since(now, r.holdSince), st.Holder
			switch {
			case text == "":
			case r.holdBound == model.BoundEarliest:
				// Found holding: at most since its creation.
				text = "≤" + text
			case r.holdBound == model.BoundLatest:
				text = "≥" + text
			}
		}
		if c.right {
			text = fitRight(text, c.width)
		}
		segs = append(segs, seg{fit(text, c.width), style})
	}
	return segs
}

// rowAt is the visible row drawn on line y inside a pane of inner height
// h (as view draws it), false for the filter line, the column header and
// the lines past the last row. For mouse.go.
func (l *lockList) rowAt(y, h int) (int, bool) {
	head := 1
	if l.filterShown() {
		head++
	}
	i := l.offset + y - head
	if y < head || y-head >= l.rowsFor(h) || i >= len(l.visible) {
		return 0, false
	}
	return i, true
}
