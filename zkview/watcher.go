package zkview

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview/queue"
)

// ErrClosed: the Watcher was closed.
var ErrClosed = errors.New("zkview: watcher closed")

// Watcher keeps the Watcher of the configured lock parents. It owns
// every watch it sets on the Session's connection; the Session stays the
// caller's (Close does not close it).
//
// How it works, and what it costs:
//
//   - One goroutine per watched path holds the path's one children watch
//     (ChildrenW), re-armed by the listing that follows each event. A
//     change costs the re-list plus one Get per new node (its stat and
//     first DataBytes bytes, fetched once, never again); a removed node
//     drops out by diff. Events that fire while a listing is in flight
//     are answered by the next listing, which the one-shot watch makes
//     the only one; a parent of more than hugeQueue children re-lists no
//     sooner than relistPerChild per child after its previous listing.
//   - Requests share one pool of maxInFlight slots, so a first load of a
//     thousand parents pipelines over the one connection.
//   - A missing path is watched with ExistsW until it appears; a parent
//     deleted while watched goes back to absent; NoAuth says so.
//   - After every reconnect every path re-lists: go-zookeeper re-sets the
//     watches, and the listing covers whatever changed in the gap. After
//     an expiry the old watches are gone; each path sets a new one.
//   - Snapshots are immutable and built at most every minPublish, more
//     apart when building them would take more than a 1/buildShare of a
//     core (publishBudget); Updates never holds more than one pending
//     Update.
type Watcher struct {
	s   *lockops.Session
	cfg Options
	// oneShot: read every path once and set no watch (Load); go-zookeeper
	// cannot remove a watch, so a one-off read must not leave any behind.
	oneShot bool
	ctx     context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup
	sem     chan struct{}

	updates   chan model.Update
	kick      chan struct{} // the model changed: publish
	refresh   chan struct{} // poll the servers now
	closeOnce sync.Once

	// mu is the one lock of the model: a listing's merge changes the
	// paths, their queue models, the semaphores and the pending changes
	// together, and a build reads them all at once to make one
	// consistent Snapshot; split locks would have to be taken in one
	// order by every merge and every build, for no gain in parallelism
	// (a merge is microseconds; the reads, which take milliseconds, run
	// without it). What may be read without it is apart: held (atomic
	// counters), childMode, and the overlay's state (its own lock, taken
	// after this one). The groups below are all guarded by mu.
	mu      sync.Mutex
	buildMu sync.Mutex // builds one at a time, mu let go while one judges the wait-for graph (rebuild.go); taken before mu
	pathSet
	connState
	serverState
	firstRead
	published
	built
	graph  sessions.Graph // the wait-for graph over sessions; guarded by buildMu, not mu
	cycles cycleTimers    // its cycles between publishes (cycles.go)

	// roots: the roots read whole (rootwatch.go), whose first read's
	// progress the snapshots tell (Snapshot.Discovery).
	roots []*rootWatch
	// sems: the recognised semaphores and their parts (semwatch.go).
	sems semaphores
	// overlay lays the systems' layouts over the queues (Options.Systems,
	// overlay.go); nil when none.
	overlay Overlay
	// stats counts how the model kept up (tests read it).
	stats struct {
		changeMerges int // batches of events merged as changes (applyChange)
		changeBuilds int // queues built from the last one (buildQueueChanged)
	}
	// held counts the watch events received and not yet in the model
	// (held.go).
	held heldEvents
	// childMode is mode == model.ModeChildren, read without the lock
	// (Host.Live: an Overlay asks under its own lock).
	childMode atomic.Bool
	// buildDue: the pump's timer will build, so a change merged
	// meanwhile wakes nobody (kickPublish); cleared before that build.
	buildDue atomic.Bool
}

