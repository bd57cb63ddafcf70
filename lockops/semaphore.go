// Semaphores: one lease of a counting semaphore, taken with the protocol
// of the clients that already use the parent, so that they count it.
//
// Curator InterProcessSemaphoreV2 at P (the protocol for an empty parent):
//
//	P/locks/_c_<uuid>-lock-<seq>     a Curator mutex (the lock core): it
//	                                 admits one contender at a time
//	P/leases/_c_<uuid>-lease-<seq>   one per lease, ephemeral sequential,
//	                                 made by a protected create
//
// The admitted contender creates its lease and lists P/leases. With no
// more leases than the limit, its own included, it lets P/locks go and
// holds. Otherwise it keeps both its lease and P/locks and waits on a
// children watch of P/leases, then counts again: as Curator 5.4's
// internalAcquire1Lease does. Giving up deletes the lease, then lets the
// lock go (Curator returns the lease in the same order when its acquire
// times out or finds its lease gone). Curator keeps the limit in its
// clients only: WithLimit is required.
//
// Kazoo Semaphore at P:
//
//	P-__lock__/<32 hex>__lock__<seq> a Kazoo lock (the lock core)
//	P                                max_leases as text in its data
//	P/<32 hex>                       one per lease, ephemeral, no
//	                                 sequence, the identifier as data
//
// The admitted contender lists P; with fewer children than the limit it
// creates its lease and holds; otherwise it waits on a children watch of
// P, then lists again. It lets the lock go once it holds or gives up. The
// limit is P's data; an absent P is made with WithLimit's, and a
// WithLimit that differs from the data is refused, as Kazoo refuses it.
//
// Either way a held lease is a hold like a Lock's (hold.go): Done closes
// when the session ends or someone else deletes the lease node, Release
// deletes it.

package lockops

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

// The recipes' own names (Curator's LOCK_PARENT, LEASE_PARENT and
// LEASE_BASE_NAME; Kazoo's lock_path suffix).
const (
	curatorLocksDir  = "locks"
	curatorLeasesDir = "leases"
	curatorLeaseBase = "lease-"
	kazooLockSuffix  = "-__lock__"
	// maxLeaseRetries bounds new attempts after the own lease vanished
	// while the session lived (someone deleted it while it waited):
	// Curator retries that case too, as its retry policy allows.
	maxLeaseRetries = 3
)

var (
	// ErrNoLimit: a Curator-style semaphore without WithLimit, or a
	// Kazoo-style one whose parent states no max_leases and no WithLimit.
	ErrNoLimit = errors.New("lockops: semaphore limit unknown")
	// ErrLimitMismatch: WithLimit differs from the max_leases in a Kazoo
	// semaphore's data (stock Kazoo refuses the same way).
	ErrLimitMismatch = errors.New("lockops: semaphore limit differs from the parent's max_leases")
	// ErrNotSemaphore: the parent holds children that no semaphore of the
	// chosen protocol makes (a lock queue, say).
	ErrNotSemaphore = errors.New("lockops: not a semaphore")

	errLeaseVanished = errors.New("lockops: own lease vanished while waiting")
)

// Semaphore is one client's lease on a counting semaphore at a parent
// path, in the protocol of Curator's InterProcessSemaphoreV2 or Kazoo's
// Semaphore (see the file comment). Like a Lock it is reusable (acquire,
// release, acquire) and safe for use from several goroutines; it holds at
// most one lease at a time.
type Semaphore struct {
	s      *Session
	path   string
	abs    string
	cfgErr error
	cfg    lockConfig

	mu    sync.Mutex
	busy  bool           // an Acquire is under way
	hold  *Lock          // the current (or last) lease's hold
	idle  chan struct{}  // Done before the first lease: never closed
	style ordering.Style // protocol of the last lease taken
	limit int            // limit it was taken under
	node  string         // its node's name
	dir   string         // and where it lives (as the user sees it)
}

