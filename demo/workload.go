// Package demo is the scripted workload of `zklock demo`: clients
// contending for three locks, the leases of a semaphore and the lead of an
// election through the lock core, on a real ZooKeeper, driven by the
// presenter's keys (ui.Demo: pause, step one handoff, kill a
// holder's session, make a split-holders queue). The command that starts
// it, with a sandbox server and the console, lives in cmd.
package demo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui"
)

const (
	Root    = "/demo/locks"
	Billing = Root + "/billing"
	Orders  = Root + "/orders"
	Reports = Root + "/reports"
	// Slots is a Curator InterProcessSemaphoreV2 with SlotsLimit leases
	// (render workers sharing GPU slots); Leader a Curator LeaderLatch
	// election among schedulers.
	Slots      = Root + "/render-slots"
	SlotsLimit = 3
	Leader     = Root + "/scheduler-leader"
	TickTime   = 200 * time.Millisecond
	// SessionTimeout is the contenders' session: a demo that dies
	// without closing them frees its nodes within seconds. The short tick
	// (sessions may be as short as two ticks) allows it.
	SessionTimeout = 4 * time.Second
	// StartTimeout covers a cold JVM on a busy 2-core laptop.
	StartTimeout = 60 * time.Second
	// demoFirstJoin spreads the contenders' first joins, so the room sees
	// the queues form node by node.
	demoFirstJoin = 3 * time.Second
	// splitLife bounds a split: long enough to point at the warning and
	// explain it, short enough that the room sees it clear by itself.
	splitLife = 20 * time.Second
	// splitHold is how long the Kazoo-style client holds once its turn
	// comes by sequence order.
	splitHold = 3 * time.Second
	// demoStopTimeout bounds the clean-up on quit; whatever is left then
	// goes with the process (and the sandbox server with its directory).
	demoStopTimeout = 10 * time.Second
	// demoCallTimeout bounds one request the presenter's keys make, and
	// the removal of the parents the demo made.
	demoCallTimeout = 5 * time.Second
)

var (
	errNotDemoLock = errors.New("demo: not one of the demo's locks")
	errNoHolder    = errors.New("demo: nobody holds the lock")
	errNothingWait = errors.New("demo: no handoff to step")
	errSplitActive = errors.New("demo: a split is already running")
)

// span is a range of durations picked at random, so that holds and waits
// vary and handoffs come at uneven times, as in a real fleet.
type demoSpan struct{ lo, hi time.Duration }

func (s demoSpan) pick() time.Duration { return s.lo + rand.N(s.hi-s.lo+1) }

// role is one contending client: its job and host (shown as the node's
// data, as real clients write), its lock, and its rhythm.
type demoRole struct {
	who   string
	path  string
	kind  ordering.Kind
	hold  demoSpan
	think demoSpan
}

