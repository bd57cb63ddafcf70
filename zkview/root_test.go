package zkview

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/third_party/zk"
)

// A root of many lock parents (a lock per entity) watched whole: one
// persistent recursive watch (rootwatch.go) against children watches.

// entityTree is a tree of lock parents under a root, as the tests made
// it: root/g<k>/e<i>, each parent with its lock nodes.
type entityTree struct {
	root    string
	groups  int
	parents map[string][]string // parent -> its lock nodes
	next    int                 // the last new parent's number (churnEntities), across calls
}

// entityLock is the prefix of the tests' lock nodes (Curator's mutex).
const entityLock = "_c_0123456789abcdef0123456789abcdef-lock-"

// makeEntityTree makes n parents in groups under root, one in ten with a
// holder and one in thirty with two waiters behind it, creating
// maxInFlight at a time.
func makeEntityTree(t testing.TB, c *zk.Conn, root string, n, groups int) *entityTree {
	t.Helper()
	tr := &entityTree{root: root, groups: groups, parents: map[string][]string{}}
	for g := range groups {
		mkdirs(t, c, fmt.Sprintf("%s/g%d", root, g))
	}
	var mu sync.Mutex
	jobs := make(chan int)
	var wg sync.WaitGroup
	var failed error
	for range maxInFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				p := fmt.Sprintf("%s/g%d/e%05d", root, i%groups, i)
				nodes, err := makeParent(c, p, i)
				mu.Lock()
				tr.parents[p] = nodes
				if err != nil {
					failed = err
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if failed != nil {
		t.Fatalf("making the tree: %v", failed)
	}
	return tr
}

// makeParent creates parent p with the lock nodes of entity i.
func makeParent(c *zk.Conn, p string, i int) ([]string, error) {
	if _, err := c.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		return nil, err
	}
	count := 0
	switch {
	case i%30 == 0:
		count = 3
	case i%10 == 0:
		count = 1
	}
	var nodes []string
	for range count {
		got, err := c.Create(p+"/"+entityLock, []byte("entity"), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, got[len(p)+1:])
	}
	return nodes, nil
}

// rootPicture is what a snapshot says of the lock parents: a line per
// queue, its path, state and children (nodes, then others). withEmpty
// false leaves out the queues with no child (a Watcher keeps a parent
// that emptied; a fresh read does not find it).
func rootPicture(s *model.Snapshot, withEmpty bool) string {
	var b strings.Builder
	for i := range s.Queues.Len() {
		q := s.Queues.At(i)
		kids := append(modeltest.Names(q), q.Other()...)
		if !withEmpty && len(kids) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s %v %v\n", q.Path, q.State, kids)
	}
	return b.String()
}

// freshPicture reads the tree's lock parents afresh (Load: every node
// listed now, no watch).
func freshPicture(t testing.TB, mon *lockops.Session, root string) string {
	t.Helper()
	s, err := Load(tctx(t, 30*time.Second), mon, Options{Roots: []string{root}})
	if err != nil {
		t.Fatalf("fresh read: %v", err)
	}
	return rootPicture(s, false)
}

// pictureDiff is the first lines in which two pictures differ, counted
// as many times as they appear (a queue shown twice is a difference);
// pictures of the same lines in another order say where the order parts.
func pictureDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	count := map[string]int{}
	for _, l := range al {
		count[l]++
	}
	for _, l := range bl {
		count[l]--
	}
	var out []string
	for _, ls := range [][]string{al, bl} {
		for _, l := range ls {
			n := count[l]
			switch {
			case n > 0 && len(out) < 12:
				out = append(out, fmt.Sprintf("- %s (%d more times than in the other)", l, n))
			case n < 0 && len(out) < 12:
				out = append(out, fmt.Sprintf("+ %s (%d more times than in the other)", l, -n))
			default:
				continue
			}
			count[l] = 0 // said once
		}
	}
	if len(out) == 0 && a != b {
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				return fmt.Sprintf("the same lines in another order, from line %d: %q against %q", i, al[i], bl[i])
			}
		}
	}
	return strings.Join(out, "\n")
}

