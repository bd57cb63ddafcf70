package zkview

// The oracle: random churn of every recipe against a real ZooKeeper, and
// the stream of changes (Diff, what `watch` prints), the console's events
// and the sessions view checked against the sequence of snapshots they
// come from, and against what the clients themselves did.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/timeline"
	"github.com/zklock/zklock/zkview/queue"
)

// oracleLimit is both semaphores' number of leases: two, so that leases
// wait beyond it and contenders queue for the admission lock.
const oracleLimit = 2

// oracleDriver runs the clients and records what only they know: which
// lease each semaphore contender's admission-lock node left for.
type oracleDriver struct {
	base string
	mu   sync.Mutex
	// admitted: admission-lock node (parent + "\x00" + name) -> the lease
	// it got, recorded before the node is deleted.
	admitted map[string]string
}

func (d *oracleDriver) admit(lockDir, lockNode, lease string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.admitted[lockDir+"\x00"+lockNode] = lease
}

func (d *oracleDriver) leaseFor(parent, name string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	l, ok := d.admitted[parent+"\x00"+name]
	return l, ok
}

// Each recipe's lock parent under the driver's base.
func (d *oracleDriver) mutexPath() string      { return d.base + "/mutex" }
func (d *oracleDriver) rwPath() string         { return d.base + "/rwlock" }
func (d *oracleDriver) latchPath() string      { return d.base + "/latch" }
func (d *oracleDriver) curatorSemPath() string { return d.base + "/curator-sem" }
func (d *oracleDriver) kazooSemPath() string   { return d.base + "/kazoo-sem" }

// splitPath holds Curator and Kazoo clients that cannot see each other:
// split holders.
func (d *oracleDriver) splitPath() string { return d.base + "/split" }

func (d *oracleDriver) paths() []string {
	return []string{d.mutexPath(), d.rwPath(), d.latchPath(), d.curatorSemPath(), d.kazooSemPath(), d.splitPath()}
}

// oracleClient is one client with its own session and its own seeded
// choices: how long it holds, whether and when it gives up.
type oracleClient struct {
	c   *zk.Conn
	rng *rand.Rand
	d   *oracleDriver
}

func (oc *oracleClient) uuid() string {
	r := oc.rng
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint64()&0xffffffffffff)
}

func (oc *oracleClient) hex32() string {
	return fmt.Sprintf("%016x%016x", oc.rng.Uint64(), oc.rng.Uint64())
}

