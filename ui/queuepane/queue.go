package queuepane

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// Own is the operator's lock on the queue's path, as the pane shows
// it: its node ("" before it has one), whether it still waits, lost or
// suspended (with the error that said so), and its state in words at a
// time, nodes named as the pane names them.
type Own struct {
	Node      string
	Queued    bool
	Lost      bool // no longer held
	Suspended bool // connection lost: may no longer hold
	Err       string
	Says      func(now time.Time, ref func(name string) string) string
}

// Pane is the right pane: the selected lock's queue, one row per node
// in sequence order, each waiter followed by the watch it hangs on. Only the
// rows on screen are drawn, so a queue of 10,000 nodes scrolls as fast as
// one of ten.
type Pane struct {
	draw.Pane
	Snap     *model.Snapshot // the root's, for the staleness banner
	q        *model.Queue    // nil: nothing selected, or not read yet
	Path     string
	index    *NodeIndex // finds nodes of q by name
	Cursor   int        // node index
	Top      int        // first node drawn
	selected string     // node name under the cursor, kept across snapshots
	own      *Own       // the operator's lock on this path, if any

	// Derived once per snapshot, never per frame.
	summary []string        // "mutex", "curator", "4 nodes": the title's parts, most needed first
	rw      bool            // has read or write nodes: show KIND
	mixed   bool            // more than one recipe: show RECIPE
	seqW    int             // widest sequence number
	flagged map[string]bool // nodes named by a split, deadlock or mixed warning
	cycle   map[string]bool // nodes in a deadlock

	identities bool // a system names its participants: show IDENTITY

	Mark int64 // the session whose nodes are marked ◆ (sessions pane), 0 for none
}

// Update handles navigation keys and the mouse (the root gives Y from the
// pane's top border).
func (p Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	rows := p.rows()
	switch msg := msg.(type) {
	case tea.KeyMsg:
		// Nodes take up to two lines each.
		if d, ok := draw.NavDelta(msg, p.Nav, max(rows/2, 1)); ok {
			p.Move(d, rows)
		}
	case tea.MouseMsg:
		head := len(Banners(&p, p.St, p.Snap, p.Width-2, p.Height-2, p.Now)) + 1 // banners, column header
		if d, ok := draw.WheelDelta(msg); ok {
			p.Move(d, rows)
		} else if i, ok := p.nodeAt(msg.Y-1-head, rows); ok && draw.LeftClick(msg) {
			p.Move(i-p.Cursor, rows)
		}
	}
	return p, nil
}

// rows is how many lines the pane has for node rows now.
func (p *Pane) rows() int {
	return p.RowsFor(p.St, p.Snap, p.Width-2, p.Height-2, p.Now)
}

// KeepInView keeps the cursor's node on screen after a change of size or
// data.
func (p *Pane) KeepInView() { p.scroll(p.rows()) }

// View draws the pane in its border, width x height cells.
func (p Pane) View() []string {
	title, foot, lines := p.body(p.St, p.Snap, p.Width-2, p.Height-2, p.Now, p.Focused)
	return draw.Box(p.Border, title, foot, lines, p.Width, p.Height)
}

