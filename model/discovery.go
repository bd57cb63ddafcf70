package model

import (
	"fmt"
	"strconv"
)

// DiscoveryText says how far the first reads of the roots still reading
// have come, in one line for a status line or a terminal:
// "discovering /locks: 41,203 of 98,000 read", "… (2 roots)" when more
// than one reads; "" for none. The root is sanitized.
func DiscoveryText(ds []Discovery) string {
	if len(ds) == 0 {
		return ""
	}
	d := ds[0]
	s := fmt.Sprintf("discovering %s: %s of %s read", SanitizeString(d.Root, 0), Grouped(d.Read), Grouped(d.Found))
	if len(ds) > 1 {
		s += fmt.Sprintf(" (%d roots)", len(ds))
	}
	return s
}

// Grouped writes n with its digits in groups of three: 41,203.
func Grouped(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
