package holds

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// TestFeedKeepsOrderAndEnds: reports queued while nobody reads come out
// in order; a burst of one lock's one state keeps its last report only,
// and a new node's report never hides the old node's end.
func TestFeedKeepsOrderAndEnds(t *testing.T) {
	life, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &feed[string]{out: make(chan string), kick: make(chan struct{}, 1)}
	k := func(node string, st ordering.LockState) feedKey { return feedKey{path: "/l", node: node, state: st} }
	f.send(k("a", ordering.LockQueued), "a queued 3rd")
	f.send(k("a", ordering.LockQueued), "a queued 2nd")
	f.send(k("a", ordering.LockHolding), "a holding")
	f.send(k("a", ordering.LockLost), "a lost")
	f.send(k("b", ordering.LockLost), "b lost")
	f.send(k("b", ordering.LockQueued), "b queued")
	go f.pump(life)
	want := []string{"a queued 2nd", "a holding", "a lost", "b lost", "b queued"}
	var got []string
	deadline := time.After(10 * time.Second)
	for len(got) < len(want) {
		select {
		case r := <-f.out:
			got = append(got, r)
		case <-deadline:
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
