package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
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

// errNoProgress ends a read of roots that has read nothing new for its
// bound: an ensemble that stopped answering, not a big tree.
var errNoProgress = errors.New("the read of the roots made no progress")

// boundRead bounds the read of a snapshot (ls, sessions) from ctx: bound
// in all for paths, or, with roots, bound without a node read (a root of
// 100,000 parents takes half a minute and more on a busy ensemble: a
// total bound would fail a read still going well). It sets
// cfg.LoadProgress to keep the bound, telling p, when not nil, on its
// terminal as well. The error of a read it ended names why (readErr).
func boundRead(ctx context.Context, cfg *zkview.Options, bound time.Duration, p *loadProgress) (context.Context, context.CancelFunc) {
	if len(cfg.Roots) == 0 {
		return context.WithTimeout(ctx, bound)
	}
	bctx, cancel := context.WithCancelCause(ctx)
	stall := time.AfterFunc(bound, func() { cancel(fmt.Errorf("%w for %s", errNoProgress, bound)) })
	var mu sync.Mutex
	read := 0
	cfg.LoadProgress = func(ds []model.Discovery) {
		n := 0
		for _, d := range ds {
			n += d.Read
		}
		mu.Lock()
		if n > read {
			read = n
			stall.Reset(bound)
		}
		mu.Unlock()
		if p != nil {
			p.tell(ds)
		}
	}
	return bctx, func() { stall.Stop(); cancel(nil) }
}

// readErr is err of a read that ctx bounded, naming the bound that ended
// it.
func readErr(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errNoProgress) {
		return cause
	}
	return err
}