// pathSet is the paths the Watcher follows: each one's watch and
// model, the queues shown, and discovery's counts and bounds.
type pathSet struct {
	paths map[string]*pathWatch
	// models counts the paths with a model (pathWatch.qm): the lock
	// parents and the semaphores' parts.
	models      int
	sortedPaths []string // queue paths, sorted
	// huge: the paths whose last listing was huge (listedLocked); nil
	// while none was.
	huge       hugeLists
	discovered int  // intermediate nodes watched for discovery
	capped     bool // discovery stopped at a bound
	// unread: paths a one-shot read found and has not begun to read,
	// taken by at most oneShotReaders goroutines (readUnread).
	unread  []*pathWatch
	readers int
}

// connState is the session as the model last read it.
type connState struct {
	conn   model.Conn
	mode   string // model.ModeRecursive or model.ModeChildren; "" for Load
	gen    uint64
	resync chan struct{} // closed when the session (re)connects
	// synced is closed once the server of a new session has caught up
	// (see syncNewSession); paths list only after it.
	synced chan struct{}
}

// serverState is the server view: the last poll's answer and note.
type serverState struct {
	sv      *queue.ServerView
	svNote  string
	svEvery time.Duration // the polls' spacing in force (pollSpacing)
	svDone  chan struct{} // closed after the first server poll
}

// firstRead counts the paths not read once yet (Load waits for none).
type firstRead struct {
	initPending int
	initDone    chan struct{} // closed once every path was read once
	initClosed  bool
}

// published is the last Snapshot and what the next Update carries.
type published struct {
	pending    []model.Change
	dropped    int
	snap       *model.Snapshot
	frameEvery time.Duration // the spacing of snapshots in force (publishBudget)
	pictured   bool          // a snapshot with every path read was built
	dirty      bool          // something changed since snap was built
	allDirty   bool          // every queue must be rebuilt (conn, server view)
}

// built is what the next build starts from: base, the built queues of
// the last snapshot before the overlay's; dirtyQ the models changed
// since (queueDirtyLocked), reshown the paths shown or hidden since,
// and sysPaths the paths the overlay touched in it.
type built struct {
	base      model.Queues
	dirtyQ    []*queue.Tracker
	reshown   []string
	sysPaths  []string
	builtOnce bool
	// The hooks every model is made with (newModelLocked).
	modelHooks *queue.Hooks
}

// Watch starts watching cfg's paths and roots over s and returns at once;
// the first snapshot with data follows on Updates as soon as the first
// listings arrive. ctx bounds the Watcher's life as Close does.
func Watch(ctx context.Context, s *lockops.Session, cfg Options) (*Watcher, error) {
	return start(ctx, s, cfg, false)
}

// start is Watch; oneShot reads every path once, without watches (Load).
func start(ctx context.Context, s *lockops.Session, cfg Options, oneShot bool) (*Watcher, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("%w: no session", ErrConfig)
	}
	if len(cfg.Members) == 0 {
		cfg.Members = s.Servers()
	}
	wctx, cancel := context.WithCancel(ctx)
	w := &Watcher{
		s:       s,
		oneShot: oneShot,
		cfg:     cfg,
		ctx:     wctx,
		stop:    cancel,
		sem:     make(chan struct{}, maxInFlight),
		// Unbuffered: the pump keeps the one pending Update and merges into
		// it until the consumer takes it, so what the consumer takes is
		// always the newest snapshot.
		updates:     make(chan model.Update),
		kick:        make(chan struct{}, 1),
		refresh:     make(chan struct{}, 1),
		pathSet:     pathSet{paths: map[string]*pathWatch{}},
		connState:   connState{resync: make(chan struct{}), synced: closedChan()},
		firstRead:   firstRead{initDone: make(chan struct{})},
		serverState: serverState{svDone: make(chan struct{})},
	}
	switch {
	case oneShot:
	case cfg.ChildWatches:
		w.mode = model.ModeChildren
		w.childMode.Store(true)
	default:
		w.mode = model.ModeRecursive
	}
	w.conn = model.Conn{State: model.StateConnecting, Since: cfg.Now(), Ensemble: s.Servers(), Context: cfg.Context,
		TLS: s.Secure(), HostnameVerified: s.HostnameVerified()}
	w.snap = &model.Snapshot{At: cfg.Now(), Conn: w.conn}
	w.sems.w = w
	if cfg.Systems != nil {
		w.overlay = cfg.Systems(Host{w}) // before any goroutine reads it
	}
	w.readConnState()

	w.mu.Lock()
	for _, p := range cfg.Paths {
		w.addPathLocked(p, pathFlags{explicit: true})
	}
	for _, r := range cfg.Roots {
		w.addPathLocked(r, pathFlags{root: true, discover: true})
	}
	w.dirty = true
	w.mu.Unlock()

	w.wg.Add(2)
	go w.runConn()
	go (&pump{w: w}).run()
	if !oneShot && w.overlay != nil {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.overlay.Follow(w.ctx)
		}()
	}
	if cfg.ServerView {
		w.wg.Add(1)
		go (&serverPoller{w: w}).run()
	} else {
		close(w.svDone)
	}
	w.kickPublish()
	return w, nil
}