// churnEntities makes ops random changes across tr's parents: lock nodes created
// and deleted, parents appearing (empty or with a holder) and vanishing,
// a parent deleted and made again under the same name.
func churnEntities(t testing.TB, c *zk.Conn, tr *entityTree, rng *rand.Rand, ops int) {
	t.Helper()
	pick := func() string {
		ps := make([]string, 0, len(tr.parents))
		for p := range tr.parents {
			ps = append(ps, p)
		}
		slices.Sort(ps)
		return ps[rng.IntN(len(ps))]
	}
	if tr.next == 0 {
		tr.next = 100000
	}
	for range ops {
		p := pick()
		var err error
		switch r := rng.IntN(100); {
		case r < 35:
			var got string
			got, err = c.Create(p+"/"+entityLock, nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
			if err == nil {
				tr.parents[p] = append(tr.parents[p], got[len(p)+1:])
			}
		case r < 65 && len(tr.parents[p]) > 0:
			k := rng.IntN(len(tr.parents[p]))
			err = c.Delete(p+"/"+tr.parents[p][k], -1)
			tr.parents[p] = slices.Delete(tr.parents[p], k, k+1)
		case r < 85:
			tr.next++
			np := fmt.Sprintf("%s/g%d/e%05d", tr.root, rng.IntN(tr.groups), tr.next)
			if rng.IntN(4) == 0 {
				np = fmt.Sprintf("%s/new%d/e%05d", tr.root, rng.IntN(3), tr.next) // a new group too
				mkdirs(t, c, path2dir(np))
			}
			tr.parents[np], err = makeParent(c, np, rng.IntN(2)*10)
		default:
			err = deleteParent(c, p, tr.parents[p])
			delete(tr.parents, p)
			if err == nil && rng.IntN(3) == 0 {
				tr.parents[p], err = makeParent(c, p, 10) // the same name, a new parent
			}
		}
		if err != nil {
			t.Fatalf("churn near %s: %v", p, err)
		}
	}
}

func path2dir(p string) string { return p[:strings.LastIndex(p, "/")] }

// deleteParent deletes p and its lock nodes.
func deleteParent(c *zk.Conn, p string, nodes []string) error {
	for _, n := range nodes {
		if err := c.Delete(p+"/"+n, -1); err != nil {
			return err
		}
	}
	return c.Delete(p, -1)
}

// TestRootWatchMatchesFallback: a root of a few hundred lock parents,
// watched with its one persistent recursive watch and with children
// watches (the fallback for servers before 3.6), under random churn
// begun while both still read the tree: the two give the same snapshot
// after it, that of a fresh read, but for the parents each keeps empty
// (those it saw hold a node), which must exist without a lock node
// (converge). The recursive Watcher sets one watch for the whole root.
func TestRootWatchMatchesFallback(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	raw := rawConn(t, c.Servers())
	tr := makeEntityTree(t, raw, root, 600, 4)

	rc := &requestCounter{}
	recMon := session(t, c.Servers(), lockops.WithDialer(rc.dialer()))
	rec := watch(t, recMon, Options{Roots: []string{root}})
	kidsMon := session(t, c.Servers())
	kids := watch(t, kidsMon, Options{Roots: []string{root}, ChildWatches: true})

	seed := time.Now().UnixNano()
	t.Logf("churn seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 34))
	churnEntities(t, raw, tr, rng, 400)

	fresh := freshPicture(t, kidsMon, root)
	converge(t, fresh, rec, kids)
	if s := rec.Snapshot(); s.WatchMode != model.ModeRecursive || kids.Snapshot().WatchMode != model.ModeChildren {
		t.Errorf("watch modes %q and %q", s.WatchMode, kids.Snapshot().WatchMode)
	}
	if _, byOp := rc.requests(); byOp[opAddWatch] != 1 {
		t.Errorf("%d addWatch requests for one root, want 1", byOp[opAddWatch])
	}
	checkProgressCounts(t, rec.Watcher)
}

// checkProgressCounts: each root's progress counts, kept as paths came,
// were read and went, are what a walk of the paths finds.
func checkProgressCounts(t *testing.T, w *Watcher) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	type counts struct{ found, read int }
	walked := map[*rootWatch]counts{}
	for _, pw := range w.paths {
		if rt := pw.rootOf(); rt != nil && !pw.removed {
			c := walked[rt]
			c.found++
			if pw.read {
				c.read++
			}
			walked[rt] = c
		}
	}
	if len(walked) == 0 {
		t.Fatal("no path watched through a root")
	}
	for rt, c := range walked {
		if rt.found != c.found || rt.read != c.read {
			t.Errorf("root %s: progress counts found %d read %d, a walk finds %d and %d", rt.pw.path, rt.found, rt.read, c.found, c.read)
		}
	}
}

// converge waits until every Watcher has read its whole tree and shows
// the picture of fresh (a fresh read: the parents with lock nodes), and
// the parents each keeps empty exist on the server without a lock node;
// on the deadline it fails with how the snapshots it last judged differ
// (disagreement, emptiedWrong), not with snapshots read again for the
// report. The empty parents are judged against the server, not against
// each other: a Watcher keeps a parent that emptied while it watched, so
// two Watchers that began while the tree changed keep the ones each saw
// hold a node (a node created and deleted before a Watcher listed its
// parent leaves that parent out of its picture, rightly).
func converge(t testing.TB, fresh string, ws ...*testWatcher) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		snaps := make([]*model.Snapshot, len(ws))
		for i, w := range ws {
			snaps[i] = w.Snapshot()
		}
		why := disagreement(fresh, snaps)
		if why == "" {
			why = emptiedWrong(ws[0].s, snaps)
		}
		if why == "" {
			logEmptied(t, snaps)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no agreement within 30s; the snapshots judged last:\n%s", why)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, with a deadline
	}
}

