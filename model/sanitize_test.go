package model

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestSanitizeString(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"plain", "lock-0000000007", 0, "lock-0000000007"},
		{"empty", "", 5, ""},
		{"esc sequence", "\x1b[31mred\x1b[0m", 0, `\x1b[31mred\x1b[0m`},
		{"osc 52 clipboard", "\x1b]52;c;ZXZpbA==\x07", 0, `\x1b]52;c;ZXZpbA==\x07`},
		{"tab newline cr", "a\tb\nc\rd", 0, `a\tb\nc\rd`},
		{"nul and del", "\x00\x7f", 0, `\x00\x7f`},
		{"c1 csi", "x\u009b2Jy", 0, `x\u009b2Jy`},
		{"c1 as raw byte is invalid utf-8", "x\x9by", 0, `x\x9by`},
		{"invalid utf-8", "\xff\xfe ok", 0, `\xff\xfe ok`},
		{"truncated rune", "ab\xe2\x82", 0, `ab\xe2\x82`},
		{"bidi override", "evil\u202egpj.exe", 0, `evil\u202egpj.exe`},
		{"bidi isolates", "\u2066x\u2069", 0, `\u2066x\u2069`},
		{"line separator", "a\u2028b", 0, `a\u2028b`},
		{"zero width joiner", "a\u200db", 0, `a\u200db`},
		{"tag character", "a\U000E0041", 0, `a\U000e0041`},
		{"backslash kept", `C:\dir`, 0, `C:\dir`},
		{"unicode kept", "héllo 世界", 0, "héllo 世界"},
		{"cut ascii", "abcdefghij", 5, "abcd…"},
		{"fits exactly", "abcde", 5, "abcde"},
		{"cut to one", "abcdef", 1, "…"},
		{"cut wide", "世界世界", 5, "世界…"},
		{"cut wide odd", "世界世界", 4, "世…"},
		{"cut never splits escape", "ab\x1bcd", 5, "ab…"},
		{"cut after escape", "a\x1bcdef", 7, `a\x1bc…`},
		{"negative max means no cut", "abcdef", -1, "abcdef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SanitizeString(tt.in, tt.max)
			if got != tt.want {
				t.Errorf("SanitizeString(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
			if b := Sanitize([]byte(tt.in), tt.max); b != got {
				t.Errorf("Sanitize and SanitizeString differ: %q vs %q", b, got)
			}
		})
	}
}

func TestSanitizeIdempotent(t *testing.T) {
	for _, in := range []string{"\x1b[2J\\x1b", "a\u202eb", "\xff\xfe", `\\`, "世界\x00"} {
		once := SanitizeString(in, 0)
		if twice := SanitizeString(once, 0); twice != once {
			t.Errorf("not idempotent: %q -> %q -> %q", in, once, twice)
		}
	}
}

// checkSafe fails t when out could act on a terminal or break a column.
func checkSafe(t *testing.T, in []byte, max int, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Sanitize(%q, %d) = %q: not valid UTF-8", in, max, out)
	}
	for _, r := range out {
		switch {
		case r < 0x20, r == 0x7f:
			t.Fatalf("Sanitize(%q, %d) = %q: contains C0/DEL %U", in, max, out, r)
		case r >= 0x80 && r <= 0x9f:
			t.Fatalf("Sanitize(%q, %d) = %q: contains C1 %U", in, max, out, r)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f:
			t.Fatalf("Sanitize(%q, %d) = %q: contains bidi control %U", in, max, out, r)
		}
	}
	if max > 0 {
		if w := ansi.StringWidth(out); w > max {
			t.Fatalf("Sanitize(%q, %d) = %q: width %d > %d", in, max, out, w, max)
		}
	}
	if again := SanitizeString(out, max); again != out {
		t.Fatalf("Sanitize(%q, %d) = %q, but sanitizing it again gives %q", in, max, out, again)
	}
	if max <= 0 && !strings.ContainsRune(out, '…') && len(in) > 0 && out == "" {
		t.Fatalf("Sanitize(%q, %d) lost everything", in, max)
	}
}

func FuzzSanitize(f *testing.F) {
	// More seeds live in testdata/fuzz/FuzzSanitize.
	f.Add([]byte("_c_6a3f0a1e-2b4c-4d5e-8f90-1a2b3c4d5e6f-lock-0000000007"), 0)
	f.Add([]byte("\x1b[31mred\x1b[0m"), 8)
	f.Add([]byte("\xe2\x80\xae\xc2\x9b\xff"), 3)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max > 1<<20 {
			max = 1 << 20
		}
		out := Sanitize(in, max)
		checkSafe(t, in, max, out)
		if isPlainASCII(string(in)) && (max <= 0 || len(in) <= max) && out != string(in) {
			t.Fatalf("plain %q changed to %q", in, out)
		}
	})
}

func BenchmarkSanitizePlain(b *testing.B) {
	s := "_c_6a3f0a1e-2b4c-4d5e-8f90-1a2b3c4d5e6f-lock-0000000007"
	for b.Loop() {
		SanitizeString(s, 40)
	}
}

func BenchmarkSanitizeHostile(b *testing.B) {
	s := strings.Repeat("\x1b[2J\u202e世\xff", 64)
	for b.Loop() {
		SanitizeString(s, 60)
	}
}
