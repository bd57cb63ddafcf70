package zkview

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
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
	go func() {
		var all []seen
		for u := range w.Updates() {
			js, _ := json.Marshal(u.Snapshot) // a snapshot always marshals
			all = append(all, seen{u.Snapshot, js})
		}
		got <- all
	}()
	seed := time.Now().UnixNano()
	t.Logf("churn seed %d", seed)
	churnEntities(t, raw, tr, rand.New(rand.NewPCG(uint64(seed), 35)), 300)
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
	if len(all) < 20 {
		t.Fatalf("only %d snapshots published under churn", len(all))
	}
	for i, s := range all {
		js, _ := json.Marshal(s.snap)
		if string(js) != string(s.js) {
			t.Fatalf("snapshot %d of %d changed after it was published", i, len(all))
		}
	}
}