// NewSemaphore prepares a semaphore at the parent path p (as the user sees
// it). Options: WithLimit, WithStyle, WithData, WithNote, WithProgress,
// WithACL, WithAllowMixed (for the admission lock). Nothing is sent until
// Acquire.
func NewSemaphore(s *Session, p string, opts ...Option) *Semaphore {
	cfg := lockConfig{kind: ordering.KindMutex, acl: zk.WorldACL(zk.PermAll)}
	for _, o := range opts {
		o(&cfg)
	}
	m := &Semaphore{s: s, path: p, abs: s.Abs(p), cfg: cfg, idle: make(chan struct{})}
	switch err := ValidPath(p); {
	case err != nil:
		m.cfgErr = err
	case p == "/":
		m.cfgErr = errors.New("the root cannot be a semaphore")
	case cfg.kind != ordering.KindMutex, cfg.revocable, cfg.latch:
		m.cfgErr = errors.New("WithKind, WithRevocable and WithLatch are a lock's options, not a semaphore's")
	case cfg.limit < 0:
		m.cfgErr = fmt.Errorf("limit %d: want 1 or more", cfg.limit)
	}
	if !cfg.dataSet {
		m.cfg.data = []byte(DefaultData(cfg.note))
	}
	return m
}

// FencingToken is the czxid of the current (or last) lease's node, as
// Lock.FencingToken; 0 before the first lease.
func (m *Semaphore) FencingToken() int64 {
	m.mu.Lock()
	h := m.hold
	m.mu.Unlock()
	if h == nil {
		return 0
	}
	return h.FencingToken()
}

// Path is the semaphore's parent path as given to NewSemaphore.
func (m *Semaphore) Path() string { return m.path }

// Acquire waits until a lease is held. If ctx ends first, the own nodes
// (the admission lock's, and a Curator lease made beyond the limit) are
// deleted before it returns, as a Lock's are, and the context's error is
// returned, wrapped. If the session expires while waiting, it starts again
// in the new session. ErrNoLimit, ErrLimitMismatch, ErrNotSemaphore and
// ErrMixedRecipes are returned before anything is created.
func (m *Semaphore) Acquire(ctx context.Context) error {
	_, err := m.acquire(ctx, true)
	return err
}

// TryAcquire takes a lease only if one is free now and no other contender
// is being admitted; on false nothing of ours is left.
func (m *Semaphore) TryAcquire(ctx context.Context) (bool, error) {
	return m.acquire(ctx, false)
}

// Release returns the lease: deletes its node, as Lock.Release deletes a
// lock node (ErrNotHeld when no lease is held).
func (m *Semaphore) Release(ctx context.Context) error {
	m.mu.Lock()
	h := m.hold
	m.mu.Unlock()
	if h == nil {
		return fmt.Errorf("release %s: %w", m.path, ErrNotHeld)
	}
	return h.Release(ctx)
}

// Done is closed when the current lease ends: lost (session expired,
// lease node deleted by someone else: Err says which) or released (Err
// is nil). Take it after Acquire returns: each lease has its own channel.
func (m *Semaphore) Done() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hold == nil {
		return m.idle
	}
	return m.hold.Done()
}

// Err is nil while a lease is held or after a clean release; after a loss
// it wraps ErrLost with why, as Lock.Err.
func (m *Semaphore) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hold == nil {
		return nil
	}
	return m.hold.Err()
}

// State is where the Semaphore is: ordering.LockQueued while acquiring, else its
// lease's state (ordering.LockIdle before the first).
func (m *Semaphore) State() ordering.LockState {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.busy:
		return ordering.LockQueued
	case m.hold == nil:
		return ordering.LockIdle
	}
	return m.hold.State()
}

// Node is the lease node's name ("" before the first lease).
func (m *Semaphore) Node() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.node
}

// LeasePath is the lease node's path as the user sees it ("" before the
// first lease): P/leases/<name> (Curator) or P/<name> (Kazoo).
func (m *Semaphore) LeasePath() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.node == "" {
		return ""
	}
	return path.Join(m.dir, m.node)
}

// Style is the protocol of the last lease taken (StyleCurator before
// the first), and Limit the limit it was taken under.
func (m *Semaphore) Style() ordering.Style {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.style
}

// Limit: see Style.
func (m *Semaphore) Limit() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.limit
}

