package queuepane

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// queue columns in priority order; queueOrder is their display order. On a
// narrow pane who holds (DATA: Curator writes the client's address, zklock
// a note) says more than the node's random name, so DATA outranks NODE.
const (
	qcMark = iota
	qcPos
	qcSeq
	qcRole
	qcIdentity
	qcKind
	qcRecipe
	qcAge
	qcData
	qcNode
	qcSession
	qcClient
)

var queueOrder = []int{qcMark, qcPos, qcSeq, qcNode, qcRole, qcIdentity, qcKind, qcRecipe, qcAge, qcSession, qcClient, qcData}

// Columns lays out the queue's columns in w cells for the nodes drawn,
// from..to: each as wide as what it holds there (its width is how much
// of that it keeps before a column of lower priority is shown at all);
// DATA, last, takes what is left over.
func (p *Pane) Columns(st *themes.Styles, w, from, to int, now time.Time) []draw.Column {
	return draw.LayoutColumns(w, p.wantColumns(st, from, to, now), queueOrder)
}

// wantColumns are the queue's columns in priority order, each with what
// it needs to hold the nodes from..to whole.
func (p *Pane) wantColumns(st *themes.Styles, from, to int, now time.Time) []draw.Column {
	want := []draw.Column{
		qcMark:    {Title: "", Width: 2},
		qcPos:     {Title: "POS", Width: max(3, len(strconv.Itoa(p.Count()))), Right: true},
		qcSeq:     {Title: "SEQ", Width: p.seqW, Right: true},
		qcRole:    {Title: "ROLE", Width: p.roleW()},
		qcKind:    {Title: "KIND", Width: 5, Off: !p.rw},
		qcRecipe:  {Title: "RECIPE", Width: 7, Off: !p.mixed},
		qcAge:     {Title: "AGE", Width: 6, Right: true},
		qcData:    {Title: "DATA", Width: 12, Flex: true},
		qcNode:    {Title: "NODE", Width: 18},
		qcSession: {Title: "SESSION", Width: 18},
		qcClient:  {Title: "CLIENT", Width: 21},

		// A system's participants by its own name for them (broker 2).
		qcIdentity: {Title: "IDENTITY", Width: 18, Off: !p.identities},
	}
	for ci := range want {
		c := &want[ci]
		if c.Off || ci == qcMark || ci == qcPos || ci == qcSeq {
			continue // numbers sized by the whole queue: they do not jump while scrolling
		}
		c.Need = 1
		blank := to > from // a column of blank cells says nothing
		for i := from; i < to; i++ {
			text, _ := p.cellText(st, c.Title, p.q.Nodes.At(i), i, now, 0)
			c.Need = max(c.Need, draw.Width(text))
			blank = blank && text == ""
		}
		c.Off = blank
	}
	return want
}

// Slack is what the queue's table and the lines under its waiters leave
// blank in a pane of inner size w x h, and how many cells more they need
// to be whole (see slack); with no table, what its sentences leave blank.
func (p *Pane) Slack(st *themes.Styles, snap *model.Snapshot, w, h int, now time.Time) (spare, short int) {
	if msg := p.EmptyText(); msg != nil {
		longest := 0 // the sentences wrap: the longest is all they need
		for _, m := range msg {
			longest = max(longest, draw.Width(m)+1)
		}
		return max(w-longest, 0), 0
	}
	rows := p.RowsFor(st, snap, w, h, now)
	from, to := p.Top, p.Drawn(rows)
	want := p.wantColumns(st, from, to, now)
	spare, short = draw.Slack(w, want)
	// The line under a waiter is cut at the pane's edge too.
	chainX := chainStart(draw.LayoutColumns(w, want, queueOrder))
	for i := from; i < to; i++ {
		if p.nodeLines(i) == 2 {
			end := chainX + draw.Width(p.chain(st, p.q.Nodes.At(i), i, now, 1<<16))
			spare, short = min(spare, max(w-end, 0)), max(short, end-w)
		}
	}
	// The title keeps room for the lock's name and what it is ("semaphore
	// · holders 3/3"), in the top edge (w-4 cells).
	path := draw.Clean(p.Path, 0)
	need := 1 + draw.Width(path[strings.LastIndexByte(path, '/')+1:])
	for _, part := range p.summary[:min(len(p.summary), 2)] {
		need += 3 + draw.Width(part)
	}
	return max(min(spare, w-4-need), 0), short
}

// Drawn is the end (exclusive) of the nodes drawn from p.top in rows
// lines: each takes one line, and its chain a second when there is room.
func (p *Pane) Drawn(rows int) int {
	end := p.Top
	for ; end < p.q.Nodes.Len() && rows > 0; end++ {
		rows--
		if p.nodeLines(end) == 2 && rows > 0 {
			rows--
		}
	}
	return end
}

// roleW fits the widest role word: "follower" in an election.
func (p *Pane) roleW() int {
	if p.q != nil && p.q.Type == model.TypeElection {
		return len("follower")
	}
	return 7
}

