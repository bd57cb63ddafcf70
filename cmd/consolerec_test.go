package cmd

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/timeline"
)

// TestConsoleRecorder: the console's tee forwards every update; between
// Start and Stop it writes them to a file that replays them, starting with
// the picture shown when the recording began.
func TestConsoleRecorder(t *testing.T) {
	dir := t.TempDir()
	c := newConsoleRecorder(dir, timeline.RecordingHeader{Paths: []string{"/locks/a"}})
	t0 := time.Date(2026, 11, 25, 3, 12, 0, 0, time.UTC)
	c.now = func() time.Time { return t0 }
	in := make(chan model.Update)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := c.tee(ctx, in)
	send := func(i int) {
		t.Helper()
		snap := &model.Snapshot{At: t0.Add(time.Duration(i) * time.Second),
			Queues: model.QueuesOf(model.Queue{Path: "/locks/a", State: model.PathPresent, Nodes: model.NodesOf(make([]model.Node, i)...)})}
		in <- model.Update{Snapshot: snap}
		if u := <-out; u.Snapshot != snap {
			t.Fatalf("update %d not forwarded as it came", i)
		}
	}
	send(1) // before the recording: not in it, but its picture starts it
	file, err := c.Start()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := c.Start(); err != nil || again != file {
		t.Errorf("a second Start: %q %v, want the running %q", again, err, file)
	}
	send(2)
	send(3)
	n, err := c.Stop()
	if err != nil || n != 3 {
		t.Fatalf("Stop: %d updates, %v; want 3 (the picture at the start and two updates)", n, err)
	}
	send(4) // after: not recorded
	if _, err := c.Stop(); err == nil {
		t.Error("Stop with no recording running did not fail")
	}

	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := timeline.ReadRecording(f)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Len() != 3 || rec.Cut {
		t.Fatalf("recording holds %d steps (cut %v), want 3", rec.Len(), rec.Cut)
	}
	for i, want := range []int{1, 2, 3} {
		if got := rec.At(i); !got.Equal(t0.Add(time.Duration(want) * time.Second)) {
			t.Errorf("step %d taken at %v, want update %d's", i, got, want)
		}
	}
	if rec.Header.Started != t0 || len(rec.Header.Paths) != 1 {
		t.Errorf("header %+v", rec.Header)
	}
}