// Updates delivers the latest snapshot with the changes since the previous
// Update. A consumer that falls behind gets one Update holding the newest
// snapshot and the most recent changes (at most MaxPendingChanges; Dropped
// counts the rest): there is never a backlog. Closed by Close.
func (w *Watcher) Updates() <-chan model.Update { return w.updates }

// Snapshot is the current model (built now if anything changed since the
// last one).
func (w *Watcher) Snapshot() *model.Snapshot {
	w.buildMu.Lock()
	rebuilt, later, laterDropped, _ := w.rebuild()
	w.mu.Lock()
	w.pendLocked(later, laterDropped)
	snap := w.snap
	w.mu.Unlock()
	w.buildMu.Unlock()
	if rebuilt {
		w.kickPublish() // the events of the rebuild still go out on Updates
	}
	return snap
}

// Refresh asks for a server-view poll now (no-op without ServerView).
func (w *Watcher) Refresh() {
	select {
	case w.refresh <- struct{}{}:
	default:
	}
}

// Close stops every goroutine, lets go of the watches (go-zookeeper keeps
// the registrations until they fire; the server's are dropped with the
// session) and closes Updates. It does not close the Session.
func (w *Watcher) Close() {
	w.closeOnce.Do(func() {
		w.stop()
		w.wg.Wait()
		w.mu.Lock()
		w.conn.State, w.conn.Since = model.StateClosed, w.cfg.Now()
		w.mu.Unlock()
		close(w.updates)
	})
}

// Load reads one snapshot of cfg's paths and roots (discovery included,
// and one server-view poll when cfg.ServerView), for `zklock ls`.
func Load(ctx context.Context, s *lockops.Session, cfg Options) (*model.Snapshot, error) {
	w, err := start(ctx, s, cfg, true)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if err := waitRead(ctx, w); err != nil {
		return nil, err
	}
	select {
	case <-w.svDone:
	case <-ctx.Done():
		return nil, fmt.Errorf("zkview: load: %w", ctx.Err())
	}
	if w.overlay != nil {
		w.overlay.ReadOnce(ctx)
	}
	return proveCycles(w.Snapshot()), nil
}

// proveCycles is snap with its young cycles dated by what the read
// proves (sessions.ProveCycles: its parents' pzxid): a cycle that has
// stood long enough is a deadlock at once, without a second read.
func proveCycles(snap *model.Snapshot) *model.Snapshot {
	proven := sessions.ProveCycles(snap)
	if len(proven) == 0 || &proven[0] == &snap.Deadlocks[0] {
		return snap
	}
	c := *snap
	c.Deadlocks = proven
	return &c
}