// Set shows queue q (nil for none), keeping the cursor on the same node
// when the queue is the same path. Its cost is one pass over q with no
// allocation per node, and nothing at all when q is the queue already
// shown (snapshots are immutable): a key that only moves the lock list's
// cursor or narrows its filter does not pay for a 100,000-node queue.
func (p *Pane) Set(q *model.Queue, path string, own *Own) {
	if q != nil && q == p.q && path == p.Path {
		p.own = own
		return
	}
	if path != p.Path {
		p.Cursor, p.Top, p.selected = 0, 0, ""
	}
	hint := p.Cursor
	p.q, p.Path, p.own = q, path, own
	p.index = nil
	p.summary, p.rw, p.mixed, p.seqW, p.identities = nil, false, false, 3, false
	p.flagged, p.cycle = nil, nil
	if q == nil {
		return
	}
	p.index = &NodeIndex{Nodes: q.Nodes}
	var kinds [8]bool // by ordering.Kind, a handful of values
	var recipes []ordering.Recipe
	var recipeNames []string
	minSeq, maxSeq := int32(0), int32(0)
	for _, n := range q.Nodes.All() {
		if k := int(n.Kind); k >= 0 && k < len(kinds) {
			kinds[k] = true
		}
		if len(recipes) == 0 || recipes[len(recipes)-1] != n.Recipe && !slices.Contains(recipes, n.Recipe) {
			recipes = append(recipes, n.Recipe)
			recipeNames = append(recipeNames, n.Recipe.String())
		}
		minSeq, maxSeq = min(minSeq, n.Seq), max(maxSeq, n.Seq)
		p.identities = p.identities || n.Identity() != ""
	}
	p.seqW = max(p.seqW, len(strconv.Itoa(int(minSeq))), len(strconv.Itoa(int(maxSeq))))
	p.rw = kinds[ordering.KindRead] || kinds[ordering.KindWrite]
	p.mixed = len(recipes) > 1
	var parts []string
	if q.Label() != "" {
		parts = append(parts, draw.Clean(q.Label(), 40)) // the system first: "solr overseer"
	}
	switch {
	case q.Type == model.TypeSemaphore:
		p.rw = true // KIND tells leases from the admission lock's nodes
		// How full it is matters more than the recipe or the node count.
		parts = append(parts, "semaphore", holdersText(q))
	case q.Type == model.TypeElection:
		parts = append(parts, "election")
	case !q.Type.Waits():
		parts = append(parts, model.RecipeSummary(q)) // a barrier, a queue...
	case p.rw:
		parts = append(parts, "read/write")
	case q.Nodes.Len() > 0:
		parts = append(parts, "mutex")
	}
	if len(recipeNames) > 0 {
		parts = append(parts, strings.Join(recipeNames, "+"))
	}
	p.summary = append(parts, draw.Plural(q.Nodes.Len(), "node"))
	p.flagged, p.cycle = flaggedNodes(q)
	// The node under the cursor is usually where it was, or one up when
	// the holder left.
	if i, ok := p.index.Find(p.selected, hint, hint-1); ok {
		p.Cursor = i
	}
	p.clampCursor()
}

// flaggedNodes are q's nodes named by a split-holders or deadlock warning,
// and those of a deadlock alone (the cycle); nil when there are none.
// Mixed recipes names every node: flagging them all would hide the ones
// that matter.
func flaggedNodes(q *model.Queue) (flagged, cycle map[string]bool) {
	for _, w := range q.Warnings() {
		if w.Code != model.WarnSplitHolders && w.Code != model.WarnDeadlock {
			continue
		}
		for _, n := range w.Nodes {
			if flagged == nil {
				flagged = map[string]bool{}
			}
			flagged[n] = true
			if w.Code == model.WarnDeadlock {
				if cycle == nil {
					cycle = map[string]bool{}
				}
				cycle[n] = true
			}
		}
	}
	return flagged, cycle
}

func (p *Pane) clampCursor() {
	n := p.Count()
	p.Cursor = min(max(p.Cursor, 0), max(n-1, 0))
	p.selected = ""
	if n > 0 {
		p.selected = p.q.Nodes.At(p.Cursor).Name
	}
}

// Count is how many nodes the queue shown has (0 when none is).
func (p *Pane) Count() int {
	if p.q == nil {
		return 0
	}
	return p.q.Nodes.Len()
}

// Node is the node under the cursor, nil when there is none.
func (p *Pane) Node() *model.Node {
	if p.Count() == 0 {
		return nil
	}
	return p.q.Nodes.At(p.Cursor)
}

