package layouts

import (
	"fmt"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview"
)

// TestBarrierUnderRootLive: a barrier the config names under a watched
// root is set, with the session that watches its node as its waiter,
// and open as soon as its node is deleted and set again as soon as it is
// made, from the root watch's events: no systems read in between. The
// full reads come every hour here, not every systemsEvery: on a loaded
// machine the test itself can outlast 15 s (CI's run took 16.3 s, and its
// one periodic read fell between the two reads of the counter), and then
// the counter could not tell a periodic read from one the events asked
// for. With an hour, a state the events did not tell never shows, and the
// waits below fail instead.
func TestBarrierUnderRootLive(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	b := root + "/jobs/gate"
	setter, waiter := rawConn(t, c.Servers()), rawConn(t, c.Servers())
	mkdirs(t, setter, root+"/jobs")
	if _, err := setter.Create(b, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	// Kazoo Barrier.wait: exists with a watch.
	if ok, _, _, err := waiter.ExistsW(b); err != nil || !ok {
		t.Fatalf("exists %s: %v %v", b, ok, err)
	}
	w := watch(t, session(t, c.Servers()), zkview.Options{Roots: []string{root}, Barriers: []string{b},
		ServerView: true, ServerViewEvery: 100 * time.Millisecond}, time.Hour)
	state := func(s *model.Snapshot) string {
		q := queueOf(s, b)
		if q == nil || q.Facts() == nil || q.Facts().Set == nil {
			return "none"
		}
		if !*q.Facts().Set {
			return "open"
		}
		if q.Facts().Waiters == nil {
			return "set"
		}
		return fmt.Sprintf("set %d", *q.Facts().Waiters)
	}
	reads := func() int {
		w.layer.mu.Lock()
		defer w.layer.mu.Unlock()
		return w.layer.reads
	}
	waitFor(t, w, 30*time.Second, "the barrier set, one waiter", func(s *model.Snapshot) bool { return state(s) == "set 1" })
	before := reads()
	if err := setter.Delete(b, -1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, 30*time.Second, "the barrier open", func(s *model.Snapshot) bool { return state(s) == "open" })
	if _, err := setter.Create(b, []byte("10.0.0.7"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	snap := waitFor(t, w, 30*time.Second, "the barrier set again", func(s *model.Snapshot) bool { return state(s) == "set 0" })
	if n := reads(); n != before {
		t.Errorf("%d systems reads in between: the events did not tell", n-before)
	}
	if q := queueOf(snap, b); q.Nodes.Len() != 1 || q.Nodes.At(0).Part() != model.PartBarrier || string(q.Nodes.At(0).Data()) != "10.0.0.7" {
		t.Errorf("set again: %s", dump(snap))
	}
}
