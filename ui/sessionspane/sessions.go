package sessionspane

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/ui/draw"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/zklock/zklock/themes"
)

// Pane is the sessions view (key w): the cycles of waits over
// sessions, then every session that owns a node in the watched queues,
// the one blocking most first; below the table, the selected row spelled
// out. Its table is built (sessions.SessionsOf) when the pane is shown, once
// per snapshot: a few milliseconds for 10,000 sessions, never per frame.
type Pane struct {
	draw.Pane
	Mark     int64 // the marked session, flagged ◆ in the table
	Sessions *sessions.Sessions
	from     *model.Snapshot // what ss was built from
	Cursor   int             // row: the deadlocks first, then the sessions
	top      int
	selected string // the selected row's identity, kept across snapshots
}

// Update moves the cursor with the navigation keys and the wheel, and
// selects the row clicked (the root gives Y from the body's top line:
// the table's border and column header come first).
func (p Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	rows := p.TableRows(p.Height)
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if d, ok := draw.NavDelta(msg, p.Nav, rows); ok {
			p.Move(d, rows)
		}
	case tea.MouseMsg:
		if d, ok := draw.WheelDelta(msg); ok {
			p.Move(d, rows)
		} else if draw.LeftClick(msg) {
			p.click(msg.Y)
		}
	}
	return p, nil
}

// click selects the table row drawn on line y of the pane.
func (p *Pane) click(y int) {
	_, detail := p.detail(p.St, p.Width-2, p.Now)
	th, _ := p.heights(p.Height, len(detail))
	rows := max(th-3, 1)
	r := y - 2
	if r < 0 || r >= rows {
		return
	}
	// The first row drawn, as the view works it out.
	first := min(max(p.top, p.Cursor-rows+1), p.Cursor)
	if first+r >= p.Count() {
		return
	}
	p.top = first
	p.Move(first+r-p.Cursor, rows)
}

// View draws the table box over the detail box, width x height cells.
func (p Pane) View() []string {
	return p.body(p.St, p.Border, p.Width, p.Height, p.Now, p.Mark)
}

// Set rebuilds the table from snap when it is a new snapshot, keeping the
// cursor on the same row.
func (p *Pane) Set(snap *model.Snapshot) {
	if p.Sessions != nil && snap == p.from {
		return
	}
	p.from = snap
	if snap == nil {
		p.Sessions = &sessions.Sessions{}
	} else {
		p.Sessions = sessions.SessionsOf(snap)
	}
	for i := range p.Count() {
		if p.rowKey(i) == p.selected {
			p.Cursor = i
			break
		}
	}
	p.Clamp()
}

// Count is how many rows the table has: the cycles, then the sessions.
func (p *Pane) Count() int {
	if p.Sessions == nil {
		return 0
	}
	return len(p.Sessions.Deadlocks) + len(p.Sessions.List)
}

// Clamp keeps the cursor on a row and remembers the row it is on.
func (p *Pane) Clamp() {
	p.Cursor = min(max(p.Cursor, 0), max(p.Count()-1, 0))
	p.selected = ""
	if p.Count() > 0 {
		p.selected = p.rowKey(p.Cursor)
	}
}

// rowKey names row i across snapshots: a cycle by its sessions, a
// session by its id.
func (p *Pane) rowKey(i int) string {
	if i < len(p.Sessions.Deadlocks) {
		return fmt.Sprint("cycle", p.Sessions.Deadlocks[i].Sessions)
	}
	return "session " + strconv.FormatInt(p.Sessions.List[i-len(p.Sessions.Deadlocks)].Session, 16)
}

// Deadlock is the selected cycle, nil when a session is selected.
func (p *Pane) Deadlock() *model.Deadlock {
	if p.Sessions == nil || p.Cursor >= len(p.Sessions.Deadlocks) {
		return nil
	}
	return &p.Sessions.Deadlocks[p.Cursor]
}

// Session is the selected session, nil when a cycle is selected.
func (p *Pane) Session() *sessions.SessionInfo {
	if p.Sessions == nil || p.Cursor < len(p.Sessions.Deadlocks) || p.Cursor >= p.Count() {
		return nil
	}
	return &p.Sessions.List[p.Cursor-len(p.Sessions.Deadlocks)]
}

// Move moves the cursor by delta rows, keeping it in a table of rows.
func (p *Pane) Move(delta, rows int) {
	p.Cursor += delta
	p.Clamp()
	rows = max(rows, 1)
	if p.Cursor < p.top {
		p.top = p.Cursor
	}
	if p.Cursor >= p.top+rows {
		p.top = p.Cursor - rows + 1
	}
	p.top = min(max(p.top, 0), max(p.Count()-rows, 0))
}

