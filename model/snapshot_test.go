package model

import "testing"

// TestSnapshotQueue: the lookup finds every queue of a sorted snapshot and
// of one out of order, and nothing where there is no queue or no snapshot.
func TestSnapshotQueue(t *testing.T) {
	sorted := &Snapshot{Queues: QueuesOf(Queue{Path: "/a"}, Queue{Path: "/locks/b"}, Queue{Path: "/locks/c"})}
	unsorted := &Snapshot{Queues: QueuesOf(Queue{Path: "/z"}, Queue{Path: "/a"}, Queue{Path: "/m"})}
	var none *Snapshot
	for _, tc := range []struct {
		snap *Snapshot
		path string
		want int // index into snap.Queues, -1 for nil
	}{
		{sorted, "/a", 0},
		{sorted, "/locks/b", 1},
		{sorted, "/locks/c", 2},
		{sorted, "/locks", -1},
		{sorted, "/zz", -1},
		{unsorted, "/z", 0},
		{unsorted, "/a", 1},
		{unsorted, "/m", 2},
		{unsorted, "/b", -1},
		{&Snapshot{}, "/a", -1},
		{none, "/a", -1},
	} {
		got := tc.snap.Queue(tc.path)
		switch {
		case tc.want < 0 && got != nil:
			t.Errorf("Queue(%q) = %q, want nil", tc.path, got.Path)
		case tc.want >= 0 && got != tc.snap.Queues.At(tc.want):
			t.Errorf("Queue(%q) = %v, want queue %d of the snapshot", tc.path, got, tc.want)
		}
	}
}
