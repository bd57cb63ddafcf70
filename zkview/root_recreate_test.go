package zkview

import (
	"testing"
	"time"
)

// TestRootRecreatedParents: parents deleted and made again (same name, a
// node in each) while the root Watcher still lists them: a parent's own
// listing that lands between the delete and the create finds NoNode and
// drops the parent, while its group, taking "deleted, created" in one
// batch, sees no change and never finds it again.
func TestRootRecreatedParents(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	raw := rawConn(t, c.Servers())
	tr := makeEntityTree(t, raw, root, 1500, 2)
	mon := session(t, c.Servers())
	rec := watch(t, mon, Options{Roots: []string{root}})
	// Churn at once, while the first listings are under way.
	var ps []string
	for p := range tr.parents {
		ps = append(ps, p)
	}
	for round := range 3 {
		batch := ps[round*100 : (round+1)*100]
		for _, p := range batch {
			if err := deleteParent(raw, p, tr.parents[p]); err != nil {
				t.Fatalf("delete %s: %v", p, err)
			}
		}
		time.Sleep(30 * time.Millisecond) // the gap the parents' listings may land in (load, not sync)
		for _, p := range batch {
			nodes, err := makeParent(raw, p, 10)
			if err != nil {
				t.Fatalf("make %s: %v", p, err)
			}
			tr.parents[p] = nodes
		}
	}
	fresh := freshPicture(t, mon, root)
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := rec.Snapshot()
		part := rootPicture(s, false)
		if s.Unread == 0 && part == fresh {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("recursive watcher (%s, unread %d) against the fresh read:\n%s", s.WatchMode, s.Unread, pictureDiff(fresh, part))
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, with a deadline
	}
}
