package model

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// ellipsis ends a cut string. One cell wide in every terminal we know.
const ellipsis = "…"

// Sanitize returns b as text that is safe to write to a terminal, cut to at
// most max display cells when max > 0. It is the one function every znode
// name and data byte passes through before reaching a screen; see
// SanitizeString for the rules.
func Sanitize(b []byte, max int) string {
	return SanitizeString(string(b), max)
}

// SanitizeString returns s as text that is safe to write to a terminal:
//
//   - C0 controls (including ESC), DEL and C1 controls (U+0080-U+009F) are
//     shown escaped: tab, newline and carriage return as `\t`, `\n`, `\r`,
//     other ASCII controls as `\x1b`, C1 controls as `\u009b`;
//   - bytes that are not valid UTF-8 are shown as `\xff`;
//   - every other rune that is not graphic (format characters such as the
//     bidi overrides U+202A-U+202E and isolates U+2066-U+2069, zero-width
//     joiners, line and paragraph separators, private-use and unassigned
//     code points) is shown as `\u202e` or `\U000e0001`, because a terminal
//     may reorder, hide or mis-measure it and so break the columns or make
//     one name look like another;
//   - with max > 0 the result is cut to at most max display cells, ending in
//     "…"; an escape is never cut in half.
//
// Backslashes are NOT doubled. The escaped form is for an operator to read,
// not to decode, and leaving `\` alone makes SanitizeString idempotent:
// text that was sanitized once (zkview's event texts and warning messages)
// can be passed through again by a consumer, as defence in depth or to cut
// it to a column, without growing `\\\\` at every pass. The price is that
// data holding the literal text `\x1b` reads the same as data holding ESC;
// neither reaches the terminal as a control.
func SanitizeString(s string, max int) string {
	if isPlainASCII(s) && (max <= 0 || len(s) <= max) {
		return s
	}
	out, escapes := escape(s)
	if max <= 0 {
		return out
	}
	return cut(out, escapes, max)
}

// isPlainASCII reports whether s holds only printable ASCII, which needs no
// escaping and is one cell per byte.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// span is the byte range of one escape in the escaped text, kept so that a
// cut never leaves half an escape such as `\x1`.
type span struct{ start, end int }

// escape rewrites every unsafe rune of s and returns where the escapes are.
func escape(s string) (string, []span) {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	var escapes []span
	add := func(text string) {
		start := b.Len()
		b.WriteString(text)
		escapes = append(escapes, span{start, b.Len()})
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			add(fmt.Sprintf(`\x%02x`, c))
		case r == '\t':
			add(`\t`)
		case r == '\n':
			add(`\n`)
		case r == '\r':
			add(`\r`)
		case r < 0x80:
			// The remaining C0 controls (ESC among them) and DEL.
			add(fmt.Sprintf(`\x%02x`, r))
		case !unicode.IsGraphic(r):
			// C1 controls, format characters (bidi controls, zero-width
			// characters), separators, private use, unassigned.
			if r > 0xffff {
				add(fmt.Sprintf(`\U%08x`, r))
			} else {
				add(fmt.Sprintf(`\u%04x`, r))
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String(), escapes
}

// cut shortens the escaped text s to at most max cells, ending in "…".
// Widths are measured the way ansi.StringWidth (and so lipgloss.Width)
// measures them: one cell per ASCII byte, grapheme clusters otherwise.
func cut(s string, escapes []span, max int) string {
	if ansi.StringWidth(s) <= max {
		return s
	}
	budget := max - ansi.StringWidth(ellipsis)
	// ends[k] is the byte offset after token k; a token is what
	// ansi.StringWidth counts as one unit.
	var ends []int
	width, pos := 0, 0
	for pos < len(s) {
		var w, n int
		if s[pos] < utf8.RuneSelf {
			w, n = 1, 1
		} else {
			cluster, cw := ansi.FirstGraphemeCluster(s[pos:], ansi.GraphemeWidth)
			w, n = cw, len(cluster)
		}
		if width+w > budget {
			break
		}
		width += w
		pos += n
		ends = append(ends, pos)
	}
	for {
		end := 0
		if len(ends) > 0 {
			end = ends[len(ends)-1]
		}
		// Back off to the start of an escape the cut would split.
		for _, e := range escapes {
			if e.start < end && end < e.end {
				end = e.start
				for len(ends) > 0 && ends[len(ends)-1] > end {
					ends = ends[:len(ends)-1]
				}
				break
			}
		}
		out := s[:end] + ellipsis
		// The ellipsis can join the last cluster (after a prepended
		// character) and change its width: check, and drop more if so.
		if end == 0 || ansi.StringWidth(out) <= max {
			if ansi.StringWidth(out) > max {
				return ""
			}
			return out
		}
		ends = ends[:len(ends)-1]
	}
}
