package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

// checkFrame asserts the stripped view is exactly w x h cells (every line
// exactly w wide) and that every box in it is whole: each ╭ has its ╮ on
// its row and its ╰ below it, both sides unbroken down to the ╯, and no
// corner belongs to no box. A box drawn over others (a dialog) hides
// them: the boxes it covers are checked outside it.
func checkFrame(t *testing.T, view string, w, h int) {
	t.Helper()
	for _, p := range frameProblems(view, w, h) {
		t.Errorf("%dx%d: %s\n%s", w, h, p, view)
		return
	}
}

// frameProblems is checkFrame's verdict: what is wrong with view, none
// when it is a whole w x h frame.
func frameProblems(view string, w, h int) []string {
	var bad []string
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		bad = append(bad, fmt.Sprintf("%d lines, want %d", len(lines), h))
	}
	g := make([][]rune, len(lines))
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw != w {
			bad = append(bad, fmt.Sprintf("line %d is %d cells wide, want %d: %q", i, lw, w, l))
		}
		g[i] = cells(l)
	}
	if len(bad) > 0 {
		return bad // the boxes of a ragged frame cannot be located
	}
	fc := frameCells{g: g}
	// Whole boxes first: those on top hide parts of the others.
	var rest [][2]int
	for r := range g {
		for c, ch := range g[r] {
			if ch != '╭' {
				continue
			}
			if b, ok := fc.box(r, c, nil); ok {
				fc.covers = append(fc.covers, b)
				continue
			}
			rest = append(rest, [2]int{r, c})
		}
	}
	var boxes []rect
	for _, rc := range rest {
		var why []string
		b, ok := fc.box(rc[0], rc[1], &why)
		if !ok {
			bad = append(bad, fmt.Sprintf("box at line %d, cell %d is broken: %s", rc[0], rc[1], strings.Join(why, "; ")))
			continue
		}
		boxes = append(boxes, b)
	}
	boxes = append(boxes, fc.covers...)
	for r := range g {
		for c, ch := range g[r] {
			if strings.ContainsRune("╮╰╯", ch) && !fc.covered(r, c) && !cornerOf(boxes, r, c) && !fc.underCover(r, c) {
				bad = append(bad, fmt.Sprintf("corner %c at line %d, cell %d belongs to no box", ch, r, c))
			}
		}
	}
	return bad
}

// cells is a stripped line as one rune a cell, as the terminal lays it
// out: a grapheme cluster by its first rune, a wide one followed by 0 in
// the cells it also takes.
func cells(l string) []rune {
	var out []rune
	state := -1
	for l != "" {
		var cluster string
		var w int
		cluster, l, w, state = uniseg.FirstGraphemeClusterInString(l, state)
		if w == 0 {
			continue
		}
		out = append(out, []rune(cluster)[0])
		for ; w > 1; w-- {
			out = append(out, 0)
		}
	}
	return out
}

type rect struct{ top, left, bottom, right int }

func (b rect) in(r, c int) bool { return r >= b.top && r <= b.bottom && c >= b.left && c <= b.right }

func cornerOf(boxes []rect, r, c int) bool {
	for _, b := range boxes {
		if (r == b.top || r == b.bottom) && (c == b.left || c == b.right) {
			return true
		}
	}
	return false
}

// frameCells is a stripped frame, cell by cell, and the boxes drawn on
// top of the rest (with the blank column overlay leaves either side).
type frameCells struct {
	g      [][]rune
	covers []rect
}

func (f *frameCells) at(r, c int) rune {
	if r < 0 || r >= len(f.g) || c < 0 || c >= len(f.g[r]) {
		return 0
	}
	return f.g[r][c]
}

func (f *frameCells) covered(r, c int) bool {
	for _, b := range f.covers {
		if (rect{b.top, b.left - 1, b.bottom, b.right + 1}).in(r, c) {
			return true
		}
	}
	return false
}

// underCover says whether the corner at (r, c) belongs to a box whose
// other corners are hidden: its edge runs into a cover.
func (f *frameCells) underCover(r, c int) bool {
	dir := -1 // ╮ and ╯ close an edge coming from the left
	if f.at(r, c) == '╰' {
		dir = 1
	}
	for x := c + dir; x >= 0 && x < len(f.g[r]); x += dir {
		if f.covered(r, x) {
			return true
		}
		if strings.ContainsRune("╭╮╰╯", f.at(r, x)) {
			return false
		}
	}
	return false
}

