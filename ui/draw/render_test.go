package draw

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/zklock/zklock/themes"
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

func TestDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "0s", 45 * time.Second: "45s", 133 * time.Second: "2m13s",
		time.Hour + 2*time.Minute: "1h02m", 76 * time.Hour: "3d04h",
	} {
		if got := Dur(d); got != want {
			t.Errorf("dur(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestPaintSameAsRender: paint's shortcut writes exactly what Render
// would, for every theme style, alone and under the row highlights, on
// every kind of terminal.
func TestPaintSameAsRender(t *testing.T) {
	oldProfile, oldDark := lipgloss.ColorProfile(), lipgloss.HasDarkBackground()
	t.Cleanup(func() {
		lipgloss.SetColorProfile(oldProfile)
		lipgloss.SetHasDarkBackground(oldDark)
	})
	for _, prof := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.ANSI, termenv.Ascii} {
		lipgloss.SetColorProfile(prof)
		for _, dark := range []bool{true, false} {
			lipgloss.SetHasDarkBackground(dark)
			for _, name := range themes.Names() {
				th, err := themes.Load(name)
				if err != nil {
					t.Fatal(err)
				}
				st := th.Styles()
				var styles []lipgloss.Style
				v := reflect.ValueOf(st)
				for i := range v.NumField() {
					if s, ok := v.Field(i).Interface().(lipgloss.Style); ok {
						styles = append(styles, s)
					}
				}
				overs := []lipgloss.Style{st.Selection, st.Selection.UnsetBackground().UnsetReverse().Bold(true), st.Own}
				fast := 0
				for _, s := range styles {
					all := []lipgloss.Style{s, s.Padding(0, 1), s.Width(12), s.Underline(true)}
					for _, o := range overs {
						all = append(all, s.Inherit(o))
					}
					for _, c := range all {
						if _, ok := paintKeyOf(c); ok {
							fast++
						}
						for _, text := range []string{"", " ", "#41 ✓ verified", "❯", "a\tb", "two\nlines"} {
							var b strings.Builder
							Paint(&b, c, text)
							if want := c.Render(text); b.String() != want {
								t.Errorf("%v dark=%v %s %q: paint %q, Render %q", prof, dark, name, text, b.String(), want)
							}
						}
					}
				}
				if fast == 0 {
					t.Errorf("%s: no style takes paint's shortcut", name)
				}
			}
		}
	}
}