// patience is how long a waiter waits before it gives up: briefly for
// about a third of the attempts, else long enough to be served.
func (oc *oracleClient) patience() time.Duration {
	if oc.rng.IntN(3) == 0 {
		return time.Duration(5+oc.rng.IntN(80)) * time.Millisecond
	}
	return 3 * time.Second
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func (oc *oracleClient) hold(ctx context.Context) {
	pause(ctx, time.Duration(oc.rng.IntN(40))*time.Millisecond)
}

func (oc *oracleClient) create(dir, prefix string, data []byte, flags int32) (string, error) {
	p, err := oc.c.Create(dir+"/"+prefix, data, flags, zk.WorldACL(zk.PermAll))
	if err != nil {
		return "", err
	}
	return p[strings.LastIndexByte(p, '/')+1:], nil
}

// until waits for ok(children of dir) with a children watch, giving up
// at deadline or when ctx ends.
func (oc *oracleClient) until(ctx context.Context, dir string, deadline time.Time, ok func([]string) bool) (bool, error) {
	for {
		kids, _, ch, err := oc.c.ChildrenW(dir)
		if err != nil {
			return false, err
		}
		if ok(kids) {
			return true, nil
		}
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			return false, nil
		}
		t := time.NewTimer(left)
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
}

// leads says whether node leads its queue: a holder by sequence order.
func leads(node string) func([]string) bool {
	return func(kids []string) bool {
		q := ordering.Order(kids)
		i := q.Index(node)
		return i >= 0 && q.Entries[i].Role == ordering.RoleHolder
	}
}

// believesHeld says whether node holds by its own recipe's rule: a stock
// Curator or Kazoo client that does not see the other recipe's nodes.
func believesHeld(node string) func([]string) bool {
	return func(kids []string) bool {
		q := ordering.Order(kids)
		i := q.Index(node)
		return i >= 0 && q.Entries[i].Believes == ordering.RoleHolder
	}
}

// lockOnce takes a lock (or leadership) at dir under a node named
// prefix+seq, holds it a while, and lets it go; or gives up waiting.
func (oc *oracleClient) lockOnce(ctx context.Context, dir, prefix string) error {
	return oc.lockOnceBy(ctx, dir, prefix, leads)
}

// lockOnceBy is lockOnce deciding by held(node) when the node holds.
func (oc *oracleClient) lockOnceBy(ctx context.Context, dir, prefix string, held func(node string) func([]string) bool) error {
	node, err := oc.create(dir, prefix, []byte("oracle"), zk.FlagEphemeral|zk.FlagSequence)
	if err != nil {
		return err
	}
	holds, err := oc.until(ctx, dir, time.Now().Add(oc.patience()), held(node))
	if err != nil {
		return err
	}
	if holds {
		oc.hold(ctx)
	}
	return oc.c.Delete(dir+"/"+node, -1)
}

// curatorSemOnce is InterProcessSemaphoreV2's acquire: the admission lock
// at P/locks, a lease at P/leases made while holding it, waiting while
// the leases exceed the limit, the lock let go once the lease holds
// (and lease and lock deleted when it gives up).
func (oc *oracleClient) curatorSemOnce(ctx context.Context, p string) error {
	locks, leases := p+"/locks", p+"/leases"
	id := oc.uuid()
	lk, err := oc.create(locks, "_c_"+id+"-lock-", nil, zk.FlagEphemeral|zk.FlagSequence)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(oc.patience())
	admitted, err := oc.until(ctx, locks, deadline, leads(lk))
	if err != nil || !admitted {
		return errors.Join(err, oc.c.Delete(locks+"/"+lk, -1))
	}
	ls, err := oc.create(leases, "_c_"+id+"-lease-", nil, zk.FlagEphemeral|zk.FlagSequence)
	if err != nil {
		return err
	}
	got, err := oc.until(ctx, leases, deadline, func(kids []string) bool { return len(kids) <= oracleLimit })
	if err != nil || !got {
		return errors.Join(err, oc.c.Delete(leases+"/"+ls, -1), oc.c.Delete(locks+"/"+lk, -1))
	}
	oc.d.admit(locks, lk, ls)
	if err := oc.c.Delete(locks+"/"+lk, -1); err != nil {
		return err
	}
	oc.hold(ctx)
	return oc.c.Delete(leases+"/"+ls, -1)
}

// kazooSemOnce is Kazoo's Semaphore.acquire: the lock at P-__lock__,
// waiting under it for fewer leases than the limit, then the lease (a
// 32-hex ephemeral child of P) made and the lock let go.
func (oc *oracleClient) kazooSemOnce(ctx context.Context, p string) error {
	lockDir := p + queue.KazooLockSuffix
	lk, err := oc.create(lockDir, oc.hex32()+"__lock__", nil, zk.FlagEphemeral|zk.FlagSequence)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(oc.patience())
	admitted, err := oc.until(ctx, lockDir, deadline, leads(lk))
	if err == nil && admitted {
		admitted, err = oc.until(ctx, p, deadline, func(kids []string) bool { return len(kids) < oracleLimit })
	}
	if err != nil || !admitted {
		return errors.Join(err, oc.c.Delete(lockDir+"/"+lk, -1))
	}
	ls, err := oc.create(p, oc.hex32(), []byte("oracle"), zk.FlagEphemeral)
	if err != nil {
		return err
	}
	oc.d.admit(lockDir, lk, ls)
	if err := oc.c.Delete(lockDir+"/"+lk, -1); err != nil {
		return err
	}
	oc.hold(ctx)
	return oc.c.Delete(p+"/"+ls, -1)
}

// run repeats one recipe's acquisition until ctx ends.
func (oc *oracleClient) run(ctx context.Context, recipe string) error {
	d := oc.d
	for ctx.Err() == nil {
		var err error
		switch recipe {
		case "mutex":
			err = oc.lockOnce(ctx, d.mutexPath(), "_c_"+oc.uuid()+"-lock-")
		case "rwlock":
			marker := "__READ__"
			if oc.rng.IntN(3) == 0 {
				marker = "__WRIT__"
			}
			err = oc.lockOnce(ctx, d.rwPath(), "_c_"+oc.uuid()+"-"+marker)
		case "latch":
			err = oc.lockOnce(ctx, d.latchPath(), "_c_"+oc.uuid()+"-latch-")
		case "curator-sem":
			err = oc.curatorSemOnce(ctx, d.curatorSemPath())
		case "kazoo-sem":
			err = oc.kazooSemOnce(ctx, d.kazooSemPath())
		case "split-curator":
			err = oc.lockOnceBy(ctx, d.splitPath(), "_c_"+oc.uuid()+"-lock-", believesHeld)
		case "split-kazoo":
			err = oc.lockOnceBy(ctx, d.splitPath(), oc.hex32()+"__lock__", believesHeld)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", recipe, err)
		}
		pause(ctx, time.Duration(oc.rng.IntN(20))*time.Millisecond)
	}
	return nil
}

// oracleSeed is ZKLOCK_ORACLE_SEED when set (to replay a failure), else
// the clock.
func oracleSeed(t *testing.T) uint64 {
	if s := os.Getenv("ZKLOCK_ORACLE_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ZKLOCK_ORACLE_SEED=%q: %v", s, err)
		}
		return n
	}
	return uint64(time.Now().UnixNano())
}