// heights splits a body of h lines between the table and the detail box,
// which takes what its content needs, between 5 lines and half the body.
func (p *Pane) heights(h, content int) (table, detail int) {
	detail = min(max(content+2, 5), h/2)
	return h - detail, detail
}

// TableRows is how many rows the table shows at least in a body of h
// lines (for paging; the view keeps the cursor in sight whatever it is).
func (p *Pane) TableRows(h int) int {
	t, _ := p.heights(h, h)
	return max(t-3, 1) // borders and the column header
}

// session columns in priority order; sessionOrder is their display order.
const (
	scMark = iota
	scSession
	scBlocks
	scOldest
	scHolds
	scWaits
	scClient
	scDirect
)

var sessionOrder = []int{scMark, scSession, scClient, scBlocks, scDirect, scOldest, scHolds, scWaits}

func sessionColumns(w int) []draw.Column {
	return draw.LayoutColumns(w, []draw.Column{
		scMark:    {Title: "", Width: 2},
		scSession: {Title: "SESSION", Width: 18},
		scBlocks:  {Title: "BLOCKS", Width: 6, Right: true},
		scOldest:  {Title: "OLDEST", Width: 6, Right: true},
		scHolds:   {Title: "HOLDS", Width: 14, Flex: true},
		scWaits:   {Title: "WAITS ON", Width: 14, Flex: true},
		scClient:  {Title: "CLIENT", Width: 21},
		scDirect:  {Title: "DIRECT", Width: 6, Right: true},
	}, sessionOrder)
}

// body draws the table box over the detail box, w x h cells.
func (p *Pane) body(st *themes.Styles, border lipgloss.Style, w, h int, now time.Time, mark int64) []string {
	dTitle, dLines := p.detail(st, w-2, now)
	th, dh := p.heights(h, len(dLines))
	title := st.Title.Render("Sessions") + st.Muted.Render(" · "+draw.Plural(len(p.Sessions.List), "session"))
	if n := len(p.Sessions.Deadlocks); n > 0 {
		title += st.Muted.Render(" · ") + st.Danger.Render(draw.Plural(n, "cycle"))
	}
	inner := w - 2
	cols := sessionColumns(inner)
	var head []draw.Seg
	for i, c := range cols {
		if i > 0 {
			head = append(head, draw.Seg{Text: " ", Style: st.Column})
		}
		t := c.Title
		if c.Right {
			t = draw.FitRight(t, c.Width)
		}
		head = append(head, draw.Seg{Text: draw.Fit(t, c.Width), Style: st.Column})
	}
	lines := []string{draw.Line(head, nil)}
	rows := max(th-3, 1)
	if p.Count() == 0 {
		lines = append(lines, st.Muted.Render(draw.Fit(" No session holds or waits on the watched locks.", inner)))
	}
	// The cursor stays on screen whatever the size (View cannot keep it).
	top := min(max(p.top, p.Cursor-rows+1), p.Cursor)
	last := top - 1
	for i := top; i < p.Count() && i < top+rows; i++ {
		var over *lipgloss.Style
		if i == p.Cursor {
			sel := st.Selection
			over = &sel
		}
		if i < len(p.Sessions.Deadlocks) {
			lines = append(lines, draw.Line([]draw.Seg{{Text: draw.Fit(p.cycleRow(&p.Sessions.Deadlocks[i], i == p.Cursor, inner, now), inner), Style: cycleStyle(st, p.Sessions.Deadlocks[i].State)}}, over))
		} else {
			s := &p.Sessions.List[i-len(p.Sessions.Deadlocks)]
			lines = append(lines, draw.Line(p.sessionSegs(st, s, cols, i == p.Cursor, s.Session == mark, now), over))
		}
		last = i
	}
	foot := ""
	if top > 0 || last < p.Count()-1 {
		foot = st.Muted.Render(fmt.Sprintf("%d-%d of %d", top+1, last+1, p.Count()))
	}
	out := draw.Box(border, title, foot, lines, w, th)
	return append(out, draw.Box(st.Border, dTitle, "", dLines, w, dh)...)
}

func cycleStyle(st *themes.Styles, state string) lipgloss.Style {
	if state == model.CycleDeadlock {
		return st.Alarm
	}
	return st.Warning
}

