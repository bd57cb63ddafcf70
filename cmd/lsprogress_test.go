package cmd

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
)

// TestLoadProgressLine: the progress of `ls --root` rewrites one line
// and clears it at the end; a stderr that is no terminal (a pipe, a
// file, a buffer) gets none.
func TestLoadProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := &loadProgress{w: &b}
	p.done()
	if b.Len() != 0 {
		t.Fatalf("cleared a line never told: %q", b.String())
	}
	p.tell([]model.Discovery{{Root: "/locks", Read: 41203, Found: 98000, Parents: 4120, Took: 12300 * time.Millisecond}})
	p.tell(nil)
	p.done()
	const want = "\r\x1b[Kdiscovering /locks: 41,203 of 98,000 read, 4,120 lock parents, 12s\r\x1b[K"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}

	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, w := range []io.Writer{&b, f} {
		if progressTo(w, []string{"/locks"}) != nil {
			t.Errorf("progress told on %T, no terminal", w)
		}
	}
}