// demoRoles: a busy mutex with a queue of six to eight (holds of about a
// second: a handoff every second or two), a read/write lock where several
// readers hold while writers wait, a quiet lock, a semaphore of three
// leases wanted by five workers (a lease changes hands every second or
// two, one or two wait), and an election of three schedulers whose leader
// steps down every ten seconds or so.
func demoRoles() []demoRole {
	busyHold, busyThink := demoSpan{700 * time.Millisecond, 1800 * time.Millisecond}, demoSpan{300 * time.Millisecond, 2500 * time.Millisecond}
	readHold, readThink := demoSpan{1500 * time.Millisecond, 4 * time.Second}, demoSpan{200 * time.Millisecond, 1500 * time.Millisecond}
	writeHold, writeThink := demoSpan{800 * time.Millisecond, 1500 * time.Millisecond}, demoSpan{3 * time.Second, 7 * time.Second}
	rs := []demoRole{}
	for _, who := range []string{
		"billing-reconcile@worker-3", "invoice-sender@worker-7", "payments-settle@batch-2", "refund-sweeper@worker-1",
		"ledger-export@batch-4", "dunning-mailer@worker-5", "tax-calc@worker-2", "fx-rates-sync@cron-1",
	} {
		rs = append(rs, demoRole{who, Billing, ordering.KindMutex, busyHold, busyThink})
	}
	for _, who := range []string{"orders-api@web-1", "orders-api@web-2", "checkout@web-3", "order-search@api-1"} {
		rs = append(rs, demoRole{who, Orders, ordering.KindRead, readHold, readThink})
	}
	for _, who := range []string{"orders-migrate@batch-1", "order-compactor@worker-6"} {
		rs = append(rs, demoRole{who, Orders, ordering.KindWrite, writeHold, writeThink})
	}
	rs = append(rs,
		demoRole{"weekly-report@cron-2", Reports, ordering.KindMutex, demoSpan{12 * time.Second, 25 * time.Second}, demoSpan{15 * time.Second, 40 * time.Second}},
		demoRole{"reports-export@analytics-1", Reports, ordering.KindMutex, demoSpan{4 * time.Second, 8 * time.Second}, demoSpan{25 * time.Second, 60 * time.Second}},
	)
	leaseHold, leaseThink := demoSpan{2500 * time.Millisecond, 6 * time.Second}, demoSpan{300 * time.Millisecond, 1500 * time.Millisecond}
	for _, who := range []string{"thumbnailer@render-1", "thumbnailer@render-2", "transcoder@render-3", "pdf-render@render-4", "thumbnailer@render-5"} {
		rs = append(rs, demoRole{who, Slots, ordering.KindMutex, leaseHold, leaseThink})
	}
	leadHold, leadThink := demoSpan{8 * time.Second, 15 * time.Second}, demoSpan{time.Second, 2 * time.Second}
	for _, who := range []string{"scheduler@sched-a", "scheduler@sched-b", "scheduler@sched-c"} {
		rs = append(rs, demoRole{who, Leader, ordering.KindMutex, leadHold, leadThink})
	}
	return rs
}

// Paths are the demo's parents, for the console: the three locks, the
// semaphore and the election.
func Paths() []string { return []string{Billing, Orders, Reports, Slots, Leader} }

// Limits are the demo's semaphore limits, for the console (Curator keeps
// them in its clients, so the console is told, as a context's
// semaphores: would).
func Limits() map[string]int { return map[string]int{Slots: SlotsLimit} }

// isDemoLockPath: a lock of the demo's, where a split makes sense.
func isDemoLockPath(p string) bool { return p == Billing || p == Orders || p == Reports }

// Workload runs the contending clients and implements ui.Demo.
type Workload struct {
	servers  []string
	sessOpts []lockops.SessionOption
	sandbox  bool
	admin    *lockops.Session // lists queues and makes the parents
	madeDirs []string         // parents the demo created, to remove on an external ensemble

	ctx    context.Context // the clients' lifetime
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	paused  bool
	permit  *demoClient     // the holder allowed to release while paused (Step)
	wake    chan struct{}   // closed and replaced at every change of paused or permit
	clients []*demoClient   // contenders, then split clients while they live
	splits  map[string]bool // paths with a split running

	solr *solrScene // the Solr overseer scene, nil when off
}

var _ ui.Demo = (*Workload)(nil)

// demoClientState is where a client is, as the presenter's keys need it.
type demoClientState int

const (
	demoIdle demoClientState = iota
	demoQueued
	demoHolding
)

// demoClient is one contending client with its own session, as a worker
// process in a fleet would be.
type demoClient struct {
	demoRole
	split bool // a split client: not paused, not stepped

	mu     sync.Mutex
	state  demoClientState
	since  time.Time
	node   string
	pid    int
	sess   *lockops.Session
	killed bool
}

func (c *demoClient) identity() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprintf("%s pid %d", c.who, c.pid)
}

func (c *demoClient) set(st demoClientState, node string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state, c.since = st, time.Now()
	if node != "" {
		c.node = node
	}
}

func (c *demoClient) wasKilled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed
}

