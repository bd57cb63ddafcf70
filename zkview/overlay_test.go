package zkview

import (
	"slices"
	"testing"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/third_party/zk"
)

// TestWatchEvents: what an Overlay is told of a watch's batch: every
// change but the session's and the watch's end, a node made or deleted
// told as such only from a root's watch (its barriers are read again
// then, a path's own watch leaves them to the full reads).
func TestWatchEvents(t *testing.T) {
	batch := []zk.Event{
		{Type: zk.EventNodeCreated, Path: "/a/b"},
		{Type: zk.EventNodeDataChanged, Path: "/a/c"},
		{Type: zk.EventSession},
		{Type: zk.EventNodeDeleted, Path: "/a/d"},
		{Type: zk.EventNodeChildrenChanged, Path: "/a"},
		{Type: zk.EventNotWatching, Path: "/a"},
	}
	for _, tc := range []struct {
		name string
		root bool
		want []WatchEvent
	}{
		{name: "a path's watch", want: []WatchEvent{{Path: "/a/b"}, {Path: "/a/c"}, {Path: "/a/d"}, {Path: "/a"}}},
		{name: "a root's watch", root: true,
			want: []WatchEvent{{Path: "/a/b", Existence: true}, {Path: "/a/c"}, {Path: "/a/d", Existence: true}, {Path: "/a"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := watchEvents(&lockops.Session{}, batch, tc.root); !slices.Equal(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
