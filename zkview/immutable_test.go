package zkview

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
)

// TestPublishedSnapshotsUnchanged: under random churn across a root of
// lock parents, every snapshot published stays as it was when it was
// handed out (the next ones share its chunks of queues and patch copies
// of them), and the Watcher's list of queues patched change by change is
// the list of its models' built queues in path order, as a build of
// every queue would make it.
func TestPublishedSnapshotsUnchanged(t *testing.T) {
	const churnBatches = 30
	c := testCluster(t)
	root := testPath(t)
	raw := rawConn(t, c.Servers())
	tr := makeEntityTree(t, raw, root, 300, 3)
	mon := session(t, c.Servers())
	w, err := Watch(context.Background(), mon, Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		snap *model.Snapshot
		js   []byte
	}
	got := make(chan []seen, 1)
	var published atomic.Int64
	go func() {
		var all []seen
		for u := range w.Updates() {
			js, _ := json.Marshal(u.Snapshot) // a snapshot always marshals
			all = append(all, seen{u.Snapshot, js})
			published.Add(1)
		}
		got <- all
	}()
	seed := time.Now().UnixNano()
	t.Logf("churn seed %d", seed)
	// The churn in batches, each let out in a snapshot of its own before
	// the next: one run of 300 changes fits in as few frames as the
	// machine is fast (19 once, in CI), and the check wants many
	// snapshots that share chunks.
	rng := rand.New(rand.NewPCG(uint64(seed), 35))
	for range churnBatches {
		before := published.Load()
		churnEntities(t, raw, tr, rng, 300/churnBatches)
		for deadline := time.Now().Add(5 * time.Second); published.Load() == before && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	converge(t, freshPicture(t, mon, root), &testWatcher{Watcher: w})

	w.buildMu.Lock()
	w.rebuild()
	w.mu.Lock()
	base := w.base.Slice()
	w.allDirty, w.dirty = true, true
	w.mu.Unlock()
	w.rebuild() // every queue built afresh
	w.mu.Lock()
	afresh := w.base.Slice()
	w.mu.Unlock()
	w.buildMu.Unlock()
	if !reflect.DeepEqual(base, afresh) {
		t.Errorf("the patched list of %d queues is not the %d queues built afresh", len(base), len(afresh))
	}
	w.Close()
	all := <-got
	if len(all) < churnBatches {
		t.Fatalf("only %d snapshots published under churn", len(all))
	}
	for i, s := range all {
		js, _ := json.Marshal(s.snap)
		if string(js) != string(s.js) {
			t.Fatalf("snapshot %d of %d changed after it was published", i, len(all))
		}
	}
}