// cycleRow is a cycle as one table row.
func (p *Pane) cycleRow(d *model.Deadlock, cursor bool, w int, now time.Time) string {
	mark := " "
	if cursor {
		mark = "❯"
	}
	paths := make([]string, len(d.Paths))
	for i, pa := range d.Paths {
		paths[i] = draw.CleanLeft(pa, 30)
	}
	switch d.State {
	case model.CycleDeadlock:
		return mark + "‼ DEADLOCK " + cycleSessions(d) + " on " + strings.Join(paths, ", ") + " · no handoff for " + draw.Since(now, d.Since)
	case model.CycleSelfWait:
		return mark + "! SELF-WAIT " + draw.Session(d.Sessions[0]) + " behind its own node on " + strings.Join(paths, ", ") + " · " + draw.Since(now, d.Since)
	}
	return mark + "! CYCLE " + cycleSessions(d) + " on " + strings.Join(paths, ", ") + " · " + draw.Since(now, d.Since) +
		" old, a deadlock at " + draw.Dur(sessions.DeadlockAfter)
}

// cycleSessions is "0x1 → 0x2 → 0x1".
func cycleSessions(d *model.Deadlock) string {
	parts := make([]string, 0, len(d.Sessions)+1)
	for _, s := range d.Sessions {
		parts = append(parts, draw.Session(s))
	}
	parts = append(parts, draw.Session(d.Sessions[0]))
	return strings.Join(parts, " → ")
}

func (p *Pane) sessionSegs(st *themes.Styles, s *sessions.SessionInfo, cols []draw.Column, cursor, marked bool, now time.Time) []draw.Seg {
	segs := make([]draw.Seg, 0, 2*len(cols)+1)
	for ci, c := range cols {
		if ci > 0 {
			segs = append(segs, draw.Seg{Text: " ", Style: st.Text})
		}
		text, style := "", st.Text
		switch c.Title {
		case "":
			mark, flag := " ", " "
			if cursor {
				mark = "❯"
			}
			if marked {
				flag = "◆"
			}
			segs = append(segs, draw.Seg{Text: mark, Style: st.Key}, draw.Seg{Text: flag, Style: st.Key})
			continue
		case "SESSION":
			text = draw.Session(s.Session)
			if s.Blocks > 0 {
				style = st.Holder
			}
		case "CLIENT":
			text = draw.Clean(s.Who(), c.Width) // with its identity where a system names it
			if text == "" {
				text, style = "-", st.Muted
			}
		case "BLOCKS":
			text = strconv.Itoa(s.Blocks)
			if s.Blocks > 0 {
				style = st.Danger
			}
		case "DIRECT":
			text = strconv.Itoa(s.BlocksDirect)
		case "OLDEST":
			text, style = "-", st.Muted
			if s.Blocks > 0 {
				text, style = draw.Dur(s.OldestWait), st.Waiter
			}
		case "HOLDS":
			text, style = nodesCell(s.Holds, c.Width), st.Holder
		case "WAITS ON":
			text, style = nodesCell(s.Waits, c.Width), st.Waiter
		}
		if c.Right {
			text = draw.FitRight(text, c.Width)
		}
		segs = append(segs, draw.Seg{Text: draw.Fit(text, c.Width), Style: style})
	}
	return segs
}

// nodesCell is "/locks/a #7 +2" in w cells, "-" when empty.
func nodesCell(ns []sessions.SessionNode, w int) string {
	if len(ns) == 0 {
		return "-"
	}
	ref := " " + draw.NodeRef(ns[0].Node)
	more := ""
	if len(ns) > 1 {
		more = " +" + strconv.Itoa(len(ns)-1)
	}
	return draw.CleanLeft(ns[0].Path, max(w-len([]rune(ref))-len(more), 4)) + ref + more
}

