package zkview

import (
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// TestTellExpiries: a holder last seen silent for 9 s of its 12 s timeout,
// gone at the expiry that made due, is told session-lost "expired"; gone
// well before it, or with no server view, it stays a release.
func TestTellExpiries(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 22, 47, 0, 0, time.UTC)
	holder := model.Node{Name: "lock-0000000007", Seq: 7, Session: 0x51, Role: ordering.RoleHolder}
	holder.SetHealth(model.Health{Member: "127.0.0.1:2181", Heard: t0.Add(-9 * time.Second),
		Timeout: 12 * time.Second, Expires: t0.Add(3 * time.Second), At: t0})
	prev := &model.Snapshot{At: t0, ServerView: true,
		Queues: model.QueuesOf(model.Queue{Path: "/l", State: model.PathPresent, Nodes: model.NodesOf(holder)})}
	gone := func(at time.Time) []model.Change {
		return []model.Change{{At: at, Kind: model.ChangeReleased, Path: "/l", Node: model.Node{Name: holder.Name, Seq: 7}}}
	}
	cases := []struct {
		name string
		prev *model.Snapshot
		at   time.Time
		want model.ChangeKind
	}{
		{"at the expiry", prev, t0.Add(3*time.Second + 10*time.Millisecond), model.ChangeSessionLost},
		{"before it", prev, t0.Add(time.Second), model.ChangeReleased},
		{"no server view", &model.Snapshot{At: t0, Queues: prev.Queues}, t0.Add(3 * time.Second), model.ChangeReleased},
	}
	for _, tc := range cases {
		cs := gone(tc.at)
		tellExpiries(tc.prev, cs)
		if cs[0].Kind != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, cs[0].Kind, tc.want)
		}
		if tc.want == model.ChangeSessionLost && (cs[0].Cause != model.CauseExpired || cs[0].Node.Session != 0x51) {
			t.Errorf("%s: cause %v session %#x, want expired 0x51", tc.name, cs[0].Cause, cs[0].Node.Session)
		}
	}
}