// Options is what the workload connects with.
type Options struct {
	// Servers and SessionOptions are the console's connection settings;
	// each contender opens its own session with them, followed by the
	// demo's short SessionTimeout.
	Servers        []string
	SessionOptions []lockops.SessionOption
	// Sandboxed: the server is the demo's own; otherwise the workload
	// removes the parents it made when it stops.
	Sandboxed bool
	// Solr runs the system scene too: a Solr overseer election under
	// SolrRoot whose leader record lags behind each failover (solr.go).
	Solr bool
}

// Start makes the lock parents through admin (so the console lists them
// from the first frame; ctx bounds that) and starts the contenders. The
// Workload owns admin from then on and closes it in Stop.
func Start(ctx context.Context, admin *lockops.Session, cfg Options) (*Workload, error) {
	opts := append(slices.Clone(cfg.SessionOptions), lockops.WithSessionTimeout(SessionTimeout))
	d := &Workload{servers: cfg.Servers, sessOpts: opts, sandbox: cfg.Sandboxed, admin: admin, wake: make(chan struct{}), splits: map[string]bool{}}
	// The semaphore's own directories too, so that the console knows it
	// for one from the first frame and an external ensemble is left clean.
	parents := append(Paths(), Slots+"/locks", Slots+"/leases")
	if cfg.Solr {
		parents = append(parents, SolrElection)
	}
	for _, p := range parents {
		if err := d.makeParents(ctx, p); err != nil {
			d.removeParents()
			admin.Close()
			return nil, fmt.Errorf("demo: %w", err)
		}
	}
	// The clients outlive the console's context only until Stop.
	d.ctx, d.cancel = context.WithCancel(context.WithoutCancel(ctx))
	for _, r := range demoRoles() {
		c := &demoClient{demoRole: r}
		d.clients = append(d.clients, c)
		d.wg.Add(1)
		go d.contend(c)
	}
	if cfg.Solr {
		d.solr = newSolrScene(d)
		d.wg.Add(1)
		go d.solr.run(d.ctx)
	}
	return d, nil
}

// makeParents creates p and its ancestors as persistent nodes, noting the
// ones it made.
func (d *Workload) makeParents(ctx context.Context, p string) error {
	made, err := d.admin.EnsurePath(ctx, p)
	d.madeDirs = append(d.madeDirs, made...)
	return err
}

// removeParents deletes, deepest first, the parents the demo made that are
// empty now: on a shared ensemble the demo leaves nothing behind.
func (d *Workload) removeParents() {
	ctx, cancel := context.WithTimeout(context.Background(), demoCallTimeout)
	defer cancel()
	for i := len(d.madeDirs) - 1; i >= 0; i-- {
		_ = d.admin.RemovePath(ctx, d.madeDirs[i])
	}
}

// Stop ends every client (their sessions close, their nodes go at once)
// and, on an external ensemble, removes the parents the demo made.
func (d *Workload) Stop() {
	d.cancel()
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(demoStopTimeout):
	}
	if !d.sandbox {
		d.removeParents()
	}
	d.admin.Close()
}

// sleep waits for d or the end of ctx; false when ctx ended.
func demoSleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// contend is one contender's life: a session, then acquire, hold, release,
// think, for as long as the demo runs. A killed client comes back after a
// moment with a new session and a new pid, as a supervisor restarts a
// crashed worker.
func (d *Workload) contend(c *demoClient) {
	defer d.wg.Done()
	ctx := d.ctx
	if !demoSleep(ctx, rand.N(demoFirstJoin)) {
		return
	}
	for ctx.Err() == nil {
		sess, err := lockops.Connect(ctx, d.servers, d.sessOpts...)
		if err != nil {
			if !demoSleep(ctx, time.Second) {
				return
			}
			continue
		}
		c.mu.Lock()
		c.sess, c.pid, c.killed = sess, 1000+rand.N(30000), false
		c.mu.Unlock()
		d.cycle(ctx, c, sess)
		sess.Close()
		c.set(demoIdle, "")
		if c.wasKilled() && !demoSleep(ctx, demoSpan{1500 * time.Millisecond, 3 * time.Second}.pick()) {
			return
		}
	}
}

