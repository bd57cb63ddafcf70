package zkview

import (
	"testing"
	"time"

	"github.com/zklock/zklock/model"
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

// TestRootGroupEmptied: a group node below a root (no lock parent
// itself) whose last lock parent is deleted lets that parent go, as
// one whose siblings stay does. The group's events removed the name,
// and the merge taken for a group left with no plain child (it may be a
// semaphore's) no longer knew the parent was its: the Watcher kept it,
// present and empty, after the server had deleted it.
func TestRootGroupEmptied(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, root+"/alone")
	mkdirs(t, raw, root+"/pair")
	parents := []string{root + "/alone/e1", root + "/pair/e1", root + "/pair/e2"}
	for _, p := range parents {
		if _, err := makeParent(raw, p, 10); err != nil { // entity 10: one lock node
			t.Fatalf("make %s: %v", p, err)
		}
	}
	mon := session(t, c.Servers())
	rec := watch(t, mon, Options{Roots: []string{root}})
	waitFor(t, rec, 20*time.Second, "the three parents held", func(s *model.Snapshot) bool {
		for _, p := range parents {
			if q := s.Queue(p); q == nil || q.Nodes.Len() != 1 {
				return false
			}
		}
		return true
	})
	for _, p := range []string{root + "/alone/e1", root + "/pair/e1"} {
		kids, _, err := raw.Children(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := deleteParent(raw, p, kids); err != nil {
			t.Fatalf("delete %s: %v", p, err)
		}
	}
	waitFor(t, rec, 20*time.Second, "both deleted parents let go, the other kept", func(s *model.Snapshot) bool {
		return s.Queue(root+"/alone/e1") == nil && s.Queue(root+"/pair/e1") == nil && s.Queue(root+"/pair/e2") != nil
	})
}
