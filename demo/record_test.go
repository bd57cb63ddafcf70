package demo

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/timeline"
	"github.com/zklock/zklock/zkview"
)

// TestDemoRecordingReplays: a recording of the demo's five queues (locks,
// the read/write lock, the semaphore, the election) replays, at every
// recorded update, the very snapshot the Watcher published then.
func TestDemoRecordingReplays(t *testing.T) {
	ctx, view := runningDemo(t)
	w, err := zkview.Watch(ctx, view, zkview.Options{Paths: Paths(), SemaphoreLimits: Limits(), ServerView: true})
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	r, err := timeline.NewRecorder(&file, timeline.RecordingHeader{Started: time.Now(), Zklock: "test", Paths: Paths()})
	if err != nil {
		t.Fatal(err)
	}
	r.FullEvery = time.Second
	var live []model.Update
	end := time.After(6 * time.Second)
record:
	for {
		select {
		case u := <-w.Updates():
			live = append(live, u)
			if err := r.Record(u); err != nil {
				t.Fatal(err)
			}
		case <-end:
			break record
		}
	}
	w.Close()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := timeline.ReadRecording(bytes.NewReader(file.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Cut || rec.Len() != len(live) || len(live) < 10 {
		t.Fatalf("read back %d steps (cut %v), recorded %d", rec.Len(), rec.Cut, len(live))
	}
	cur := rec.NewCursor()
	types := map[model.QueueType]bool{}
	for i, u := range live {
		want, _ := json.Marshal(u.Snapshot)
		got, _ := json.Marshal(cur.Seek(i))
		if !bytes.Equal(got, want) {
			t.Fatalf("step %d: the replayed snapshot differs from the live one:\nlive   %s\nreplay %s", i, want, got)
		}
		for _, q := range u.Snapshot.Queues.All() {
			types[q.Type] = true
		}
	}
	for _, typ := range []model.QueueType{model.TypeMutex, model.TypeRWLock, model.TypeSemaphore, model.TypeElection} {
		if !types[typ] {
			t.Errorf("the recording never showed a %s queue", typ)
		}
	}
	t.Logf("%d updates, %d bytes", len(live), file.Len())
}