// kickPublish tells the pump that something changed.
func (w *Watcher) kickPublish() {
	if w.buildDue.Load() {
		return // the scheduled build takes this change in: no wake-up for it
	}
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// markDirtyLocked records a change; the pump publishes it.
func (w *Watcher) markDirtyLocked() { w.dirty = true }

// emitLocked queues a change for the next Update, dropping the oldest
// beyond MaxPendingChanges.
func (w *Watcher) emitLocked(ev model.Change) {
	if ev.At.IsZero() {
		ev.At = w.cfg.Now()
	}
	w.pendLocked([]model.Change{ev}, 0)
	w.dirty = true
}

// takeUpdate rebuilds the snapshot if needed and takes the pending events
// it shows; cost is the time the rebuild took, and pictured says that
// this snapshot is the first with every path read.
func (w *Watcher) takeUpdate() (u model.Update, ok bool, cost time.Duration, pictured bool) {
	w.buildMu.Lock()
	defer w.buildMu.Unlock()
	prev := w.snap // written under buildMu too
	rebuilt, later, laterDropped, cost := w.rebuild()
	w.mu.Lock()
	defer w.mu.Unlock()
	defer w.pendLocked(later, laterDropped)
	tellExpiries(prev, w.pending)
	if rebuilt && w.initPending <= 0 && !w.pictured {
		w.pictured, pictured = true, true
	}
	if !rebuilt && len(w.pending) == 0 && w.dropped == 0 {
		return model.Update{}, false, cost, pictured
	}
	u = model.Update{Snapshot: w.snap, Changes: w.pending, Dropped: w.dropped}
	w.pending, w.dropped = nil, 0
	return u, true, cost, pictured
}

// syncNewSession makes the new session's server catch up with the
// leader before the re-sync reads anything, then closes done. go-zookeeper
// forgets the last zxid it saw when a session expires, so a new session
// may land on a member that is behind (one just back from a pause or a
// partition: the very member that cost the old session). Reading there
// would fetch node data older than what the old session had seen; the
// listing catches up through the children watch, but data read once is
// not read again. ZooKeeper's sync is the documented cure.
func (w *Watcher) syncNewSession(done chan struct{}) {
	defer close(done)
	ctx, cancel := context.WithTimeout(w.ctx, syncTimeout)
	defer cancel()
	// Any outcome ends the wait: a failed sync means the link dropped
	// again, and the next connection decides what comes next.
	_, _ = pooled(ctx, w, func() (struct{}, error) { return struct{}{}, w.s.Sync(ctx, "/") })
}

// syncTimeout bounds the wait for a new session's sync.
const syncTimeout = 10 * time.Second

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// waitSynced waits until the current session's server has caught up
// (at once, unless a new session's sync is under way).
func (w *Watcher) waitSynced(ctx context.Context) bool {
	w.mu.Lock()
	ch := w.synced
	w.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// genNow is the session generation the model was last read in.
func (w *Watcher) genNow() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen
}

// resyncCh is closed at the next (re)connection.
func (w *Watcher) resyncCh() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.resync
}

// runConn follows the Session's state.
func (w *Watcher) runConn() {
	defer w.wg.Done()
	for {
		ch := w.s.Changed()
		w.readConnState()
		select {
		case <-ch:
		case <-w.ctx.Done():
			return
		}
	}
}