// semPlan is how one attempt takes a lease: the protocol, the limit and
// the paths it uses (as the user sees them).
type semPlan struct {
	style    ordering.Style
	limit    int
	lockPath string // the admission lock
	leaseDir string // where leases live
}

func (m *Semaphore) acquire(ctx context.Context, wait bool) (bool, error) {
	if m.cfgErr != nil {
		return false, fmt.Errorf("acquire %s: %w", m.path, m.cfgErr)
	}
	m.mu.Lock()
	if m.busy || m.hold != nil && holding(m.hold.State()) {
		m.mu.Unlock()
		return false, fmt.Errorf("acquire %s: %w", m.path, ErrInUse)
	}
	m.busy = true
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.busy = false
		m.mu.Unlock()
	}()

	vanished := 0
	for {
		plan, err := m.plan(ctx)
		if err != nil {
			return false, fmt.Errorf("acquire %s: %w", m.path, err)
		}
		lease, t, held, err := m.attempt(ctx, plan, wait)
		switch {
		case errors.Is(err, errSessionGone):
			continue // the nodes went with the session: again in the new one
		case errors.Is(err, errLeaseVanished) && vanished < maxLeaseRetries:
			vanished++
			continue
		case err != nil:
			return false, fmt.Errorf("acquire %s: %w", m.path, err)
		case !held:
			return false, nil
		}
		// Named before the hold reports it, published once it is a hold.
		m.mu.Lock()
		m.style, m.limit, m.node, m.dir = plan.style, plan.limit, t.node, plan.leaseDir
		m.mu.Unlock()
		lease.hold(t)
		m.mu.Lock()
		m.hold = lease
		m.mu.Unlock()
		return true, nil
	}
}

func holding(st ordering.LockState) bool {
	return st == ordering.LockHolding || st == ordering.LockSuspended
}

// attempt takes the admission lock, then a lease under it. The lease's
// hold is returned unstarted (the caller starts it). The admission lock is
// let go before attempt returns, whatever the outcome.
func (m *Semaphore) attempt(ctx context.Context, plan semPlan, wait bool) (*Lock, tenure, bool, error) {
	opts := []Option{WithStyle(plan.style), WithData(m.cfg.data), WithACL(m.cfg.acl), WithProgress(m.forward)}
	if m.cfg.allowMixed {
		opts = append(opts, WithAllowMixed())
	}
	admit := NewLock(m.s, plan.lockPath, opts...)
	if wait {
		if err := admit.Acquire(ctx); err != nil {
			return nil, tenure{}, false, err
		}
	} else if ok, err := admit.TryAcquire(ctx); err != nil || !ok {
		return nil, tenure{}, false, err
	}
	defer m.letGo(ctx, admit)
	gen := admit.heldGen()
	lease := m.leaseHold(plan.leaseDir)
	if plan.style == ordering.StyleKazoo {
		return m.takeKazoo(ctx, plan, admit, lease, gen, wait)
	}
	return m.takeCurator(ctx, plan, lease, gen, wait)
}

// leaseHold is the Lock whose hold is the lease: the hold, its loss and
// its release are a lock node's (hold.go); only the create differs.
func (m *Semaphore) leaseHold(dir string) *Lock {
	cfg := m.cfg
	cfg.leaseBase = curatorLeaseBase
	return &Lock{s: m.s, path: dir, abs: m.s.Abs(dir), cfg: cfg, done: make(chan struct{})}
}

// letGo releases the admission lock, even when ctx has ended (the release
// is bounded by cleanupWait; past that it goes on in the background).
func (m *Semaphore) letGo(ctx context.Context, admit *Lock) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupWait)
	defer cancel()
	_ = admit.Release(rctx)
}

