package zkview

import (
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
)

// TestDiscovery: lock parents below a root are found down to MaxDepth,
// kept current as parents come and go, and nothing deeper is taken.
func TestDiscovery(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, root+"/svc/a")
	mkdirs(t, raw, root+"/svc/empty")
	mkdirs(t, raw, root+"/x/y/z/deep")
	createSeq(t, raw, root+"/svc/a", "lock-", nil)
	createSeq(t, raw, root+"/x/y/z/deep", "lock-", nil) // depth 4: beyond MaxDepth 3
	mkdirs(t, raw, root+"/svc/a/leases")                // an "other" child of a lock parent

	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Roots: []string{root}, MaxDepth: 3})
	paths := func(s *model.Snapshot) []string {
		var ps []string
		for _, q := range s.Queues.All() {
			ps = append(ps, q.Path)
		}
		return ps
	}
	// Discovered first, read next: a found parent is "pending" until its
	// listing arrives, so the wait is for both.
	snap := waitFor(t, w, 10*time.Second, "svc/a discovered and read", func(s *model.Snapshot) bool {
		q := queueOf(s, root+"/svc/a")
		return slices.Equal(paths(s), []string{root + "/svc/a"}) && q != nil && q.State == model.PathPresent
	})
	if q := queueOf(snap, root+"/svc/a"); !slices.Equal(q.Other(), []string{"leases"}) || q.Nodes.Len() != 1 {
		t.Errorf("queue %+v", q)
	}

	// A new lock parent appears; an old one is deleted.
	mkdirs(t, raw, root+"/svc/b")
	createSeq(t, raw, root+"/svc/b", "_c_0123456789abcdef0123456789abcdef-lock-", nil)
	waitFor(t, w, 10*time.Second, "svc/b discovered", func(s *model.Snapshot) bool {
		return slices.Equal(paths(s), []string{root + "/svc/a", root + "/svc/b"})
	})
	for _, kid := range []string{"leases"} {
		if err := raw.Delete(root+"/svc/a/"+kid, -1); err != nil {
			t.Fatal(err)
		}
	}
	kids, _, err := raw.Children(root + "/svc/a")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kids {
		if err := raw.Delete(root+"/svc/a/"+k, -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Delete(root+"/svc/a", -1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, 10*time.Second, "svc/a gone", func(s *model.Snapshot) bool {
		return slices.Equal(paths(s), []string{root + "/svc/b"})
	})

	// Load finds the same.
	snap, err = Load(tctx(t, 10*time.Second), mon, Options{Roots: []string{root}, MaxDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(paths(snap), []string{root + "/svc/b"}) {
		t.Errorf("Load found %v", paths(snap))
	}
	// A bound on parents is said.
	snap, err = Load(tctx(t, 10*time.Second), mon, Options{Roots: []string{root}, MaxDepth: 4, MaxParents: 1})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Queues.Len() != 1 || !snap.DiscoveryCapped {
		t.Errorf("MaxParents 1: %v capped %v", paths(snap), snap.DiscoveryCapped)
	}
}
