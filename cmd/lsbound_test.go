package cmd

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

// TestBoundReadByProgress: a read of roots lasts as long as it reads
// (here three bounds' worth of steady progress), and ends, naming why,
// once nothing new is read for its bound; a read of paths is bounded in
// all.
func TestBoundReadByProgress(t *testing.T) {
	const bound = time.Second
	cfg := zkview.Options{Roots: []string{"/locks"}}
	ctx, cancel := boundRead(context.Background(), &cfg, bound, nil)
	defer cancel()
	start := time.Now()
	for read := 1; time.Since(start) < 3*bound; read++ {
		cfg.LoadProgress([]model.Discovery{{Root: "/locks", Read: read * 100}})
		if ctx.Err() != nil {
			t.Fatalf("ended after %s while reading: %v", time.Since(start), context.Cause(ctx))
		}
		time.Sleep(bound / 20)
	}
	cfg.LoadProgress([]model.Discovery{{Root: "/locks", Read: 1}}) // no more than before
	select {
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("a read without progress was never ended")
	}
	if err := readErr(ctx, ctx.Err()); !errors.Is(err, errNoProgress) {
		t.Fatalf("the error %v does not say the read made no progress", err)
	}

	paths := zkview.Options{Paths: []string{"/locks/a"}}
	pctx, pcancel := boundRead(context.Background(), &paths, bound, nil)
	defer pcancel()
	if paths.LoadProgress != nil {
		t.Fatal("a read of paths is bounded by progress")
	}
	if d, ok := pctx.Deadline(); !ok || d.After(time.Now().Add(bound)) {
		t.Fatalf("a read of paths has no deadline within %s: %v %v", bound, d, ok)
	}
}
