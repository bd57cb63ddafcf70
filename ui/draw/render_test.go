package draw

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// wrap's contract, which its callers (dialogs, banners, the sessions
// detail) rely on to draw exactly inside a box: no line wider than w,
// every word kept in order, words longer than w broken. x/ansi's Wrap
// (v0.11.6) breaks the first promise: it keeps a hyphen or a space past
// the limit ("-a c-" at 4 gives one 5-cell line), and Wordwrap never breaks
// a long word (a base64 datum): fit would then cut what the operator reads.
func TestWrapFitsWidth(t *testing.T) {
	check := func(s string, w int) {
		t.Helper()
		got := Wrap(s, w)
		for _, l := range got {
			if ansi.StringWidth(l) > w {
				t.Fatalf("wrap(%q, %d): line %q is %d cells", s, w, l, ansi.StringWidth(l))
			}
		}
		joined := strings.Join(strings.Fields(strings.Join(got, "")), "")
		if want := strings.Join(strings.Fields(s), ""); joined != want {
			t.Fatalf("wrap(%q, %d) = %q: lost or reordered text", s, w, got)
		}
	}
	for _, tt := range []struct {
		s string
		w int
	}{
		{"-a c-", 4},
		{"the holder is not told and may still act", 12},
		{"_c_3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b-lock-0000000041", 20},
		{"c2VjcmV0LWRhdGEtd2l0aG91dC1hbnktc3BhY2VzLWF0LWFsbA==", 16},
		{"世界世界世界 ab", 5},
		{"line one\nline two is longer", 10},
	} {
		check(tt.s, tt.w)
	}
	r := rand.New(rand.NewSource(1))
	alpha := []rune("ab- c/_:.é世\n")
	for range 3000 {
		b := make([]rune, r.Intn(80))
		for i := range b {
			b[i] = alpha[r.Intn(len(alpha))]
		}
		check(string(b), 2+r.Intn(30))
	}
}