// demoHold is what a client takes: a lock, a lease, the lead.
type demoHold interface {
	Acquire(context.Context) error
	Release(context.Context) error
	Done() <-chan struct{}
	Node() string
}

// newHold is c's lock, lease (Curator InterProcessSemaphoreV2's protocol)
// or place in the election (a LeaderLatch participant).
func newHold(sess *lockops.Session, c *demoClient) demoHold {
	data := lockops.WithData([]byte(c.identity()))
	switch c.path {
	case Slots:
		return lockops.NewSemaphore(sess, c.path, lockops.WithLimit(SlotsLimit), data)
	case Leader:
		return lockops.NewLock(sess, c.path, lockops.WithLatch(), data)
	}
	// WithAllowMixed: after a split (S) the queue mixes recipes; the
	// contenders still order themselves by sequence, and keep going.
	return lockops.NewLock(sess, c.path, lockops.WithKind(c.kind), data, lockops.WithAllowMixed())
}

// cycle acquires, holds and releases until the session is closed (killed)
// or the demo ends.
func (d *Workload) cycle(ctx context.Context, c *demoClient, sess *lockops.Session) {
	l := newHold(sess, c)
	for {
		if !d.waitRunning(ctx) {
			return
		}
		c.set(demoQueued, "")
		if err := l.Acquire(ctx); err != nil {
			c.set(demoIdle, "")
			if ctx.Err() != nil || c.wasKilled() || sess.State() == lockops.SessionClosed {
				return
			}
			if !demoSleep(ctx, time.Second) {
				return
			}
			continue
		}
		c.set(demoHolding, l.Node())
		released := d.hold(ctx, c, l)
		c.set(demoIdle, "")
		if !released && (ctx.Err() != nil || c.wasKilled() || sess.State() == lockops.SessionClosed) {
			return
		}
		// Lost another way (an operator's force-release): think, join again.
		if !demoSleep(ctx, c.think.pick()) {
			return
		}
	}
}

// hold keeps the lock for the client's hold time, longer while paused
// unless a step picks it; true when it released the lock.
func (d *Workload) hold(ctx context.Context, c *demoClient, l demoHold) bool {
	deadline := time.Now().Add(c.hold.pick())
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for {
		release, wake := d.mayRelease(c, deadline)
		if release {
			rctx, cancel := context.WithTimeout(ctx, demoCallTimeout)
			err := l.Release(rctx)
			cancel()
			return err == nil
		}
		select {
		case <-ctx.Done():
			return false
		case <-l.Done():
			return false
		case <-wake:
		case <-t.C:
		}
	}
}

// mayRelease says whether c may release now; if not, the channel closed
// at the next change.
func (d *Workload) mayRelease(c *demoClient, deadline time.Time) (bool, <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.permit == c {
		d.permit = nil
		return true, nil
	}
	if (!d.paused || c.split) && !time.Now().Before(deadline) {
		return true, nil
	}
	return false, d.wake
}

// waitRunning blocks new joins while paused; false when ctx ended.
func (d *Workload) waitRunning(ctx context.Context) bool {
	for {
		d.mu.Lock()
		paused, wake := d.paused, d.wake
		d.mu.Unlock()
		if !paused {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-wake:
		}
	}
}

func (d *Workload) broadcastLocked() {
	close(d.wake)
	d.wake = make(chan struct{})
}

// Pause freezes the contenders or lets them run again.
func (d *Workload) Pause(context.Context) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.paused = !d.paused
	d.permit = nil
	d.broadcastLocked()
	if d.paused {
		return "contenders paused: holders keep their locks, waiters keep waiting (space: one handoff, p: resume)", nil
	}
	return "contenders running again: a handoff every second or two", nil
}

