package cmd

// The console's recorder: ctrl+r in the console starts a recording of what
// it shows (zklock record's format, for zklock replay) and stops it. The
// Watcher's updates pass through a tee on their way to the console; while
// a recording runs, each one is written first.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/timeline"
)

// consoleRecorder implements ui.Recorder.
type consoleRecorder struct {
	dir    string // where recordings go
	header timeline.RecordingHeader
	now    func() time.Time

	mu   sync.Mutex
	last *model.Update // the newest update: a recording starts with it
	f    *os.File
	rec  *timeline.Recorder
	n    int
	err  error // the first write error of the running recording
}

// tee forwards in to the returned channel until ctx ends or in closes,
// recording each update first while a recording runs.
func (c *consoleRecorder) tee(ctx context.Context, in <-chan model.Update) <-chan model.Update {
	out := make(chan model.Update)
	go func() {
		defer close(out)
		for {
			var u model.Update
			var ok bool
			select {
			case <-ctx.Done():
				return
			case u, ok = <-in:
				if !ok {
					return
				}
			}
			c.record(u)
			select {
			case <-ctx.Done():
				return
			case out <- u:
			}
		}
	}()
	return out
}

func (c *consoleRecorder) record(u model.Update) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = &u
	if c.rec == nil || c.err != nil {
		return
	}
	if err := c.rec.Record(u); err != nil {
		c.err = err
		return
	}
	c.n++
}

// Start opens a new file in the recordings' directory and writes the
// console's current picture to it as the first snapshot.
func (c *consoleRecorder) Start() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rec != nil {
		return c.f.Name(), nil
	}
	at := c.now()
	name := filepath.Join(c.dir, "zklock-"+at.UTC().Format("20060102-150405")+".zkrec")
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("record: %w", err)
	}
	h := c.header
	h.Started = at
	rec, err := timeline.NewRecorder(f, h)
	if err != nil {
		f.Close()
		os.Remove(name)
		return "", err
	}
	c.f, c.rec, c.n, c.err = f, rec, 0, nil
	if c.last != nil {
		// The picture on the screen now: what the first full snapshot
		// holds, with no events (those were shown before the start).
		if err := rec.Record(model.Update{Snapshot: c.last.Snapshot}); err != nil {
			c.err = err
		} else {
			c.n++
		}
	}
	return name, nil
}

// Stop ends the running recording (the file replays even if this fails).
func (c *consoleRecorder) Stop() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rec == nil {
		return 0, errors.New("record: no recording runs")
	}
	err := errors.Join(c.err, c.rec.Close(), c.f.Close())
	n := c.n
	c.f, c.rec, c.n, c.err = nil, nil, 0, nil
	return n, err
}

// close stops a recording still running when the console ends.
func (c *consoleRecorder) close() {
	c.mu.Lock()
	running := c.rec != nil
	c.mu.Unlock()
	if running {
		_, _ = c.Stop()
	}
}

// newConsoleRecorder records into dir (the current directory when empty).
func newConsoleRecorder(dir string, h timeline.RecordingHeader) *consoleRecorder {
	if dir == "" {
		dir = "."
	}
	h.Servers = strings.TrimSpace(h.Servers)
	return &consoleRecorder{dir: dir, header: h, now: time.Now}
}
