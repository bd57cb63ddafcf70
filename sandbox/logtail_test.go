package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestLastLines(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb\nc", 5, "a\nb\nc"},
		{"", 3, ""},
		{"a\n", 1, "a"},
	}
	for _, tt := range tests {
		if got := lastLines(tt.in, tt.n); got != tt.want {
			t.Errorf("lastLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestTailFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	// More than tailBytes, so only the end is read.
	big := strings.Repeat(strings.Repeat("x", 99)+"\n", 5000) + "last but one\nlast\n"
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := tailFile(path, 2); got != "last but one\nlast" {
		t.Errorf("tailFile = %q", got)
	}
	if got := tailFile(filepath.Join(t.TempDir(), "none"), 2); !strings.HasPrefix(got, "(no log") {
		t.Errorf("missing file: %q", got)
	}
}

func TestPrefixWriter(t *testing.T) {
	var mu sync.Mutex
	var out strings.Builder
	w := &prefixWriter{mu: &mu, dst: &out, prefix: []byte("zk1| ")}
	for _, chunk := range []string{"one\ntw", "o\n", "three"} {
		w.Write([]byte(chunk))
	}
	if got, want := out.String(), "zk1| one\nzk1| two\n"; got != want {
		t.Errorf("got %q, want %q (a partial line waits)", got, want)
	}
}
