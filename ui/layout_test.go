package ui

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/draw"
	"github.com/zklock/zklock/ui/narration"
	"github.com/zklock/zklock/ui/queuepane"
)

// TestLayoutColumns: over random columns and widths, the columns kept fit
// the width; none is wider than its content while another is cut short;
// a column kept is never cut while a cell of the width is left blank; and
// one of higher priority is cut only once those after it are at their
// narrowest.
func TestLayoutColumns(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	for range 5000 {
		want := make([]draw.Column, 1+rng.Intn(9))
		order := rng.Perm(len(want))
		for i := range want {
			want[i] = draw.Column{Title: strings.Repeat("T", rng.Intn(8)), Width: 1 + rng.Intn(20), Flex: rng.Intn(3) == 0, Off: rng.Intn(8) == 0}
			if rng.Intn(4) > 0 {
				want[i].Need = 1 + rng.Intn(40)
			}
		}
		width := rng.Intn(160)
		cols := draw.LayoutColumns(width, want, order)
		used, short, padded := -1, false, false
		for _, c := range cols {
			used += c.Width + 1
			short = short || c.Width < draw.NeedOf(c)
			padded = padded || c.Width > draw.NeedOf(c)
		}
		where := fmt.Sprintf("width %d, want %+v: got %+v", width, want, cols)
		if used > width {
			t.Fatalf("%s: %d cells used", where, used)
		}
		if short && padded {
			t.Fatalf("%s: a column is wider than its content while another is cut", where)
		}
		if short && used < width {
			t.Fatalf("%s: a column is cut with %d cells blank", where, width-used)
		}
	}
}

// randomFleet is a snapshot of n random queues: random recipes, names,
// data, clients, identities and paths, some long, some empty.
func randomFleet(rng *rand.Rand) *model.Snapshot {
	s := fleet()
	word := func(max int) string {
		const letters = "abcdefghijklmnopqrstuvwxyz-_.@:0123456789 "
		b := make([]byte, rng.Intn(max+1))
		for i := range b {
			b[i] = letters[rng.Intn(len(letters))]
		}
		return strings.TrimSpace(string(b))
	}
	var queues []model.Queue
	for qi := range 1 + rng.Intn(12) {
		path := fmt.Sprintf("/locks/%s-%d", strings.ReplaceAll(word(30), " ", "-"), qi)
		n := 1 + rng.Intn(25)
		nodes := make([]model.Node, n)
		prev := ""
		for i := range nodes {
			var name string
			recipe := ordering.RecipeCurator
			switch rng.Intn(3) {
			case 0:
				name = curatorName(fmt.Sprintf("%08x-5d4e-4f60-8a7b-1c2d3e4f5a6b", rng.Uint32()), int32(i))
			case 1:
				name, recipe = kazooName(fmt.Sprintf("%032x", rng.Uint64()), "lock", int32(i)), ordering.RecipeKazoo
			default:
				name, recipe = fmt.Sprintf("x-%s-%010d", strings.ReplaceAll(word(40), " ", ""), i), ordering.RecipePlain
			}
			role := ordering.RoleWaiting
			if i == 0 {
				role = ordering.RoleHolder
			}
			client := ""
			if rng.Intn(4) > 0 {
				client = fmt.Sprintf("10.%d.%d.%d:%d", rng.Intn(256), rng.Intn(256), rng.Intn(256), rng.Intn(65536))
			}
			nd := node(name, int32(i), ordering.KindMutex, recipe, role, 0x10000a3f2c0000+rng.Int63n(1<<40), client, word(70), time.Duration(rng.Intn(100000))*time.Second)
			if rng.Intn(5) == 0 {
				nd.SetIdentity(word(35))
			}
			if i > 0 {
				nd = waits(nd, prev, model.LinkVerified)
			}
			nodes[i], prev = nd, name
		}
		queues = append(queues, model.Queue{Path: path, State: model.PathPresent, Nodes: model.NodesOf(nodes...)})
	}
	s.Queues = model.QueuesOf(queues...)
	return s
}