// takeCurator: Curator's internalAcquire1Lease under the admission lock.
func (m *Semaphore) takeCurator(ctx context.Context, plan semPlan, lease *Lock, gen uint64, wait bool) (*Lock, tenure, bool, error) {
	c, err := lease.createNode(ctx, joinAs{style: ordering.StyleCurator})
	if err != nil {
		return nil, tenure{}, false, err
	}
	if c.gen != gen {
		// The admission lock went with its session while creating.
		_ = lease.removeNode(ctx, c)
		return nil, tenure{}, false, errSessionGone
	}
	lease.mu.Lock()
	lease.node = c.node
	lease.mu.Unlock()
	held, err := m.countCurator(ctx, plan, lease, c, wait)
	if err != nil || !held {
		if cerr := lease.removeNode(ctx, c); err == nil {
			err = cerr
		}
		return nil, tenure{}, false, err
	}
	return lease, tenure{created: c}, true, nil
}

// countCurator counts the leases, the own one included, until they are
// within the limit (true), or the wait is given up.
func (m *Semaphore) countCurator(ctx context.Context, plan semPlan, lease *Lock, c created, wait bool) (bool, error) {
	kids := c.listing // sent behind the create, without a watch
	var ch <-chan zk.Event
	for {
		if kids == nil {
			var err error
			if kids, ch, err = m.listDir(ctx, lease.abs, c.gen, wait); err != nil {
				return false, err
			}
		}
		if !slices.Contains(kids, c.node) {
			if m.s.Generation() != c.gen {
				return false, errSessionGone
			}
			return false, errLeaseVanished
		}
		if len(kids) <= plan.limit {
			return true, nil
		}
		if !wait {
			return false, nil
		}
		if ch == nil {
			kids = nil // the pipelined listing set no watch: list with one
			continue
		}
		queued := ordering.Progress{State: ordering.LockQueued, Node: c.node, Position: 1, Watching: plan.leaseDir}
		m.report(queued)
		if err := m.waitChildren(ctx, c.gen, ch, queued); err != nil {
			return false, err
		}
		kids, ch = nil, nil
	}
}

// listDir lists a semaphore's lease directory in session gen, with a
// children watch if watch.
func (m *Semaphore) listDir(ctx context.Context, abs string, gen uint64, watch bool) ([]string, <-chan zk.Event, error) {
	type listed struct {
		kids []string
		ch   <-chan zk.Event
	}
	r, err := retry(ctx, m.s, func() (listed, error) {
		if watch {
			kids, _, ch, err := m.s.conn.ChildrenW(abs)
			return listed{kids, ch}, err
		}
		kids, _, err := m.s.conn.Children(abs)
		return listed{kids: kids}, err
	})
	switch {
	case m.s.Generation() != gen, errors.Is(err, zk.ErrSessionExpired):
		return nil, nil, errSessionGone
	case errors.Is(err, zk.ErrNoNode):
		return nil, nil, errLeaseVanished // the directory, and any lease in it, is gone
	case err != nil:
		return nil, nil, fmt.Errorf("list %s: %w", abs, err)
	}
	if r.kids == nil {
		r.kids = []string{}
	}
	return r.kids, r.ch, nil
}

// waitChildren waits for a children watch to fire (or the watch to be
// dropped): nil means count again. It ends with the session (errSessionGone)
// or ctx.
func (m *Semaphore) waitChildren(ctx context.Context, gen uint64, ch <-chan zk.Event, queued ordering.Progress) error {
	suspended := false
	for {
		st, g, sch := m.s.snapshot()
		switch {
		case g != gen:
			return errSessionGone
		case st == SessionClosed:
			return ErrSessionClosed
		case st == SessionSuspended || st == SessionExpired:
			if !suspended {
				suspended = true
				p := queued
				p.State = ordering.LockSuspended
				m.report(p)
			}
		case st == SessionConnected && suspended:
			suspended = false
			m.report(queued)
		}
		which, _, err := waitEvent(ctx, sch, ch)
		if err != nil {
			return err
		}
		if which != sessionWake {
			return nil
		}
	}
}