// Step lets one holder release while paused (pausing first if needed):
// the holder of the busy mutex when someone waits for it, else any holder
// with a waiter behind it.
func (d *Workload) Step(context.Context) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.permit != nil {
		return "", fmt.Errorf("%w: the last step's handoff has not happened yet", errNothingWait)
	}
	c := d.stepTargetLocked()
	if c == nil {
		return "", fmt.Errorf("%w: nobody waits behind a holder (p resumes the contenders)", errNothingWait)
	}
	wasPaused := d.paused
	d.paused, d.permit = true, c
	d.broadcastLocked()
	c.mu.Lock()
	who, node, pid := c.who, c.node, c.pid
	c.mu.Unlock()
	text := fmt.Sprintf("step: %s pid %d releases %s on %s; ZooKeeper notifies the next waiter", who, pid, demoNodeRef(node), c.path)
	if !wasPaused {
		text = "paused; " + text
	}
	return text, nil
}

// stepTargetLocked picks the holder to release for one handoff.
func (d *Workload) stepTargetLocked() *demoClient {
	queued := map[string]int{}
	holders := map[string][]*demoClient{}
	for _, c := range d.clients {
		if c.split {
			continue
		}
		c.mu.Lock()
		switch c.state {
		case demoQueued:
			queued[c.path]++
		case demoHolding:
			holders[c.path] = append(holders[c.path], c)
		}
		c.mu.Unlock()
	}
	for _, p := range Paths() {
		if queued[p] > 0 && len(holders[p]) > 0 {
			return demoOldest(holders[p])
		}
	}
	return nil
}

func demoOldest(cs []*demoClient) *demoClient {
	var best *demoClient
	var bestSince time.Time
	for _, c := range cs {
		c.mu.Lock()
		since := c.since
		c.mu.Unlock()
		if best == nil || since.Before(bestSince) {
			best, bestSince = c, since
		}
	}
	return best
}

func isDemoLock(p string) bool { return slices.Contains(Paths(), p) }

// Kill closes the session of the client that has held path longest,
// without a release: the server deletes its ephemeral node at once. On
// the Solr overseer election it kills the overseer's Solr node.
func (d *Workload) Kill(ctx context.Context, p string) (string, error) {
	if d.solr != nil && p == SolrElection {
		return d.solr.killOverseer(ctx)
	}
	if !isDemoLock(p) {
		return "", fmt.Errorf("%w: %s", errNotDemoLock, model.SanitizeString(p, 80))
	}
	d.mu.Lock()
	var holders []*demoClient
	for _, c := range d.clients {
		c.mu.Lock()
		if c.path == p && c.state == demoHolding && c.sess != nil {
			holders = append(holders, c)
		}
		c.mu.Unlock()
	}
	d.mu.Unlock()
	c := demoOldest(holders)
	if c == nil {
		return "", fmt.Errorf("%w on %s right now", errNoHolder, p)
	}
	c.mu.Lock()
	c.killed = true
	sess, who, pid, node := c.sess, c.who, c.pid, c.node
	c.mu.Unlock()
	id := sess.ID()
	sess.Close()
	return fmt.Sprintf("killed %s pid %d (session 0x%x) without a release: ZooKeeper ends the session and deletes %s", who, pid, id, demoNodeRef(node)), nil
}

// queue lists p and orders it as the console does.
func (d *Workload) queue(ctx context.Context, p string) (ordering.Ordering, error) {
	lctx, cancel := context.WithTimeout(ctx, demoCallTimeout)
	defer cancel()
	children, err := d.admin.Children(lctx, p)
	if err != nil {
		return ordering.Ordering{}, fmt.Errorf("demo: %w", err)
	}
	return ordering.Order(children), nil
}

// nodeRef names a node by its sequence number, as the console does.
func demoNodeRef(name string) string {
	if name == "" {
		return "its node"
	}
	return model.NodeRef(name, 40)
}

func demoJoinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " and " + s[len(s)-1]
}
