package zkview

import (
	"slices"
	"testing"
	"time"

	"zklock/lockops"
)

// opExists is the protocol's exists opcode, which the audit of a
// persistent watch sends (see unreported).
const opExists = 3

// TestRecursiveChangeCost: with persistent recursive watches a change in a
// watched queue costs the read of the new node and nothing else: no
// listing of the queue, whatever its length.
func TestRecursiveChangeCost(t *testing.T) {
	const queue, changes = 2000, 20
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	fill(t, raw, []string{p}, queue)
	rc := &requestCounter{}
	mon := session(t, c.Servers(), lockops.WithDialer(rc.dialer()))
	w := watch(t, mon, Config{Paths: []string{p}})
	waitFor(t, w, 20*time.Second, "the queue read", func(s *Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Nodes.Len() == queue && s.WatchMode == ModeRecursive
	})
	_, before := rc.requests()
	start := time.Now()
	for range changes {
		n := createSeq(t, raw, p, "lock-", []byte("x"))
		waitFor(t, w, 10*time.Second, "the create", func(s *Snapshot) bool { return slices.Contains(names(queueOf(s, p)), n) })
		if err := raw.Delete(p+"/"+n, -1); err != nil {
			t.Fatal(err)
		}
		waitFor(t, w, 10*time.Second, "the delete", func(s *Snapshot) bool { return !slices.Contains(names(queueOf(s, p)), n) })
	}
	elapsed := time.Since(start)
	_, after := rc.requests()
	diff := func(op int32) int { return after[op] - before[op] }
	if n := diff(opGetChildren2); n != 0 {
		t.Errorf("%d listings of a %d-node queue for %d creates and deletes; want none", n, queue, changes)
	}
	if n := diff(opGetData); n != changes {
		t.Errorf("%d node reads for %d creates; want one each", n, changes)
	}
	// One exists per batch of events (the barrier, see followRecursive):
	// a create costs its read and the barrier, a delete the barrier; the
	// audit of a quiet path adds one exists every auditEvery (2 s here).
	if n, most := diff(opExists), 2*changes+int(elapsed/(2*time.Second))+1; n > most {
		t.Errorf("%d exists in %v for %d changes; want at most %d", n, elapsed, 2*changes, most)
	}
	t.Logf("%d changes in %v: requests by opcode %v -> %v", 2*changes, elapsed, before, after)
}

// TestChildWatchFallback: told to use children watches (what a server
// before 3.6 leaves), the monitor says so and follows the queue by
// listing it.
func TestChildWatchFallback(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	rc := &requestCounter{}
	mon := session(t, c.Servers(), lockops.WithDialer(rc.dialer()))
	w := watch(t, mon, Config{Paths: []string{p}, ChildWatches: true})
	n := createSeq(t, raw, p, "lock-", nil)
	waitFor(t, w, 10*time.Second, "the node, watched by children watches", func(s *Snapshot) bool {
		return slices.Contains(names(queueOf(s, p)), n) && s.WatchMode == ModeChildren
	})
	_, byOp := rc.requests()
	if byOp[opAddWatch] != 0 {
		t.Errorf("%d addWatch requests with ChildWatches set", byOp[opAddWatch])
	}
}

// opAddWatch is addWatch's opcode (ZooKeeper 3.6+).
const opAddWatch = 106