// CopyTarget is the full path of the node under the cursor, for y.
func (p *Pane) CopyTarget() (raw, shown string, ok bool) {
	n := p.Node()
	if n == nil {
		return "", "", false
	}
	raw = p.Path
	if n.Name != "" { // a plain ephemeral lock's waiters own no node
		raw = path.Join(raw, n.Name)
	}
	return raw, draw.Clean(raw, 0), true
}

// isOwn says whether n is the operator's own node.
func (p *Pane) isOwn(n *model.Node) bool {
	return p.own != nil && p.own.Node != "" && p.own.Node == n.Name
}

// nodeLines is how many lines node i takes: waiters, nodes that disagree with
// the queue about holding, and the own node get a second line.
func (p *Pane) nodeLines(i int) int {
	n := p.q.Nodes.At(i)
	if n.Role == ordering.RoleWaiting || n.Believes != n.Role || p.isOwn(n) || silentHolder(n) {
		return 2
	}
	return 1
}

// Move moves the cursor by delta nodes and keeps it on screen in a rows
// area of the given height.
func (p *Pane) Move(delta, rows int) {
	p.Cursor += delta
	p.clampCursor()
	p.scroll(rows)
}

// scroll adjusts top so that the cursor's node is fully drawn. It only
// walks the nodes between top and the cursor: O(rows), not O(queue).
func (p *Pane) scroll(rows int) {
	if p.Count() == 0 {
		p.Top = 0
		return
	}
	rows = max(rows, 2)
	if p.Cursor < p.Top {
		p.Top = p.Cursor
	}
	if p.Cursor-p.Top > rows {
		p.Top = p.Cursor - rows
	}
	for {
		used := 0
		for i := p.Top; i <= p.Cursor; i++ {
			used += p.nodeLines(i)
		}
		if used <= rows || p.Top == p.Cursor {
			break
		}
		p.Top++
	}
	p.Top = min(p.Top, p.Count()-1)
}

// Ref is how a node is named in chains and banners: #sequence (a plain
// ephemeral lock's node, which has none, by its name).
func (p *Pane) Ref(name string) string {
	i, ok := p.index.Find(name)
	return p.refOf(name, i, ok)
}

// refOf is ref of a name already looked up: i and ok are what find said.
func (p *Pane) refOf(name string, i int, ok bool) string {
	if ok && p.q.Nodes.At(i).Lease {
		return leaseRef(p.q.Nodes.At(i))
	}
	if ok && p.q.Nodes.At(i).Recipe != ordering.RecipeEphemeral && p.q.Nodes.At(i).Part() != model.PartBarrier {
		return "#" + strconv.Itoa(int(p.q.Nodes.At(i).Seq))
	}
	if seq, ok := seqOf(name); ok {
		return "#" + strconv.Itoa(int(seq))
	}
	return draw.Clean(ShortName(name), 0) // whole: the line it is in cuts it with "…" if it must
}

// RowsFor is the number of lines left for node rows in a pane of inner
// height h once banners, the column header and the "other" line are drawn.
func (p *Pane) RowsFor(st *themes.Styles, snap *model.Snapshot, w, h int, now time.Time) int {
	used := len(Banners(p, st, snap, w, h, now)) + 1
	if p.q != nil && len(p.q.Other()) > 0 {
		used++
	}
	return max(h-used, 1)
}