// TestOracle: five clients per recipe (a mutex, a read/write lock, a
// LeaderLatch election, a Curator and a Kazoo semaphore, each on the
// wire as its library writes it), and two stock Curator and two stock
// Kazoo clients on one parent (split holders: each sees only its own
// recipe's nodes), take, hold, give up and let go at random for a few
// seconds, watched by a Watcher with persistent watches
// and one with children watches, started once the churn runs (so that
// they find holders already holding). Between every two updates each
// watcher published, the changes Diff tells must be what the snapshots
// show (checkStep) and what the clients did (a semaphore contender that
// got its lease was admitted, never gave up); the events of one update
// come in the order they happened (checkEventOrder), a split holder is
// told by what it believes and each lease change carries the holders
// right after it (checkWatcherEvents); every release says how long it
// held, and how well that is known (held_s, held_bound); and the sessions
// view dates every node as `ls` does (checkSessionsAgree), in the
// watchers' snapshots and in two one-off reads of holders that stay.
// The seed is printed on failure; ZKLOCK_ORACLE_SEED replays its choices
// (the interleaving is the machine's).
func TestOracle(t *testing.T) {
	seed := oracleSeed(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("oracle seed %d: ZKLOCK_ORACLE_SEED=%d go test -run TestOracle ./zkview", seed, seed)
		}
	})
	churnFor := 5 * time.Second
	if testing.Short() {
		churnFor = 2 * time.Second
	}
	c := testCluster(t)
	d := &oracleDriver{base: testPath(t), admitted: map[string]string{}}
	raw := rawConn(t, c.Servers())
	for _, p := range d.paths() {
		mkdirs(t, raw, p)
	}
	mkdirs(t, raw, d.curatorSemPath()+"/leases")
	mkdirs(t, raw, d.curatorSemPath()+"/locks")
	mkdirs(t, raw, d.kazooSemPath()+queue.KazooLockSuffix)
	if _, err := raw.Set(d.kazooSemPath(), []byte(strconv.Itoa(oracleLimit)), -1); err != nil {
		t.Fatal(err)
	}
	cfg := Options{Paths: d.paths(), SemaphoreLimits: map[string]int{d.curatorSemPath(): oracleLimit}}

	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 32)
	var wg sync.WaitGroup
	for i, recipe := range []string{"mutex", "rwlock", "latch", "curator-sem", "kazoo-sem", "split-curator", "split-kazoo"} {
		clients := 5
		if strings.HasPrefix(recipe, "split-") {
			clients = 2 // two of each recipe on one parent
		}
		for k := range clients {
			oc := &oracleClient{c: rawConn(t, c.Servers()), rng: rand.New(rand.NewPCG(seed, uint64(i*10+k))), d: d}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := oc.run(ctx, recipe); err != nil && ctx.Err() == nil {
					errs <- err
				}
			}()
		}
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			wg.Wait()
		}
	}
	t.Cleanup(stop)
	watchers := map[string]*testWatcher{}
	for name, children := range map[string]bool{model.ModeRecursive: false, model.ModeChildren: true} {
		wc := cfg
		wc.ChildWatches = children
		watchers[name] = watch(t, session(t, c.Servers()), wc)
	}
	pause(context.Background(), churnFor)
	stop()
	close(errs)
	for err := range errs {
		t.Errorf("client: %v", err)
	}
	for name, w := range watchers {
		w.mu.Lock()
		updates := append([]model.Update(nil), w.updates...)
		w.mu.Unlock()
		checkUpdates(t, name, d, updates)
	}
	checkStayingHolders(t, c.Servers(), d, raw, cfg)
}

// checkUpdates runs the oracle over one watcher's updates.
func checkUpdates(t *testing.T, name string, d *oracleDriver, updates []model.Update) {
	t.Helper()
	var problems []string
	told := map[string]bool{} // nodes whose acquisition the stream told
	counts := map[model.ChangeKind]int{}
	for i := 1; i < len(updates); i++ {
		prev, next := updates[i-1].Snapshot, updates[i].Snapshot
		changes := timeline.Diff(prev, next)
		for _, c := range changes {
			counts[c.Kind]++
		}
		for _, p := range checkStep(prev, next, changes, d, told) {
			problems = append(problems, fmt.Sprintf("update %d: %s", i, p))
		}
		for _, p := range checkEventOrder(updates[i].Changes) {
			problems = append(problems, fmt.Sprintf("update %d: %s", i, p))
		}
		for _, p := range checkWatcherEvents(prev, next, updates[i].Changes) {
			problems = append(problems, fmt.Sprintf("update %d: %s", i, p))
		}
	}
	for i, u := range updates {
		for _, p := range checkSessionsAgree(u.Snapshot) {
			problems = append(problems, fmt.Sprintf("update %d: %s", i, p))
		}
	}
	t.Logf("%s: %d updates; changes %v", name, len(updates), counts)
	// The churn must have shown every kind the oracle judges.
	for _, k := range []model.ChangeKind{model.ChangeJoined, model.ChangeAcquired, model.ChangeReleased, model.ChangeGaveUp, model.ChangeAdmitted} {
		if counts[k] == 0 {
			problems = append(problems, fmt.Sprintf("no %s change in the whole churn", k))
		}
	}
	if len(problems) > 0 {
		if len(problems) > 15 {
			problems = append(problems[:15], fmt.Sprintf("... and %d more", len(problems)-15))
		}
		t.Errorf("%s watcher: the stream says what the snapshots do not:\n%s", name, strings.Join(problems, "\n"))
	}
}