// columnHeader is the column titles' line, and the cell where the chain
// under a node starts: under the first column after SEQ (NODE when
// shown).
func columnHeader(st *themes.Styles, cols []draw.Column) (head string, chainX int) {
	var segs []draw.Seg
	for i, c := range cols {
		if i > 0 {
			segs = append(segs, draw.Seg{Text: " ", Style: st.Column})
		}
		t := c.Title
		if c.Right {
			t = draw.FitRight(t, c.Width)
		}
		segs = append(segs, draw.Seg{Text: draw.Fit(t, c.Width), Style: st.Column})
	}
	return draw.Line(segs, nil), chainStart(cols)
}

// chainStart is the cell where the line under a node starts: under the
// first column after SEQ (NODE when shown).
func chainStart(cols []draw.Column) int {
	x := 0
	for i, c := range cols {
		if i > 0 && cols[i-1].Title == "SEQ" {
			return x
		}
		x += c.Width + 1
	}
	return 0
}

// rowSegs appends node n's cells to segs.
func (p *Pane) rowSegs(segs []draw.Seg, st *themes.Styles, n *model.Node, i int, cols []draw.Column, now time.Time) []draw.Seg {
	for ci, c := range cols {
		if ci > 0 {
			segs = append(segs, draw.Seg{Text: " ", Style: st.Text})
		}
		if c.Title == "" {
			segs = p.markCells(segs, st, n, i)
			continue
		}
		text, style := p.cellText(st, c.Title, n, i, now, c.Width)
		if c.Right {
			text = draw.FitRight(text, c.Width)
		}
		segs = append(segs, draw.Seg{Text: draw.Fit(text, c.Width), Style: style})
	}
	return segs
}

// cellText is node n's (row i's) text in the column titled title, safe,
// cut to w cells (w <= 0: whole), and its style.
func (p *Pane) cellText(st *themes.Styles, title string, n *model.Node, i int, now time.Time, w int) (string, lipgloss.Style) {
	switch title {
	case "POS":
		return strconv.Itoa(i + 1), st.Text
	case "SEQ":
		if n.Recipe == ordering.RecipeEphemeral || n.Lease && n.Recipe == ordering.RecipeKazoo || n.Part() == model.PartBarrier || n.Part() == model.PartWaiter {
			return "-", st.Muted // one node, no sequence
		}
		return strconv.Itoa(int(n.Seq)), st.Muted
	case "NODE":
		switch {
		case n.Name == "":
			return "(watch)", st.Muted // waits by an exists watch, owns no node
		case n.Lease:
			return leaseName(n, w), st.Text
		}
		return draw.Clean(ShortName(n.Name), w), st.Text
	case "ROLE":
		return p.roleCell(st, n)
	case "IDENTITY":
		return orDash(st, draw.Clean(n.Identity(), w))
	case "KIND":
		return n.KindName(), st.Muted
	case "RECIPE":
		return n.Recipe.String(), st.Muted
	case "SESSION":
		return draw.Session(n.Session), st.Text
	case "CLIENT":
		return orDash(st, draw.Clean(n.Client(), w))
	case "AGE":
		return draw.Since(now, n.Ctime()), st.Muted
	case "DATA":
		text := model.Sanitize(n.Data(), 0)
		if int(n.DataLen) > len(n.Data()) {
			text += "…"
		}
		return draw.Clean(text, w), st.Text
	}
	return "", st.Text
}

// orDash is text, or a muted "-" when there is none.
func orDash(st *themes.Styles, text string) (string, lipgloss.Style) {
	if text == "" {
		return "-", st.Muted
	}
	return text, st.Text
}

// markCells appends node n's (row i's) first two cells: the cursor, then
// its flag (own, marked session, named by a warning, never wakes or herd).
func (p *Pane) markCells(segs []draw.Seg, st *themes.Styles, n *model.Node, i int) []draw.Seg {
	mark, flag, fs := " ", " ", st.Text
	if i == p.Cursor {
		mark = "❯"
	}
	switch {
	case p.isOwn(n):
		flag, fs = "★", st.Own
	case p.Mark != 0 && n.Session == p.Mark:
		flag, fs = "◆", st.Key
	case p.flagged[n.Name]:
		flag, fs = "‼", st.Danger
	case n.Link == model.LinkMissing || n.Herd:
		flag, fs = "!", st.Warning
	}
	return append(segs, draw.Seg{Text: mark, Style: st.Key}, draw.Seg{Text: flag, Style: fs})
}

// roleCell is node n's ROLE: what its own recipe believes. In a split
// queue two nodes act as holders, and both must look it; an election
// says leader and follower.
func (p *Pane) roleCell(st *themes.Styles, n *model.Node) (string, lipgloss.Style) {
	word := strings.ToUpper(model.RoleWord(p.q.Type, ordering.RoleHolder))
	switch {
	case n.Part() != "":
		return n.Part(), st.Muted // a recipe's part: no lock's role
	case n.Believes == ordering.RoleHolder && n.Role != ordering.RoleHolder:
		return word + "‼", st.Danger
	case n.Believes == ordering.RoleHolder && p.flagged[n.Name]:
		return word, st.Danger
	case n.Believes == ordering.RoleHolder:
		return word, st.Holder
	}
	return model.RoleWord(p.q.Type, ordering.RoleWaiting), st.Waiter
}