// body draws the pane: its title, its bottom-edge label and inner lines.
func (p *Pane) body(st *themes.Styles, snap *model.Snapshot, w, h int, now time.Time, focused bool) (title, foot string, lines []string) {
	title = p.title(st, w-4) // as much as the border leaves a label (edge)
	lines = make([]string, 0, h)
	bans := Banners(p, st, snap, w, h, now)
	for _, b := range bans {
		lines = append(lines, b.style.Render(draw.Fit(draw.Clean(b.Text, w), w)))
	}
	if msg := p.EmptyText(); msg != nil {
		// Wrapped, not cut: these sentences are all the pane says.
		for _, m := range msg {
			for _, l := range draw.Wrap(m, w-2) {
				lines = append(lines, st.Muted.Render(draw.Fit(" "+l, w)))
			}
		}
		return title, "", lines
	}
	rows := h - len(lines) - 1 // the column header
	if len(p.q.Other()) > 0 {
		rows--
	}
	cols := p.Columns(st, w, p.Top, p.Drawn(rows), now)
	head, chainX := columnHeader(st, cols)
	lines = append(lines, head)
	last := p.Top - 1
	var segs []draw.Seg // one buffer for every row: a seg holds a whole style
	for i := p.Top; i < p.q.Nodes.Len() && rows > 0; i++ {
		n := p.q.Nodes.At(i)
		var over *lipgloss.Style
		switch {
		case i == p.Cursor:
			sel := st.Selection
			if !focused {
				sel = sel.UnsetBackground().UnsetReverse().Bold(true)
			}
			over = &sel
		case p.isOwn(n):
			own := st.Own
			over = &own
		}
		segs = p.rowSegs(segs[:0], st, n, i, cols, now)
		lines = append(lines, draw.Line(segs, over))
		rows--
		last = i
		if p.nodeLines(i) == 2 && rows > 0 {
			lines = append(lines, draw.Fit(strings.Repeat(" ", chainX)+p.chain(st, n, i, now, w-chainX), w))
			rows--
		}
	}
	for ; rows > 0; rows-- {
		lines = append(lines, "")
	}
	if len(p.q.Other()) > 0 {
		lines = append(lines, p.otherLine(st, w))
	}
	if p.Top > 0 || last < p.q.Nodes.Len()-1 {
		foot = st.Muted.Render(fmt.Sprintf("%d-%d of %d", p.Top+1, last+1, p.q.Nodes.Len()))
	}
	return title, foot, lines
}

// otherLine names, in w cells, the children of the lock that are not lock
// nodes (a few, then "…").
func (p *Pane) otherLine(st *themes.Styles, w int) string {
	names := make([]string, 0, min(len(p.q.Other()), 6))
	for i, o := range p.q.Other() {
		if i == 6 {
			names = append(names, "…")
			break
		}
		names = append(names, draw.Clean(o, 24))
	}
	return st.Muted.Render(draw.Fit(fmt.Sprintf(" + %s, not queued: %s", draw.Plural(len(p.q.Other()), "other child"), strings.Join(names, ", ")), w))
}

// title is the pane's top label in at most w cells: the path, cut from
// the left but never into its last element while any cell is left, then
// the summary's parts that fit, most needed first ("semaphore · holders
// 3/3" before the recipe and the node count).
func (p *Pane) title(st *themes.Styles, w int) string {
	const sep = " · "
	path := draw.Clean(p.Path, 0)
	last := path[strings.LastIndexByte(path, '/')+1:]
	// The path keeps its last element; the parts share what is left.
	room := w - ansi.StringWidth(last) - 1
	var kept []string
	for _, part := range p.summary {
		if need := ansi.StringWidth(sep + part); need <= room {
			kept = append(kept, part)
			room -= need
		}
	}
	rest := ""
	if len(kept) > 0 {
		rest = sep + strings.Join(kept, sep)
	}
	pathW := max(w-ansi.StringWidth(rest), 1)
	return st.Title.Render(draw.CleanLeft(p.Path, pathW)) + st.Muted.Render(rest)
}