// plan decides the protocol and the limit from the parent, and makes an
// absent Kazoo-style parent with the limit as its data, as Kazoo does.
func (m *Semaphore) plan(ctx context.Context) (semPlan, error) {
	for {
		in, err := ReadParent(ctx, m.s, m.path)
		if err != nil {
			return semPlan{}, err
		}
		style, err := semStyle(m.path, in, m.cfg)
		if err != nil {
			return semPlan{}, err
		}
		if style == ordering.StyleCurator {
			if m.cfg.limit == 0 {
				return semPlan{}, fmt.Errorf("%w: Curator keeps a semaphore's limit in its clients only: state it (WithLimit)", ErrNoLimit)
			}
			return semPlan{style: ordering.StyleCurator, limit: m.cfg.limit,
				lockPath: path.Join(m.path, curatorLocksDir), leaseDir: path.Join(m.path, curatorLeasesDir)}, nil
		}
		plan := semPlan{style: ordering.StyleKazoo, limit: m.cfg.limit, lockPath: m.path + kazooLockSuffix, leaseDir: m.path}
		n, numeric := parseMaxLeases(in.Data)
		switch {
		case in.Exists && numeric && n < 1:
			return semPlan{}, fmt.Errorf("%w: max_leases %d in %s's data: no lease can be taken", ErrNoLimit, n, m.path)
		case in.Exists && numeric:
			if m.cfg.limit != 0 && m.cfg.limit != n {
				return semPlan{}, fmt.Errorf("%w: limit %d, max_leases %d in %s's data", ErrLimitMismatch, m.cfg.limit, n, m.path)
			}
			plan.limit = n
		case m.cfg.limit == 0:
			return semPlan{}, fmt.Errorf("%w: %s states no max_leases in its data: state it (WithLimit)", ErrNoLimit, m.path)
		case in.Exists:
			// Data that is not a number: Kazoo ignores it, and so do we.
		default:
			made, err := m.makeKazooParent(ctx)
			if err != nil {
				return semPlan{}, err
			}
			if !made {
				continue // made by someone else meanwhile: read it
			}
		}
		return plan, nil
	}
}

// semStyle picks the protocol: WithStyle's; else Kazoo's when the parent
// shows it (a numeric max_leases, the lock sibling, 32-hex lease
// children), Curator's otherwise (its leases and locks, or an empty
// parent). Children that the chosen protocol does not make are refused:
// a semaphore's clients would count them, or they are another recipe's.
func semStyle(p string, in ParentInfo, cfg lockConfig) (ordering.Style, error) {
	var curator, kazoo, other []string
	for _, k := range in.Children {
		switch {
		case k == curatorLeasesDir, k == curatorLocksDir:
			curator = append(curator, k)
		case ordering.IsHex32(k):
			kazoo = append(kazoo, k)
		default:
			other = append(other, k)
		}
	}
	_, numeric := parseMaxLeases(in.Data)
	kazooSign := len(kazoo) > 0 || numeric || in.LockSibling
	style := ordering.StyleCurator
	switch {
	case cfg.styleSet:
		style = cfg.style
	case len(curator) > 0 && kazooSign:
		return style, fmt.Errorf("%w: %s has Curator's %s and Kazoo's %s", ordering.ErrMixedRecipes, p, strings.Join(curator, " and "), kazooSigns(kazoo, numeric, in.LockSibling))
	case kazooSign:
		style = ordering.StyleKazoo
	}
	foreign := other
	if style == ordering.StyleCurator {
		foreign = append(foreign, kazoo...)
	} else {
		foreign = append(foreign, curator...)
	}
	if len(foreign) > 0 {
		const show = 3
		names := foreign[:min(len(foreign), show)]
		more := ""
		if len(foreign) > show {
			more = fmt.Sprintf(" and %d more", len(foreign)-show)
		}
		return style, fmt.Errorf("%w: %s holds %s%s, which a %s semaphore does not make", ErrNotSemaphore, p, strings.Join(names, ", "), more, style)
	}
	return style, nil
}

// forward passes on the admission lock's progress while it waits in line.
func (m *Semaphore) forward(p ordering.Progress) {
	if p.State == ordering.LockQueued || p.State == ordering.LockSuspended {
		m.report(p)
	}
}

func (m *Semaphore) report(p ordering.Progress) {
	if m.cfg.progress == nil {
		return
	}
	if p.At.IsZero() {
		p.At = time.Now()
	}
	m.cfg.progress(p)
}
