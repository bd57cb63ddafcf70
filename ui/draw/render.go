package draw

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/zklock/zklock/model"
)

// Clean is the only way text from ZooKeeper (names, data, paths, errors)
// reaches a view: zkview's sanitizer, cut to w cells (w <= 0: no cut).
func Clean(s string, w int) string { return model.SanitizeString(s, w) }

// CleanLeft sanitizes s and, if it is wider than w, keeps its end: the
// last components of a path say more than its first.
func CleanLeft(s string, w int) string {
	s = Clean(s, 0)
	sw := ansi.StringWidth(s)
	if w <= 0 || sw <= w {
		return s
	}
	if w == 1 {
		return "…"
	}
	return "…" + ansi.TruncateLeft(s, sw-w+1, "")
}

// Fit pads or cuts an already safe (possibly styled) string to exactly w
// cells. A cut that drops more than spaces ends in "…": the operator must
// see that the text goes on.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := Width(s)
	switch {
	case sw == w:
		return s
	case sw < w:
		return s + strings.Repeat(" ", w-sw)
	}
	out := ansi.Truncate(s, w, "")
	if strings.TrimSpace(ansi.Strip(ansi.TruncateLeft(s, w, ""))) != "" {
		out = ansi.Truncate(s, w, "…")
	}
	if CutSeen != nil {
		CutSeen(s, out)
	}
	return out
}

// CutSeen, when set (by tests only), is told of every cut fit makes.
var CutSeen func(in, out string)