// EmptyText explains a pane with no queue to draw, nil when there is one.
func (p *Pane) EmptyText() []string {
	switch {
	case p.Path == "":
		return []string{"No lock selected."}
	case p.q == nil || p.q.State == model.PathPending:
		return []string{"Reading " + draw.CleanLeft(p.Path, 60) + " …"}
	case p.q.State == model.PathAbsent && p.q.Type == model.TypeBarrier:
		return []string{"Barrier open: its node is gone, nobody waits on it.", "Watching it: it is set again when a client creates it."}
	case p.q.State == model.PathAbsent:
		return []string{draw.CleanLeft(p.Path, 60) + " does not exist.", "Watching it: the queue appears here when a client creates it."}
	case p.q.State == model.PathNoAuth:
		return []string{"No access to " + draw.CleanLeft(p.Path, 60) + " (NoAuth).", draw.Clean(p.q.Err(), 200), "Check --auth-file or the context's credentials."}
	case p.q.State == model.PathError:
		return []string{"Cannot read " + draw.CleanLeft(p.Path, 60) + ":", draw.Clean(p.q.Err(), 200)}
	case p.q.Nodes.Len() == 0 && len(p.q.Other()) == 0:
		return []string{"No lock nodes: nobody holds or waits for this lock."}
	}
	return nil
}

// chain is the line under a node: the watch it hangs on, what the servers
// say about it, and the operator's own state.
func (p *Pane) chain(st *themes.Styles, n *model.Node, i int, now time.Time, w int) string {
	var b strings.Builder
	switch {
	case n.Believes == ordering.RoleHolder && n.Role != ordering.RoleHolder:
		draw.Paint(&b, st.Danger, "└─ ‼ believes it HOLDS too (its "+n.Recipe.String()+" recipe sees no node before it)")
	case silentHolder(n):
		draw.Paint(&b, st.Danger, "└─ ⏸ "+n.Health().Text(now)+" (its client is paused or hung)")
	case n.Believes == ordering.RoleHolder, n.Role == ordering.RoleHolder && n.Watches() == "":
		// A holder: only the own or a silent node gets a second line. (First by
		// sequence but waiting by its own recipe, as Kazoo 2.8's read lock
		// behind a later writer, is a waiter: its watch is drawn below.)
	case n.Watches() == "":
		draw.Paint(&b, st.Muted, "└─ waits; the node it watches is unknown")
	case n.WatchesChildren():
		b.WriteString(childrenChain(st, n, w))
	default:
		draw.Paint(&b, st.Muted, "└─▶ watches ")
		// Most waiters watch the node just before them.
		target, inQueue := p.index.Find(n.Watches(), i-1)
		ref := p.refOf(n.Watches(), target, inQueue)
		draw.Paint(&b, st.Text, ref)
		if !inQueue {
			draw.Paint(&b, st.Muted, " (gone)")
		}
		switch n.Link {
		case model.LinkVerified:
			draw.Paint(&b, st.Verified, " ✓ verified")
		case model.LinkMissing:
			draw.Paint(&b, st.Missing, " ✗ MISSING: will never wake (no watch on the servers)")
		default:
			draw.Paint(&b, st.Inferred, " ? inferred")
		}
		if inQueue && p.q.Nodes.At(target).Herd {
			draw.Paint(&b, st.Warning, " ! herd on "+ref)
		}
		if p.cycle[n.Name] {
			draw.Paint(&b, st.Danger, " ⟲ DEADLOCK")
		}
	}
	if p.isOwn(n) {
		if b.Len() > 0 {
			b.WriteString("  ")
		}
		text := "◀ YOU"
		if !p.own.Queued {
			// A waiter's place is plain from its row; other states are not.
			text += ": " + p.own.Says(now, p.Ref)
		}
		draw.Paint(&b, st.Own, text)
	}
	return b.String()
}

// nodeAt is the node drawn on line y of the node rows (0: the line under
// the column header) in an area of rows lines, as view draws them from
// top; false past the last node. O(rows). For mouse.go.
func (p *Pane) nodeAt(y, rows int) (int, bool) {
	if y < 0 || y >= rows || p.q == nil {
		return 0, false
	}
	for i := p.Top; i < p.q.Nodes.Len(); i++ {
		h := p.nodeLines(i)
		if y < h {
			return i, true
		}
		y -= h
	}
	return 0, false
}