// logEmptied logs the empty parents that agreeing snapshots keep
// differently (each Watcher keeps those it saw hold a node).
func logEmptied(t testing.TB, snaps []*model.Snapshot) {
	first := rootPicture(snaps[0], true)
	for i, s := range snaps[1:] {
		if pic := rootPicture(s, true); pic != first {
			t.Logf("watcher %d (%s) keeps other empty parents than watcher 0 (%s):\n%s", i+1, s.WatchMode, snaps[0].WatchMode, pictureDiff(first, pic))
		}
	}
}

// disagreement says how snaps differ from fresh (their parents with
// lock nodes), and which have paths left unread; "" when they agree.
func disagreement(fresh string, snaps []*model.Snapshot) string {
	var b strings.Builder
	for i, s := range snaps {
		if s.Unread != 0 {
			fmt.Fprintf(&b, "watcher %d (%s): %d paths unread\n", i, s.WatchMode, s.Unread)
		}
		if part := rootPicture(s, false); part != fresh {
			fmt.Fprintf(&b, "watcher %d (%s) against the fresh read:\n%s\n", i, s.WatchMode, pictureDiff(fresh, part))
		}
	}
	return b.String()
}

// emptiedWrong names the parents a snapshot keeps empty that the server
// has not as an existing parent with no lock node; "" when there is none.
func emptiedWrong(s *lockops.Session, snaps []*model.Snapshot) string {
	var b strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, snap := range snaps {
		for _, q := range snap.Queues.All() {
			if q.Nodes.Len() > 0 || len(q.Other()) > 0 {
				continue
			}
			kids, err := s.Children(ctx, q.Path)
			if err == nil && !hasLockChild(kids) {
				continue
			}
			fmt.Fprintf(&b, "watcher %d (%s) keeps %s empty (%v); the server has %v, %v\n", i, snap.WatchMode, q.Path, q.State, kids, err)
		}
	}
	return b.String()
}

// TestRootHandsOffUnlistable: a parent below a root read whole that the
// Watcher may not list (its ACL) is handed off by the root's worker to a
// goroutine of its own (rootWatch.handOff), which lets it go; the
// root's other parents are shown and its first read completes, watched
// and read once (Load).
func TestRootHandsOffUnlistable(t *testing.T) {
	c := testCluster(t)
	root := testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, root+"/open")
	open := createSeq(t, raw, root+"/open", "lock-", nil)
	if err := raw.AddAuth("digest", []byte("owner:secret")); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Create(root+"/closed", nil, 0, zk.DigestACL(zk.PermAll, "owner", "secret")); err != nil {
		t.Fatal(err)
	}
	createSeq(t, raw, root+"/closed", "lock-", nil)
	shown := func(s *model.Snapshot) bool {
		q := queueOf(s, root+"/open")
		return q != nil && slices.Equal(modeltest.Names(q), []string{open}) && queueOf(s, root+"/closed") == nil
	}
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Roots: []string{root}})
	waitFor(t, w, 15*time.Second, "the open parent shown, the closed one let go, the first read complete", func(s *model.Snapshot) bool {
		return shown(s) && len(s.Discovery) == 0
	})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	snap, err := Load(ctx, mon, Options{Roots: []string{root}})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if !shown(snap) {
		t.Errorf("Load: %d queues, %s/closed shown %v; want %s/open alone", snap.Queues.Len(), root, queueOf(snap, root+"/closed") != nil, root)
	}
}