// FitRight right-aligns an unstyled string in w cells.
func FitRight(s string, w int) string {
	sw := Width(s)
	if sw >= w {
		return Fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// Width is s's width in cells. Most cells of a frame are short printable
// ASCII, one cell a byte, and need none of ansi.StringWidth's parsing.
func Width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// Seg is a piece of a line with its style; a line is drawn from segments so
// that a row's selection or own-node highlight can be layered over each
// cell's own style.
type Seg struct {
	Text  string // safe text, exactly the cell width
	Style lipgloss.Style
}

// Line renders segments side by side. over, when non-nil, is inherited by
// every segment (for the cursor row) and styles the gaps too.
func Line(segs []Seg, over *lipgloss.Style) string {
	var b strings.Builder
	n := 0
	for _, s := range segs {
		n += len(s.Text) + 32 // room for a colour's sequences
	}
	b.Grow(n)
	for _, s := range segs {
		st := s.Style
		if over != nil {
			st = st.Inherit(*over)
		}
		Paint(&b, st, s.Text)
	}
	return b.String()
}

// Paint writes st.Render(text) to b. Render works out every property of
// the style again on each call (~2 µs), and a frame paints a thousand
// segments. A style that only sets colours and attributes (every theme
// style, see themes.Spec.Style) renders one line of text as an opening
// sequence, the text and a closing one, both fixed by the colours, the
// attributes and the terminal: paint asks Render for them once and keeps
// them. Anything else (padding, a width, borders, underlined spaces,
// several lines) goes through Render. Styles are assumed to come from
// Lip Gloss's default renderer, as the themes' do.
func Paint(b *strings.Builder, st lipgloss.Style, text string) {
	k, ok := paintKeyOf(st)
	if !ok || strings.ContainsAny(text, "\t\n\r") {
		b.WriteString(st.Render(text))
		return
	}
	c, ok := paintCache.Load(k)
	if !ok {
		r := st.Render("x")
		i := strings.IndexByte(r, 'x')
		c, _ = paintCache.LoadOrStore(k, paintCodes{open: r[:i], close: r[i+1:]})
	}
	pc := c.(paintCodes)
	b.WriteString(pc.open)
	b.WriteString(text)
	b.WriteString(pc.close)
}

// paintCache holds the sequences of each painted style by paintKey. It
// holds escape sequences, not styles (those stay in themes.Styles), and
// is shared by every Console: a console shows a few dozen styles, so it
// stays small.
var paintCache sync.Map

type paintCodes struct{ open, close string }

// paintKey is what Render's output for a colours-and-attributes style
// depends on.
type paintKey struct {
	fg, bg  lipgloss.TerminalColor // only Lip Gloss's own types, all comparable
	attrs   uint8
	profile termenv.Profile
	dark    bool // for adaptive colours only
}

func paintKeyOf(st lipgloss.Style) (paintKey, bool) {
	pt, pr, pb, pl := st.GetPadding()
	mt, mr, mb, ml := st.GetMargin()
	if st.GetUnderline() || st.GetStrikethrough() || st.GetUnderlineSpaces() || st.GetStrikethroughSpaces() ||
		st.GetWidth() != 0 || st.GetHeight() != 0 || st.GetMaxWidth() != 0 || st.GetMaxHeight() != 0 ||
		pt|pr|pb|pl|mt|mr|mb|ml != 0 || st.GetBorderStyle() != (lipgloss.Border{}) ||
		st.GetTransform() != nil || st.Value() != "" {
		return paintKey{}, false
	}
	k := paintKey{fg: st.GetForeground(), bg: st.GetBackground(), profile: lipgloss.ColorProfile()}
	for i, on := range []bool{st.GetBold(), st.GetItalic(), st.GetReverse(), st.GetBlink(), st.GetFaint()} {
		if on {
			k.attrs |= 1 << i
		}
	}
	if adaptive(k.fg) || adaptive(k.bg) {
		k.dark = lipgloss.HasDarkBackground()
	}
	return k, true
}

func adaptive(c lipgloss.TerminalColor) bool {
	switch c.(type) {
	case lipgloss.AdaptiveColor, lipgloss.CompleteAdaptiveColor:
		return true
	}
	return false
}

// Column is one column of a table: a header, a width and how to align.
type Column struct {
	Title string
	// Width is the column's width: with need set, how much of its
	// content it keeps before a column of lower priority is shown at all.
	Width int
	Right bool
	Flex  bool // takes a share of the space left once every column holds its content
	Off   bool // not wanted for this table
	MaxW  int  // a flexible column grows no wider than this (0: no limit)
	// Need is how wide the column's content is (its title included),
	// 0 when unknown: a column is never wider than its content while
	// another's is cut.
	Need int
}

// LayoutColumns keeps, in priority order, the columns that fit in width
// (one space between columns), each at its width or its content's if
// narrower; grows the columns cut short toward their content, in
// priority order, until they hold it or no cell is left; and shares
// what is still left among the flexible ones, up to their maxW. want lists the columns in
// priority order; the result is in display order, given by order
// (indices into want).
func LayoutColumns(width int, want []Column, order []int) []Column {
	out := make([]Column, len(want))
	copy(out, want)
	keep := make([]bool, len(out))
	used := 0
	for i := range out {
		c := &out[i]
		if c.Off {
			continue
		}
		if c.Need > 0 {
			c.Need = max(c.Need, ansi.StringWidth(c.Title))
			c.Width = min(c.Width, c.Need)
		}
		need := c.Width
		if used > 0 {
			need++
		}
		if used+need > width {
			continue
		}
		keep[i] = true
		used += need
	}
	spare := width - used
	for i := range out {
		// Toward its content, in priority order: the column that says
		// more is the last one cut.
		if c := &out[i]; keep[i] && c.Need > c.Width {
			give := min(c.Need-c.Width, spare)
			c.Width += give
			spare -= give
		}
	}
	shareOut(out, keep, spare, func(c Column) int {
		switch {
		case !c.Flex:
			return c.Width
		case c.MaxW > 0:
			return max(c.MaxW, c.Width)
		}
		return c.Width + spare
	})
	var cols []Column
	for _, i := range order {
		if keep[i] {
			cols = append(cols, out[i])
		}
	}
	return cols
}

// Slack is what a table of the wanted columns leaves blank in width
// cells once each holds its content (spare), and how many cells more its
// columns cut short need to be whole (short). A column left out for want
// of room is not counted: a few cells more would not bring it back.
func Slack(width int, want []Column) (spare, short int) {
	order := make([]int, len(want))
	for i := range want {
		order[i] = i
	}
	used := -1
	for _, c := range LayoutColumns(width, want, order) {
		used += min(c.Width, NeedOf(c)) + 1
		short += max(NeedOf(c)-c.Width, 0)
	}
	return width - max(used, 0), short
}

// NeedOf is how wide column c is with its content whole.
func NeedOf(c Column) int {
	if c.Need > 0 {
		return max(c.Need, ansi.StringWidth(c.Title))
	}
	return c.Width
}

// shareOut grows the kept columns toward target, spare cells shared
// evenly (the first in priority order get a cell more); it returns the
// cells left.
func shareOut(cols []Column, keep []bool, spare int, target func(Column) int) int {
	goal := make([]int, len(cols))
	for i, c := range cols {
		goal[i] = target(c)
	}
	for spare > 0 {
		var grow []int
		for i, c := range cols {
			if keep[i] && c.Width < goal[i] {
				grow = append(grow, i)
			}
		}
		if len(grow) == 0 {
			break
		}
		given := 0
		for k, i := range grow {
			share := spare / len(grow)
			if k < spare%len(grow) {
				share++
			}
			share = min(share, goal[i]-cols[i].Width)
			cols[i].Width += share
			given += share
		}
		spare -= given
	}
	return spare
}

// Box draws a rounded border of w x h cells around lines, with title in the
// top edge and foot in the bottom edge (both optional, already styled).
func Box(border lipgloss.Style, title, foot string, lines []string, w, h int) []string {
	if w < 2 || h < 2 {
		return Blank(w, h)
	}
	inner := w - 2
	out := make([]string, 0, h)
	out = append(out, edge(border, "╭", "╮", title, inner))
	side := border.Render("│")
	for i := 0; i < h-2; i++ {
		var l string
		if i < len(lines) {
			l = lines[i]
		}
		out = append(out, side+Fit(l, inner)+side)
	}
	out = append(out, edge(border, "╰", "╯", foot, inner))
	return out
}

// edge is a top or bottom border line with an optional label after "─ ".
func edge(border lipgloss.Style, left, right, label string, inner int) string {
	if label == "" || inner < 6 {
		return border.Render(left + strings.Repeat("─", inner) + right)
	}
	label = Fit(label, min(ansi.StringWidth(label), inner-4))
	rest := inner - 3 - ansi.StringWidth(label)
	return border.Render(left+"─ ") + label + border.Render(" "+strings.Repeat("─", rest)+right)
}

// Blank is h empty lines of w cells.
func Blank(w, h int) []string {
	out := make([]string, max(h, 0))
	for i := range out {
		out[i] = strings.Repeat(" ", max(w, 0))
	}
	return out
}

// SideBySide joins two equally tall blocks of lines.
func SideBySide(a, b []string) []string {
	out := make([]string, max(len(a), len(b)))
	for i := range out {
		if i < len(a) {
			out[i] = a[i]
		}
		if i < len(b) {
			out[i] += b[i]
		}
	}
	return out
}

// Wrap breaks safe, unstyled text into lines of at most w cells at spaces.
func Wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		cur := ""
		for _, word := range strings.Fields(para) {
			for ansi.StringWidth(word) > w {
				if cur != "" {
					out = append(out, cur)
					cur = ""
				}
				out = append(out, ansi.Truncate(word, w, ""))
				word = ansi.TruncateLeft(word, w, "")
			}
			switch {
			case cur == "":
				cur = word
			case ansi.StringWidth(cur)+1+ansi.StringWidth(word) <= w:
				cur += " " + word
			default:
				out = append(out, cur)
				cur = word
			}
		}
		out = append(out, cur)
	}
	return out
}

// Dur is a compact, fixed-ish width duration: 45s, 2m13s, 1h02m, 3d04h.
func Dur(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%dd%02dh", s/86400, s%86400/3600)
}

// Since is how long ago t was at now, "" when t is unknown.
func Since(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return Dur(now.Sub(t))
}

// Clock is a time of day as the operator reads it in logs.
func Clock(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.Format("15:04:05")
}

// Session formats a ZooKeeper session id the way the servers print it.
func Session(id int64) string {
	if id == 0 {
		return "-"
	}
	return model.SessionHex(id)
}

// Plural is "1 word" or "n words" ("children" for child).
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "child") {
		return strconv.Itoa(n) + " " + word + "ren"
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// NodeRef names a node by its sequence number when the name carries one.
func NodeRef(name string) string {
	return model.NodeRef(name, 24)
}