// box traces the box whose ╭ is at (r, c). With why nil, no cell may be
// hidden; else cells under a cover are skipped and why says what broke.
func (f *frameCells) box(r, c int, why *[]string) (rect, bool) {
	hidden := func(r, c int) bool { return why != nil && f.covered(r, c) }
	fail := func(format string, a ...any) (rect, bool) {
		if why != nil {
			*why = append(*why, fmt.Sprintf(format, a...))
		}
		return rect{}, false
	}
	right := -1
	for x := c + 1; x < len(f.g[r]); x++ {
		if f.at(r, x) == '╮' && !hidden(r, x) {
			right = x
			break
		}
		if f.at(r, x) == '╭' && !hidden(r, x) {
			break
		}
	}
	if right < 0 {
		return fail("no ╮ on its line")
	}
	bottom := -1
	for y := r + 1; y < len(f.g); y++ {
		if f.at(y, c) == '╰' && !hidden(y, c) || f.at(y, right) == '╯' && !hidden(y, right) {
			bottom = y
			break
		}
	}
	if bottom < 0 {
		return fail("no ╰ or ╯ below it")
	}
	b := rect{r, c, bottom, right}
	want := func(y, x int, ok string) bool { return hidden(y, x) || strings.ContainsRune(ok, f.at(y, x)) }
	for y := r + 1; y < bottom; y++ {
		if !want(y, c, "│") || !want(y, right, "│") {
			return fail("side broken at line %d", y)
		}
	}
	if !want(bottom, c, "╰") || !want(bottom, right, "╯") {
		return fail("bottom corners missing at line %d", bottom)
	}
	for _, y := range []int{r, bottom} {
		// An edge is ─ next to its corners, a label between.
		if right-c >= 3 && (!want(y, c+1, "─") || !want(y, right-1, "─")) {
			return fail("edge at line %d does not join its corners", y)
		}
	}
	return b, true
}

// TestCheckFrameCatches: the frame check fails on what a broken view
// looks like (a short line, a dropped right border, a lost corner) and
// passes a whole frame and a dialog drawn over one.
func TestCheckFrameCatches(t *testing.T) {
	whole := strings.Join([]string{
		"╭─ a ─╮╭────╮",
		"│ x   ││ yy │",
		"╰─────╯╰────╯",
	}, "\n")
	if p := frameProblems(whole, 13, 3); len(p) > 0 {
		t.Fatalf("a whole frame fails: %v", p)
	}
	for name, view := range map[string]string{
		"short line":    "╭─ a ─╮╭────╮\n│ x   ││ yy \n╰─────╯╰────╯",
		"lost border":   "╭─ a ─╮╭────╮\n│ x   ││ yy  \n╰─────╯╰────╯",
		"lost corner":   "╭─ a ─╮╭────╮\n│ x   ││ yy │\n╰─────╯╰─────",
		"stray corner":  "╭─ a ─╮ ╯   ╮\n│ x   │      \n╰─────╯      ",
		"too few lines": "╭─ a ─╮╭────╮\n╰─────╯╰────╯",
	} {
		if p := frameProblems(view, 13, 3); len(p) == 0 {
			t.Errorf("%s: passes:\n%s", name, view)
		}
	}
	m := selectPath(newTest("dark", 80, 24), "/locks/job-a")
	m, _ = press(m, "tab", "f")
	if p := frameProblems(ansi.Strip(m.View()), 80, 24); len(p) > 0 {
		t.Errorf("the force dialog over the console fails: %v", p)
	}
}

// TestDialogHidesPaneScraps: beside an open dialog the panes underneath
// show nothing cut to a lone letter: the cell either side of the dialog
// is blank and, at 80x24 where two cells are left, only the panes'
// borders remain.
func TestDialogHidesPaneScraps(t *testing.T) {
	var dialogs []Console
	for _, sc := range scenarios {
		if m := sc.setup(newTest("dark", 80, 24)); m.dialog != nil {
			dialogs = append(dialogs, m)
		}
	}
	for _, sc := range sessionScenarios {
		if m := sc.setup(t, newTest("dark", 80, 24)); m.dialog != nil {
			dialogs = append(dialogs, m)
		}
	}
	if len(dialogs) < 3 {
		t.Fatalf("%d scenarios open a dialog, want the force, help and sessions' force dialogs", len(dialogs))
	}
	for _, m0 := range dialogs {
		for _, w := range []int{80, 81, 90, 100, 160} {
			m := step(m0, sizeMsg(w, 24))
			box := m.dialog.view(m.st, w, 24)
			bw := ansi.StringWidth(box[0])
			x, y := (w-bw)/2, (24-len(box))/2
			lines := strings.Split(ansi.Strip(m.View()), "\n")
			for r := y; r < y+len(box); r++ {
				g := cells(lines[r])
				for _, c := range []int{x - 1, x + bw} {
					if c >= 0 && c < w && g[c] != ' ' {
						t.Errorf("%T at %dx24: line %d has %q beside the dialog:\n%s", m.dialog, w, r, g[c], strings.Join(lines, "\n"))
					}
				}
				if w != 80 {
					continue
				}
				for c, ch := range g {
					if (c < x || c >= x+bw) && !strings.ContainsRune(" │╭╮╰╯─", ch) {
						t.Errorf("%T at 80x24: line %d shows %q of the pane under the dialog", m.dialog, r, ch)
					}
				}
			}
		}
	}
}
