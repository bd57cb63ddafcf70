package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
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

// columns lays out the queue's columns in w cells for the nodes drawn,
// from..to: each as wide as what it holds there (its width is how much
// of that it keeps before a column of lower priority is shown at all);
// DATA, last, takes what is left over.
func (p *queuePane) columns(st *themes.Styles, w, from, to int, now time.Time) []column {
	return layoutColumns(w, p.wantColumns(st, from, to, now), queueOrder)
}

// wantColumns are the queue's columns in priority order, each with what
// it needs to hold the nodes from..to whole.
func (p *queuePane) wantColumns(st *themes.Styles, from, to int, now time.Time) []column {
	want := []column{
		qcMark:    {title: "", width: 2},
		qcPos:     {title: "POS", width: max(3, len(strconv.Itoa(p.count()))), right: true},
		qcSeq:     {title: "SEQ", width: p.seqW, right: true},
		qcRole:    {title: "ROLE", width: p.roleW()},
		qcKind:    {title: "KIND", width: 5, off: !p.rw},
		qcRecipe:  {title: "RECIPE", width: 7, off: !p.mixed},
		qcAge:     {title: "AGE", width: 6, right: true},
		qcData:    {title: "DATA", width: 12, flex: true},
		qcNode:    {title: "NODE", width: 18},
		qcSession: {title: "SESSION", width: 18},
		qcClient:  {title: "CLIENT", width: 21},

		// A system's participants by its own name for them (broker 2).
		qcIdentity: {title: "IDENTITY", width: 18, off: !p.identities},
	}
	for ci := range want {
		c := &want[ci]
		if c.off || ci == qcMark || ci == qcPos || ci == qcSeq {
			continue // numbers sized by the whole queue: they do not jump while scrolling
		}
		c.need = 1
		blank := to > from // a column of blank cells says nothing
		for i := from; i < to; i++ {
			text, _ := p.cellText(st, c.title, p.q.Nodes.At(i), i, now, 0)
			c.need = max(c.need, width(text))
			blank = blank && text == ""
		}
		c.off = blank
	}
	return want
}

// slack is what the queue's table and the lines under its waiters leave
// blank in a pane of inner size w x h, and how many cells more they need
// to be whole (see slack); with no table, what its sentences leave blank.
func (p *queuePane) slack(st *themes.Styles, snap *model.Snapshot, w, h int, now time.Time) (spare, short int) {
	if msg := p.emptyText(); msg != nil {
		longest := 0 // the sentences wrap: the longest is all they need
		for _, m := range msg {
			longest = max(longest, width(m)+1)
		}
		return max(w-longest, 0), 0
	}
	rows := p.rowsFor(st, snap, w, h, now)
	from, to := p.top, p.drawn(rows)
	want := p.wantColumns(st, from, to, now)
	spare, short = slack(w, want)
	// The line under a waiter is cut at the pane's edge too.
	chainX := chainStart(layoutColumns(w, want, queueOrder))
	for i := from; i < to; i++ {
		if p.nodeLines(i) == 2 {
			end := chainX + width(p.chain(st, p.q.Nodes.At(i), i, now, 1<<16))
			spare, short = min(spare, max(w-end, 0)), max(short, end-w)
		}
	}
	// The title keeps room for the lock's name and what it is ("semaphore
	// · holders 3/3"), in the top edge (w-4 cells).
	path := clean(p.path, 0)
	need := 1 + width(path[strings.LastIndexByte(path, '/')+1:])
	for _, part := range p.summary[:min(len(p.summary), 2)] {
		need += 3 + width(part)
	}
	return max(min(spare, w-4-need), 0), short
}

// drawn is the end (exclusive) of the nodes drawn from p.top in rows
// lines: each takes one line, and its chain a second when there is room.
func (p *queuePane) drawn(rows int) int {
	end := p.top
	for ; end < p.q.Nodes.Len() && rows > 0; end++ {
		rows--
		if p.nodeLines(end) == 2 && rows > 0 {
			rows--
		}
	}
	return end
}

// roleW fits the widest role word: "follower" in an election.
func (p *queuePane) roleW() int {
	if p.q != nil && p.q.Type == model.TypeElection {
		return len("follower")
	}
	return 7
}

// columnHeader is the column titles' line, and the cell where the chain
// under a node starts: under the first column after SEQ (NODE when
// shown).
func columnHeader(st *themes.Styles, cols []column) (head string, chainX int) {
	var segs []seg
	for i, c := range cols {
		if i > 0 {
			segs = append(segs, seg{" ", st.Column})
		}
		t := c.title
		if c.right {
			t = fitRight(t, c.width)
		}
		segs = append(segs, seg{fit(t, c.width), st.Column})
	}
	return line(segs, nil), chainStart(cols)
}

// chainStart is the cell where the line under a node starts: under the
// first column after SEQ (NODE when shown).
func chainStart(cols []column) int {
	x := 0
	for i, c := range cols {
		if i > 0 && cols[i-1].title == "SEQ" {
			return x
		}
		x += c.width + 1
	}
	return 0
}

// rowSegs appends node n's cells to segs.
func (p *queuePane) rowSegs(segs []seg, st *themes.Styles, n *model.Node, i int, cols []column, now time.Time) []seg {
	for ci, c := range cols {
		if ci > 0 {
			segs = append(segs, seg{" ", st.Text})
		}
		if c.title == "" {
			segs = p.markCells(segs, st, n, i)
			continue
		}
		text, style := p.cellText(st, c.title, n, i, now, c.width)
		if c.right {
			text = fitRight(text, c.width)
		}
		segs = append(segs, seg{fit(text, c.width), style})
	}
	return segs
}

// cellText is node n's (row i's) text in the column titled title, safe,
// cut to w cells (w <= 0: whole), and its style.
func (p *queuePane) cellText(st *themes.Styles, title string, n *model.Node, i int, now time.Time, w int) (string, lipgloss.Style) {
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
		return clean(shortName(n.Name), w), st.Text
	case "ROLE":
		return p.roleCell(st, n)
	case "IDENTITY":
		return orDash(st, clean(n.Identity(), w))
	case "KIND":
		return n.KindName(), st.Muted
	case "RECIPE":
		return n.Recipe.String(), st.Muted
	case "SESSION":
		return session(n.Session), st.Text
	case "CLIENT":
		return orDash(st, clean(n.Client(), w))
	case "AGE":
		return since(now, n.Ctime()), st.Muted
	case "DATA":
		text := model.Sanitize(n.Data(), 0)
		if int(n.DataLen) > len(n.Data()) {
			text += "…"
		}
		return clean(text, w), st.Text
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
func (p *queuePane) markCells(segs []seg, st *themes.Styles, n *model.Node, i int) []seg {
	mark, flag, fs := " ", " ", st.Text
	if i == p.cursor {
		mark = "❯"
	}
	switch {
	case p.isOwn(n):
		flag, fs = "★", st.Own
	case p.mark != 0 && n.Session == p.mark:
		flag, fs = "◆", st.Key
	case p.flagged[n.Name]:
		flag, fs = "‼", st.Danger
	case n.Link == model.LinkMissing || n.Herd:
		flag, fs = "!", st.Warning
	}
	return append(segs, seg{mark, st.Key}, seg{flag, fs})
}

// roleCell is node n's ROLE: what its own recipe believes. In a split
// queue two nodes act as holders, and both must look it; an election
// says leader and follower.
func (p *queuePane) roleCell(st *themes.Styles, n *model.Node) (string, lipgloss.Style) {
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
