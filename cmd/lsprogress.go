package cmd

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/zklock/zklock/model"
)

// loadProgress tells on a terminal how far a read of roots has come
// (zkview.Options.LoadProgress), on one line rewritten in place and
// cleared at the end, so that nothing of it is left among the output
// (which goes to stdout, never here).
type loadProgress struct {
	w     io.Writer
	shown bool
}

// progressTo is the progress of a read of roots told on w, nil when w is
// not a terminal: a script's stderr gets no line rewritten every second.
func progressTo(w io.Writer, roots []string) *loadProgress {
	f, ok := w.(*os.File)
	if !ok || len(roots) == 0 || !isTerminal(f) {
		return nil
	}
	return &loadProgress{w: w}
}

// tell rewrites the line: "discovering /locks: 41,203 of 98,000 read,
// 4,120 lock parents, 12s".
func (p *loadProgress) tell(ds []model.Discovery) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s, %s lock parents, %s", model.DiscoveryText(ds), model.Grouped(ds[0].Parents), ds[0].Took.Round(time.Second))
	p.shown = true
}

// done clears the line, if one was told.
func (p *loadProgress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