// tableCheck finds, in the stripped frame, the rows a table drew with
// columns cols at cell x0 and checks them: each column as wide as what it
// holds on screen (its title included), save the flexible one that takes
// what is left once nothing is cut, and those sized by more than the
// rows shown (skip); and no cell cut while a cell of the table is left
// blank. cut says whether a cell's text is a cut.
func tableCheck(t *testing.T, where string, lines []string, x0, inner int, cols []draw.Column, isRow func(row []rune) bool, skip map[string]bool, cut func(string) bool) {
	t.Helper()
	var rows [][]rune
	for _, l := range lines {
		g := cells(l)
		if len(g) >= x0+inner {
			if row := g[x0 : x0+inner]; isRow(row) {
				rows = append(rows, row)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	held := make([]int, len(cols))
	anyCut := false
	x, used := 0, -1
	for ci, c := range cols {
		held[ci] = ansi.StringWidth(c.Title)
		for _, r := range rows {
			text := strings.TrimSpace(strings.ReplaceAll(string(r[x:x+c.Width]), "\x00", ""))
			held[ci] = max(held[ci], ansi.StringWidth(text))
			if c.Title != "" && cut(text) {
				anyCut = true
			}
		}
		x += c.Width + 1
		used += c.Width + 1
	}
	for ci, c := range cols {
		switch {
		case c.Title == "" || skip[c.Title]:
		case c.Width < held[ci]:
			t.Errorf("%s: column %s is %d wide for %d cells of text", where, c.Title, c.Width, held[ci])
		case c.Width > held[ci] && (anyCut || !c.Flex):
			t.Errorf("%s: column %s is %d wide for %d cells of text (cut elsewhere: %v)", where, c.Title, c.Width, held[ci], anyCut)
		}
	}
	if anyCut && used < inner {
		t.Errorf("%s: a cell is cut while %d cells of the row are blank", where, inner-used)
	}
}

// checkTables checks the lock list's and the queue's tables in m's frame
// (see tableCheck), and that the border between them leaves no table cut
// beside blank cells of the other.
func checkTables(t *testing.T, where string, m Console, cuts map[string]bool) {
	t.Helper()
	if m.view != viewMain || m.dialog != nil || m.list.FilterShown() {
		return
	}
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	fr := m.layoutPanes()
	cut := func(s string) bool { return cuts[s] }
	l := &m.list
	listRows := l.RowsFor(fr.bodyH - 2)
	if len(l.Visible) > 0 {
		lcols := l.Columns(m.st, fr.listW-2, l.Offset, min(l.Offset+listRows, len(l.Visible)), m.now)
		skip := map[string]bool{"PATH": l.Offset > 0 || len(l.Visible) > listRows} // sized by every path
		tableCheck(t, where+" list", lines, 1, fr.listW-2, lcols, func(row []rune) bool {
			return row[0] == ' ' || row[0] == '❯'
		}, skip, cut)
	}
	q := &m.queue
	if q.EmptyText() == nil {
		rows := q.RowsFor(m.st, m.snap, fr.queueW-2, fr.bodyH-2, m.now)
		qcols := q.Columns(m.st, fr.queueW-2, q.Top, q.Drawn(rows), m.now)
		posW := qcols[1].Width
		tableCheck(t, where+" queue", lines, fr.listW+1, fr.queueW-2, qcols, func(row []rune) bool {
			_, err := strconv.Atoi(strings.TrimSpace(string(row[3 : 3+posW])))
			return err == nil
		}, map[string]bool{"POS": true, "SEQ": true}, cut)
	}
	listSpare, listShort := l.Slack(m.st, fr.listW-2, fr.bodyH-2, m.now)
	queueSpare, queueShort := q.Slack(m.st, m.snap, fr.queueW-2, fr.bodyH-2, m.now)
	if queueShort > 0 && listSpare > 0 {
		t.Errorf("%s: the queue is %d cells short while the list leaves %d blank", where, queueShort, listSpare)
	}
	if listShort > 0 && queueSpare > 0 && fr.listW < m.width/2 {
		t.Errorf("%s: the list is %d cells short while the queue leaves %d blank", where, listShort, queueSpare)
	}
}

// TestNoCutWithRoom: random queues at widths 80-240 and a few heights,
// then the systems' fixtures and every golden's model: every line is
// exactly w cells, boxes whole, every cut ends in "…", each column is as
// wide as what it holds, and no cell is cut while its table's row has
// blank cells (nor while the pane beside it has).
func TestNoCutWithRoom(t *testing.T) {
	cuts := map[string]bool{}
	draw.CutSeen = func(in, out string) {
		s := strings.TrimSpace(ansi.Strip(out))
		cuts[s] = true
		if strings.TrimSpace(ansi.Strip(ansi.TruncateLeft(in, ansi.StringWidth(out), ""))) != "" && !strings.HasSuffix(s, "…") {
			t.Errorf("%q cut to %q without …", ansi.Strip(in), s)
		}
	}
	defer func() { draw.CutSeen = nil }()
	rng := rand.New(rand.NewSource(41))
	check := func(name string, m Console, w, h int) {
		m = step(m, sizeMsg(w, h))
		clear(cuts)
		where := fmt.Sprintf("%s at %dx%d", name, w, h)
		view := ansi.Strip(m.View())
		checkFrame(t, view, w, h)
		checkTables(t, where, m, cuts)
		// The header's server list, cut, leaves no blank but the two
		// cells between its parts (three beside a state drawn padded).
		head := strings.TrimRight(strings.SplitN(view, "\n", 2)[0], " ")
		// (Dialing, "…" says it is under way.)
		if i := strings.Index(head, "… "); i >= 0 && m.dial == nil && strings.Contains(head[i:], "    ") {
			t.Errorf("%s: the header is cut with room to spare: %q", where, head)
		}
	}
	heights := []int{24, 30, 48, 60}
	for i := range 60 {
		m := step(newTest("mono", 160, 48), updateMsg{model.Update{Snapshot: randomFleet(rng)}})
		for range rng.Intn(4) {
			m, _ = press(m, "down")
		}
		m, _ = press(m, "tab")
		for range rng.Intn(30) {
			m, _ = press(m, "down")
		}
		check(fmt.Sprintf("random fleet %d", i), m, 80+rng.Intn(161), heights[rng.Intn(len(heights))])
	}
	systems := step(newTest("mono", 160, 48), updateMsg{model.Update{Snapshot: systemsFleet()}})
	models := propertyModels(t)
	models["systems"] = selectPath(systems, "/solr/overseer_elect/election")
	models["kafka"] = selectPath(systems, "/kafka/controller")
	for _, name := range sortedKeys(mapKeys(models)) {
		for _, w := range []int{80, 100, 120, 160, 200, 240} {
			check(name, models[name], w, heights[rng.Intn(len(heights))])
		}
	}
}

func mapKeys(m map[string]Console) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestBannerNamesWholeOrSaysMore: a warning's banner is whole when the
// pane has the lines for it (the Solr leader mismatch names the leader at
// 160x48) and ends in "…" when it is cut (80x24); the path it names is
// never cut while the line has room.
func TestBannerNamesWholeOrSaysMore(t *testing.T) {
	leader := "4503643636891729-10.0.0.1:8983_solr-n_0000000003"
	for _, sz := range sizes {
		m := step(newTest("dark", sz[0], sz[1]), updateMsg{model.Update{Snapshot: systemsFleet()}})
		m = selectPath(m, "/solr/overseer_elect/election")
		bans := queuepane.Banners(&m.queue, m.st, m.snap, m.queue.Width-2, m.queue.Height-2, m.now)
		var text []string
		for _, b := range bans {
			text = append(text, strings.TrimSpace(b.Text))
		}
		all := strings.Join(text, " ")
		if !strings.Contains(all, "/solr/overseer_elect/leader,") {
			t.Errorf("%v: the leader record's path is cut: %q", sz, all)
		}
		if sz[0] >= 160 && !strings.Contains(all, "the election's leader is "+leader) {
			t.Errorf("%v: the banner does not name the leader: %q", sz, all)
		}
		if !strings.Contains(all, leader) && !strings.HasSuffix(all, "…") {
			t.Errorf("%v: the banner is cut without …: %q", sz, all)
		}
	}
	// wrapAtMost itself: whole when it fits, else n lines, the last with "…".
	text := "one two three four five six seven eight nine ten"
	if got := queuepane.WrapAtMost(text, 20, 3); strings.Join(got, " ") != text {
		t.Errorf("wrapAtMost cut a text that fits: %q", got)
	}
	got := queuepane.WrapAtMost(text, 10, 2)
	if len(got) != 2 || !strings.HasSuffix(got[1], "…") || ansi.StringWidth(got[1]) > 10 {
		t.Errorf("wrapAtMost(10, 2) = %q: want 2 lines of at most 10 cells, the last ending in …", got)
	}
}

// TestNarrationWraps: a sentence longer than the line goes on to a second
// line that starts with the next word, whole (nothing cut inside it at 24
// characters, as a long path was), and the first line is as full as the
// words allow.
func TestNarrationWraps(t *testing.T) {
	sentence := "#20 created its ephemeral sequential node and listed the children of /demo/locks/render-slots/locks: no lease is free, so it sets a watch on the children of /demo/locks/render-slots/leases and waits."
	for _, w := range []int{120, 160, 200} {
		m := newTest("dark", w, 48)
		lines := narration.Lines(m.st, sentence, false, w)
		var words []string
		for _, l := range lines {
			s := strings.TrimSpace(ansi.Strip(l))
			s = strings.TrimPrefix(s, "▸ narration ")
			words = append(words, strings.Fields(s)...)
		}
		if got := strings.Join(words, " "); got != sentence {
			t.Errorf("%d: narration %q, want the whole sentence", w, got)
		}
		if len(lines) == 2 {
			first := ansi.Strip(lines[0])
			next := strings.Fields(strings.TrimSpace(ansi.Strip(lines[1])))[0]
			if ansi.StringWidth(strings.TrimRight(first, " "))+1+ansi.StringWidth(next) <= w {
				t.Errorf("%d: %q would fit on the first line:\n%s", w, next, first)
			}
		}
	}
}

// TestNarrationNamesWatchWhole: a semaphore contender waiting for a lease
// is told as watching the children of the leases' parent, the path whole
// (it was cut to 24 characters mid-name, "/demo/locks/render-slot…").
func TestNarrationNamesWatchWhole(t *testing.T) {
	slots := kazooSlots()
	slots.Path = "/demo/locks/render-slots-for-the-night-shift"
	waiter := *slots.Nodes.At(2)
	waiter.SetWatches(slots.Path)
	snap := fleet()
	q := slots
	q.Nodes = model.NodesOf(*slots.Nodes.At(0), *slots.Nodes.At(1), waiter)
	snap.Queues = model.QueuesOf(q)
	got := narration.Narrate(model.Change{Kind: model.ChangeJoined, Path: q.Path, Node: waiter}, snap, snap)
	if want := "sets a watch on the children of " + q.Path + " and waits."; !strings.HasSuffix(got, want) {
		t.Errorf("narration %q, want it to end %q", got, want)
	}
}
