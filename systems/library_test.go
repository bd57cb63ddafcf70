package systems

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/zklock/zklock/lockops/ordering"
)

// The library recipes' layouts, as the lock core's tests, the fault
// suite (lockops/faults_test.go) and the demo plant them, are no system's:
// names from lockops/ordering/names.go's table, written as each library does.
const (
	curatorUUID = "0b7d1a4e-3c1f-4f6e-9a7e-2d9c5b1e8f00" // Curator's protection: _c_<uuid>-
	gozkHex     = "6f1c0e2d9a8b4c7d8e9f0a1b2c3d4e5f"     // go-zookeeper's _c_<32 hex>-
	kazooHex    = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"     // Kazoo's uuid4().hex
)

// curatorNode is a protected Curator node prefix: _c_<uuid>-<marker>.
func curatorNode(dir, marker string, i int) string {
	return fmt.Sprintf("%s/_c_%s%d-%s", dir, curatorUUID[:len(curatorUUID)-1], i%10, marker)
}

// libraryLayouts are the recipes the libraries build, each under a path
// of the kind the tests use, some under a directory name a system also
// uses ("election", "leader_election", "leader", "latch") to show that a
// name alone recognises nothing.
func libraryLayouts() map[string][]spec {
	contenders := func(n int, mk func(i int) spec) []spec {
		var out []spec
		for i := range n {
			out = append(out, mk(i))
		}
		return out
	}
	ip := []byte("127.0.0.1") // Curator's default node data: the client's address
	return map[string][]spec{
		// Curator InterProcessMutex, LeaderSelector (a mutex with the id).
		"curator mutex": contenders(3, func(i int) spec { return ephSeq(curatorNode("/faults/curator-1", "lock-", i), i, ip) }),
		"curator selector": contenders(3, func(i int) spec {
			return ephSeq(curatorNode("/services/api/leader", "lock-", i), i, fmt.Appendf(nil, "api-%d", i))
		}),
		// Curator InterProcessReadWriteLock.
		"curator rwlock": {
			ephSeq(curatorNode("/locks/orders", "__READ__", 0), 0, ip),
			ephSeq(curatorNode("/locks/orders", "__READ__", 1), 1, ip),
			ephSeq(curatorNode("/locks/orders", "__WRIT__", 2), 2, ip),
		},
		// Curator InterProcessSemaphoreV2: its lock and its leases.
		"curator semaphore": {
			ephSeq(curatorNode("/demo/locks/render-slots/locks", "lock-", 0), 0, ip),
			ephSeq(curatorNode("/demo/locks/render-slots/leases", "lease-", 1), 1, ip),
			ephSeq(curatorNode("/demo/locks/render-slots/leases", "lease-", 2), 2, ip),
		},
		// Curator LeaderLatch, under the demo's name and under names a
		// system's election also has.
		"curator latch": contenders(3, func(i int) spec {
			return ephSeq(curatorNode("/demo/locks/scheduler-leader", "latch-", i), i, fmt.Appendf(nil, "scheduler@sched-%c", 'a'+i))
		}),
		"curator latch named election": contenders(2, func(i int) spec {
			return ephSeq(curatorNode("/app/overseer_elect/election", "latch-", i), i, nil)
		}),
		"curator latch named leader_election": contenders(2, func(i int) spec {
			return ephSeq(curatorNode("/app/leader_election", "latch-", i), i, nil)
		}),
		// go-zookeeper's Lock, and lockops' own gozk style.
		"gozk mutex": contenders(3, func(i int) spec {
			return ephSeq(fmt.Sprintf("/faults/gozk-1/_c_%s-lock-", gozkHex), i, nil)
		}),
		// Kazoo Lock, ReadLock/WriteLock, Election (a Lock), Semaphore.
		"kazoo lock": contenders(3, func(i int) spec {
			return ephSeq(fmt.Sprintf("/faults/kazoo-1/%s__lock__", kazooHex), i, fmt.Appendf(nil, "worker-%d", i))
		}),
		"kazoo rwlock": {
			ephSeq(fmt.Sprintf("/locks/reports/%s__rlock__", kazooHex), 0, nil),
			ephSeq(fmt.Sprintf("/locks/reports/%s__lock__", kazooHex), 1, nil),
		},
		"kazoo election": contenders(2, func(i int) spec {
			return ephSeq(fmt.Sprintf("/app/election/%s__lock__", kazooHex), i, []byte("host-1"))
		}),
		"kazoo semaphore": {
			persistent("/locks/slots", []byte("3")),
			ephSeq(fmt.Sprintf("/locks/slots/lock/%s__lock__", kazooHex), 0, nil),
			ephemeral("/locks/slots/"+kazooHex, 0, []byte("worker-0")),
			ephemeral("/locks/slots/"+strings.Repeat("a", 32), 1, []byte("worker-1")),
		},
		// lockops' plain style: lock-N.
		"plain mutex": contenders(3, func(i int) spec { return ephSeq("/latch/lock-", i, nil) }),
	}
}

// TestLibraryRecipesNoSystem: no library recipe's layout, alone or all in
// one tree, is read as a system's (no false alarm: a system named, a
// leader-mismatch, where the fault suite and the demo run).
func TestLibraryRecipesNoSystem(t *testing.T) {
	all := NewMemTree()
	for name, specs := range libraryLayouts() {
		t.Run(name, func(t *testing.T) {
			if recs := Scan(mem(specs...), "/"); len(recs) > 0 {
				t.Errorf("recognised %s as %s %q", recs[0].Path, recs[0].System, recs[0].Label)
			}
		})
		// Each name is its library's, as the lock core reads it.
		for _, p := range memBuild(all, fakeSessions, specs...) {
			if base := path.Base(p); strings.Contains(base, "__") || strings.Contains(base, "-") {
				if _, ok := ordering.ParseName(base); !ok {
					t.Errorf("%s: %s is no recipe's name", name, base)
				}
			}
		}
	}
	for _, rec := range Scan(all, "/") {
		t.Errorf("in one tree: recognised %s as %s %q (%d findings)", rec.Path, rec.System, rec.Label, len(rec.Findings))
	}
	if all.Len() < 40 {
		t.Fatalf("the tree holds %d nodes: the layouts were not planted", all.Len())
	}
}
