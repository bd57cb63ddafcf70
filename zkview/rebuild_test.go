package zkview

import (
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
)

// TestPublishKeepsLaterChanges: a build's Update tells the changes told
// up to the build, not those merged while its graph was judged (the
// snapshot does not show them yet): they stay pending, after them, and
// the dirty mark they set survives the publish.
func TestPublishKeepsLaterChanges(t *testing.T) {
	now := time.Unix(1000, 0)
	w := &Watcher{cfg: Options{Now: func() time.Time { return now }}}
	before := model.Change{At: now, Kind: model.ChangeJoined, Path: "/a", Node: model.Node{Name: "before"}}
	merged := model.Change{At: now, Kind: model.ChangeJoined, Path: "/a", Node: model.Node{Name: "merged"}}
	b := &build{snap: &model.Snapshot{At: now}, now: now, changes: []model.Change{before}, dropped: 2}
	w.pending, w.dropped, w.dirty = []model.Change{merged}, 1, true
	later, laterDropped := w.publishLocked(b)
	if w.snap != b.snap {
		t.Error("the build's snapshot is not published")
	}
	if len(w.pending) != 1 || w.pending[0].Node.Name != "before" || w.dropped != 2 {
		t.Errorf("pending after the publish: %v dropped %d, want the build's change and its 2", w.pending, w.dropped)
	}
	if len(later) != 1 || later[0].Node.Name != "merged" || laterDropped != 1 || !w.dirty {
		t.Errorf("later %v dropped %d dirty %v, want the merged change, 1, dirty", later, laterDropped, w.dirty)
	}
	w.pending = nil
	w.pendLocked(later, laterDropped)
	if len(w.pending) != 1 || w.dropped != 1+2 {
		t.Errorf("pendLocked: %d pending, %d dropped", len(w.pending), w.dropped)
	}
}

// TestPendLockedTrims: changes put back after a build are held to
// model.MaxPendingChanges, the oldest dropped and counted.
func TestPendLockedTrims(t *testing.T) {
	w := &Watcher{}
	many := make([]model.Change, model.MaxPendingChanges+3)
	for i := range many {
		many[i].Node.Name = string(rune('a' + i%26))
	}
	w.pending = []model.Change{{Node: model.Node{Name: "first"}}}
	w.pendLocked(many, 0)
	if len(w.pending) != model.MaxPendingChanges || w.dropped != 4 {
		t.Fatalf("%d pending, %d dropped, want %d and 4", len(w.pending), w.dropped, model.MaxPendingChanges)
	}
	if !slices.Equal(namesOf(w.pending[len(w.pending)-2:]), namesOf(many[len(many)-2:])) {
		t.Error("the newest changes were not kept")
	}
}

func namesOf(cs []model.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Node.Name
	}
	return out
}