// readConnState maps the Session's state onto Conn and, on every
// (re)connection, wakes every path to re-list.
func (w *Watcher) readConnState() {
	st, gen, id := w.s.State(), w.s.Generation(), w.s.ID()
	now := w.cfg.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	var to model.ConnState
	switch st {
	case lockops.SessionConnected:
		to = model.StateConnected
	case lockops.SessionSuspended:
		to = model.StateDisconnected
	case lockops.SessionExpired:
		to = model.StateExpired
	case lockops.SessionClosed:
		to = model.StateClosed
	default:
		to = model.StateConnecting
	}
	prev := w.conn
	if to == prev.State && id == prev.SessionID {
		return
	}
	w.conn.State, w.conn.Since, w.conn.SessionID = to, now, id
	w.conn.Server = ""
	if to == model.StateConnected {
		w.conn.Server = w.s.Server()
	}
	w.allDirty = true
	w.markDirtyLocked()
	resume := model.ResumeFirst
	switch to {
	case model.StateConnected:
		switch {
		case w.gen == 0: // the first connection: model.ResumeFirst
		case gen != w.gen:
			resume = model.ResumeNew
			// A full re-sync: every node's stat and data are read again
			// with its parent's next listing (a revoke may have changed
			// them while no watch was set).
			for _, pw := range w.paths {
				if pw.qm == nil {
					continue
				}
				for _, r := range pw.qm.Nodes.All() {
					r.Fetched = false
				}
			}
			w.synced = make(chan struct{})
			go w.syncNewSession(w.synced)
		default:
			resume = model.ResumeSession
		}
		w.gen = gen
		if prev.State != model.StateConnected {
			close(w.resync)
			w.resync = make(chan struct{})
		}
	case model.StateExpired:
		w.conn.SessionID = prev.SessionID
	}
	w.emitLocked(model.Change{At: now, Kind: model.ChangeConn, Conn: w.conn, Resume: resume})
	w.kickPublish()
}

// pooled runs f, which makes its requests through the Session (bounded
// by ctx there), in one of the in-flight pool's maxInFlight slots.
func pooled[T any](ctx context.Context, w *Watcher, f func() (T, error)) (T, error) {
	var zero T
	select {
	case w.sem <- struct{}{}:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	defer func() { <-w.sem }()
	return f()
}

// connLoss: the request's outcome is unknown or it was never sent (the
// link failed, or the session ended with it); the path re-reads once the
// link is back, and shows what it last read, marked stale, meanwhile.
func connLoss(err error) bool {
	return lockops.ConnLoss(err) || errors.Is(err, zk.ErrSessionExpired)
}

// addPathLocked starts watching p, or adds reasons to an existing watch.
// A new path found below a root watched whole (f.via) is returned,
// registered and not queued yet: the root's worker that found it queues
// it (foundPaths); nil otherwise.
func (w *Watcher) addPathLocked(p string, f pathFlags) *rootedPath {
	if pw, ok := w.paths[p]; ok {
		if f.discover && (!pw.discover || f.depth < pw.depth) {
			pw.depth = f.depth
		}
		if f.explicit && !pw.explicit {
			pw.explicit = true
		}
		if f.root && !pw.root {
			pw.root = true
		}
		if f.discover && !pw.discover {
			pw.discover = true
		}
		if pw.explicit {
			pw.ensureQueueLocked(w)
		}
		return nil
	}
	if w.ctx.Err() != nil {
		return nil
	}
	if f.via != nil && !f.keep() {
		// Found below a root watched whole: its root's watch and workers
		// follow it (rootwatch.go), and it shares the root's context.
		rp := &rootedPath{pw: pathWatch{path: p, pathFlags: f}}
		w.paths[p] = &rp.pw
		w.discovered++
		w.initPending++
		return rp
	}
	f.via = nil
	pw := &pathWatch{path: p, pathFlags: f, own: newOwnWatch(w.ctx)}
	w.paths[p] = pw
	if !f.keep() {
		w.discovered++
	}
	if f.explicit {
		pw.ensureQueueLocked(w)
	}
	w.initPending++
	w.wg.Add(1)
	if w.oneShot {
		w.unread = append(w.unread, pw)
		if w.readers < oneShotReaders {
			w.readers++
			go readUnread(w)
		}
		return nil
	}
	go pw.run(w)
	return nil
}

// fallBack switches the Watcher to children watches for good.
func (w *Watcher) fallBack(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mode == model.ModeChildren {
		return
	}
	w.mode = model.ModeChildren
	w.childMode.Store(true)
	w.emitLocked(model.Change{At: w.cfg.Now(), Kind: model.ChangeWatchMode, Err: err.Error()})
	w.markDirtyLocked()
}

// watchMode reads the Watcher's mode.
func (w *Watcher) watchMode() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mode
}