// detail is the detail box: the selected session or cycle spelled out.
func (p *Pane) detail(st *themes.Styles, w int, now time.Time) (string, []string) {
	var lines []string
	add := func(style lipgloss.Style, text string) {
		for _, l := range draw.Wrap(text, max(w-2, 8)) {
			lines = append(lines, style.Render(" "+l))
		}
	}
	if d := p.Deadlock(); d != nil {
		title := "CYCLE"
		switch d.State {
		case model.CycleDeadlock:
			title = "CROSS-LOCK DEADLOCK"
			add(st.Alarm, "No handoff on any of these waits for "+draw.Since(now, d.Since)+" (since "+draw.Clock(d.Since)+"):")
		case model.CycleSelfWait:
			title = "SELF-WAIT"
			add(st.Warning, "A session waits behind its own node, for "+draw.Since(now, d.Since)+":")
		default:
			add(st.Warning, "Seen for "+draw.Since(now, d.Since)+": a deadlock if it stands "+draw.Dur(sessions.DeadlockAfter)+" with no handoff.")
		}
		for _, wt := range d.Waits {
			holds := "-"
			if s := p.Sessions.Find(wt.Session); s != nil && len(s.Holds) > 0 {
				parts := make([]string, 0, len(s.Holds))
				for _, h := range s.Holds {
					parts = append(parts, draw.CleanLeft(h.Path, 30)+" "+draw.NodeRef(h.Node))
				}
				holds = strings.Join(parts, ", ")
			}
			client := draw.Clean(wt.Client, 40)
			if client == "" {
				client = "client unknown"
			}
			add(st.Text, draw.Session(wt.Session)+" ("+client+") holds "+holds+"; waits on "+draw.CleanLeft(wt.Path, 30)+" "+
				draw.NodeRef(wt.Node)+" since "+draw.Clock(wt.Since)+", held by "+draw.Session(wt.Holder)+" "+draw.NodeRef(wt.HolderNode))
		}
		add(st.Muted, sessions.SessionsCaveat)
		return st.Title.Render(title), lines
	}
	s := p.Session()
	if s == nil {
		return st.Title.Render("Session"), nil
	}
	client := draw.Clean(s.Client, 0)
	if client == "" {
		client = "client unknown (the servers do not tell)"
	}
	add(st.Text, "client "+client)
	if text := s.Health.Text(now); s.Health.SilentTooLong(s.Health.At) && text != "" {
		add(st.Danger, text+" on "+draw.Clean(s.Health.Member, 40))
	}
	for _, h := range s.Holds {
		add(st.Holder, "holds "+draw.CleanLeft(h.Path, 40)+" "+draw.NodeRef(h.Node)+" since "+draw.Clock(h.Since)+" ("+draw.Since(now, h.Since)+")")
	}
	for _, wt := range s.Waits {
		add(st.Waiter, "waits on "+draw.CleanLeft(wt.Path, 40)+" "+draw.NodeRef(wt.Node)+" since "+draw.Clock(wt.Since)+" ("+draw.Since(now, wt.Since)+")")
	}
	if len(s.WaitsFor) > 0 {
		parts := make([]string, len(s.WaitsFor))
		for i, o := range s.WaitsFor {
			parts[i] = draw.Session(o)
		}
		add(st.Muted, "waits for "+strings.Join(parts, ", "))
	}
	switch {
	case s.Blocks == 0:
		add(st.Muted, "blocks no other session")
	default:
		add(st.Danger, fmt.Sprintf("blocks %s (%d directly); the longest has waited %s", draw.Plural(s.Blocks, "session"), s.BlocksDirect, draw.Dur(s.OldestWait)))
	}
	return st.Title.Render("Session " + draw.Session(s.Session)), lines
}

// CopyTarget is the selected session's id, for y.
func (p *Pane) CopyTarget() (raw, shown string, ok bool) {
	s := p.Session()
	if s == nil {
		return "", "", false
	}
	id := draw.Session(s.Session)
	return id, "session " + id, true
}

// DeadlockBanner is the line above the body while snap shows a cycle of
// waits over sessions; "" when none.
func DeadlockBanner(st *themes.Styles, snap *model.Snapshot, now time.Time, w int) string {
	if snap == nil || len(snap.Deadlocks) == 0 {
		return ""
	}
	d := &snap.Deadlocks[0] // the worst first
	var text string
	style := st.Warning
	paths := make([]string, len(d.Paths))
	for i, p := range d.Paths {
		paths[i] = draw.CleanLeft(p, 30)
	}
	on := " on " + strings.Join(paths, ", ")
	switch d.State {
	case model.CycleDeadlock:
		style = st.Alarm
		text = " ‼ CROSS-LOCK DEADLOCK " + draw.Since(now, d.Since) + ": " + cycleShort(d) + on
	case model.CycleSelfWait:
		text = " ! SELF-WAIT: session " + draw.Session(d.Sessions[0]) + " waits behind its own node" + on
	default:
		text = " ! CYCLE over sessions, " + draw.Since(now, d.Since) + " old: " + cycleShort(d) + on
	}
	if n := len(snap.Deadlocks) - 1; n > 0 {
		text += fmt.Sprintf(" (+%d more)", n)
	}
	hint := " w: sessions "
	return style.Render(draw.Fit(draw.Clean(text, w-len(hint)), w-len(hint)) + hint)
}

// cycleShort is "0x1 ⇄ 0x2" for two sessions, "0x1 → 0x2 → 0x3 → 0x1"
// for more.
func cycleShort(d *model.Deadlock) string {
	if len(d.Sessions) == 2 {
		return draw.Session(d.Sessions[0]) + " ⇄ " + draw.Session(d.Sessions[1])
	}
	return cycleSessions(d)
}
