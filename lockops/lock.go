package lockops

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

const (
	// ownWatchDelay is how long a holder holds before it arms the watch
	// on its own node. Arming at once would cost a fourth request on every
	// short hold (create, list, delete is the uncontended minimum); the
	// price is that deletion of the own node by someone else is learnt
	// within ownWatchDelay + one round trip. Session expiry is not delayed:
	// it comes from the Session's state.
	ownWatchDelay = 25 * time.Millisecond
	// cleanupWait bounds how long a cancelled Acquire waits for its own
	// node's deletion before handing it to a background goroutine: long
	// enough for any healthy ensemble, short enough not to hold a caller
	// who already gave up hostage to a dead link.
	cleanupWait = 2 * time.Second
	// maxRestyles bounds re-creates in the queue's style: one is the
	// norm (the queue changed style since it was last seen); more means
	// clients of both styles keep arriving, which checkJoin then refuses.
	maxRestyles = 2
	// revokeData is Curator's revocation message (Revoker.REVOKE_MESSAGE).
	revokeData = "__REVOKE__"
)

var (
	// ErrNotHeld: Release of a lock that is not held.
	ErrNotHeld = errors.New("lockops: lock not held")
	// ErrLost: a held lock was lost; Err() wraps it with why.
	ErrLost = errors.New("lockops: lock lost")
	// ErrInUse: Acquire on a Lock that is already acquiring or held.
	ErrInUse = errors.New("lockops: lock already acquiring or held")
	// ErrNodeDeleted: the own node was deleted by someone else.
	ErrNodeDeleted = errors.New("lockops: own node deleted by someone else")
	// ErrRevoked: a WithRevocable holder was asked to let go (Revoke).
	ErrRevoked = errors.New("lockops: revoked")
	// ErrParentDeleted: the lock parent vanished under a waiter.
	ErrParentDeleted = errors.New("lockops: lock parent deleted")

	errSessionGone = errors.New("lockops: session ended while queued")
)

// LockState is where a Lock is in its life.
type LockState int

const (
	LockIdle      LockState = iota // not acquiring, not held
	LockQueued                     // own node created, waiting
	LockHolding                    // held
	LockSuspended                  // held, but the link is down: the session may live on
	LockLost                       // was held, lost (see Err)
	LockReleased                   // released by its holder (reported once, then idle)
)

func (s LockState) String() string {
	switch s {
	case LockIdle:
		return "idle"
	case LockQueued:
		return "queued"
	case LockHolding:
		return "holding"
	case LockSuspended:
		return "suspended"
	case LockLost:
		return "lost"
	case LockReleased:
		return "released"
	}
	return "unknown"
}

// Progress is what a Lock reports as it goes, for the console.
type Progress struct {
	State    LockState
	Node     string // own node name
	Position int    // 1-based place in the queue (1 = first); 0 when not queued
	Watching string // node waited on, "" unless queued
	At       time.Time
	Err      error // why, for LockLost
}

type lockConfig struct {
	kind       Kind
	data       []byte
	dataSet    bool
	note       string
	style      Style
	styleSet   bool
	allowMixed bool
	revocable  bool
	progress   func(Progress)
	acl        []zk.ACL
}

// Option configures a Lock.
type Option func(*lockConfig)

// WithKind asks for a mutex (default), read or write lock.
func WithKind(k Kind) Option { return func(c *lockConfig) { c.kind = k } }

// WithData sets the own node's data (default: who, see WithNote).
func WithData(b []byte) Option {
	return func(c *lockConfig) { c.data, c.dataSet = append([]byte(nil), b...), true }
}

// WithNote appends a note to the default data "user@host pid N".
func WithNote(note string) Option { return func(c *lockConfig) { c.note = note } }

// WithStyle forces the node naming style instead of following the queue.
// Joining a queue of the other style is still refused as mixed unless
// WithAllowMixed.
func WithStyle(s Style) Option { return func(c *lockConfig) { c.style, c.styleSet = s, true } }

// WithAllowMixed joins a queue of recipes that cannot see each other
// anyway. The lock then orders itself by sequence correctly, but the other
// recipes' clients may still not see it: two holders are possible.
func WithAllowMixed() Option { return func(c *lockConfig) { c.allowMixed = true } }

// WithRevocable honours Curator's revocation protocol: when someone sets
// the held node's data to "__REVOKE__" (Revoke), the lock deletes its node
// and Done() closes with ErrRevoked. Costs one request per acquisition
// (the own node is watched from the start of the hold).
func WithRevocable() Option { return func(c *lockConfig) { c.revocable = true } }

// WithProgress receives every state change. It is called on the Lock's
// goroutines and must not block.
func WithProgress(f func(Progress)) Option { return func(c *lockConfig) { c.progress = f } }

// WithACL sets the ACL of the own node and of lock parents created on the
// way (default: open to all, as Curator and Kazoo do).
func WithACL(acl []zk.ACL) Option { return func(c *lockConfig) { c.acl = acl } }

// Lock is one client's lock on one lock parent, in the classic recipe:
// an ephemeral sequential child, the children listed, held when the
// ordering function (Order) says the child has no predecessor, otherwise
// a watch on that predecessor. A Lock is reusable (acquire, release,
// acquire) but not re-entrant, and safe for use from several goroutines.
type Lock struct {
	s       *Session
	path    string
	abs     string
	pathErr error
	cfg     lockConfig

	mu        sync.Mutex
	state     LockState
	node      string
	ten       tenure
	done      chan struct{}
	err       error
	stop      context.CancelFunc // ends the holder's monitor
	releasing bool

	// shortcuts counts holds taken on the predecessor's deletion without
	// listing again (see queue), for tests and benchmarks.
	shortcuts atomic.Int64
	// ppSkips counts listings saved because PP was the head (tests read it).
	ppSkips atomic.Int64
}

// created is an own node known to exist (or to have existed) in session
// generation gen.
type created struct {
	node    string // name
	abs     string // server path
	prefix  string // name up to the sequence: unique to this create
	gen     uint64
	listing []string // the parent's children just after the create, if read with it
}

// tenure is a hold: the own node, and its watch if one is armed.
type tenure struct {
	created
	own    watch
	armNow bool // the own watch fired with a data change: re-arm at once
	lost   bool // (Release only) the hold was lost before the release
}

// NewLock prepares a lock on the lock parent path (as the user sees it;
// the Session's chroot is applied). Nothing is sent until Acquire.
func NewLock(s *Session, p string, opts ...Option) *Lock {
	cfg := lockConfig{kind: KindMutex, acl: zk.WorldACL(zk.PermAll)}
	for _, o := range opts {
		o(&cfg)
	}
	l := &Lock{s: s, path: p, cfg: cfg, done: make(chan struct{})}
	if err := validPath(p); err != nil {
		l.pathErr = err
	} else if p == "/" {
		l.pathErr = fmt.Errorf("the root cannot be a lock parent")
	} else if cfg.kind != KindMutex && cfg.kind != KindRead && cfg.kind != KindWrite {
		l.pathErr = fmt.Errorf("kind %s is not a lock kind", cfg.kind)
	}
	l.abs = s.Abs(p)
	if !cfg.dataSet {
		l.cfg.data = []byte(DefaultData(cfg.note))
	}
	return l
}

// DefaultData says who holds: "user@host pid N", then the note if any.
func DefaultData(note string) string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "unknown"
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	d := fmt.Sprintf("%s@%s pid %d", name, host, os.Getpid())
	if note != "" {
		d += " " + note
	}
	return d
}

// Path is the lock parent as given to NewLock.
func (l *Lock) Path() string { return l.path }

// Node is the own node's name ("" before the first create).
func (l *Lock) Node() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.node
}

// State is where the Lock is now.
func (l *Lock) State() LockState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state
}

// Done is closed when the current hold ends: lost (session expired, own
// node deleted by someone else, revoked; Err says which) or released (Err
// is nil). It stays open while the link is merely down. Take it after
// Acquire returns: each hold has its own channel.
func (l *Lock) Done() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done
}

// Err is nil while held or after a clean release; after a loss it wraps
// ErrLost with why (ErrSessionExpired, ErrNodeDeleted, ErrRevoked,
// ErrSessionClosed).
func (l *Lock) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Acquire waits until the lock is held. If ctx ends while waiting, the own
// node is deleted (waiting up to a couple of seconds for a dead link, then
// in the background until the link is back or the session is gone) and the
// context's error is returned, wrapped. A queue of recipes that cannot see
// each other is refused with ErrMixedRecipes unless WithAllowMixed. If the
// session expires while waiting, the lock queues again in the new session
// (its place in the queue is lost with the old node).
func (l *Lock) Acquire(ctx context.Context) error {
	_, err := l.acquire(ctx, true)
	return err
}

// TryAcquire takes the lock only if it is free now; on false the own node
// has been deleted.
func (l *Lock) TryAcquire(ctx context.Context) (bool, error) {
	return l.acquire(ctx, false)
}

func (l *Lock) acquire(ctx context.Context, wait bool) (bool, error) {
	if l.pathErr != nil {
		return false, fmt.Errorf("acquire %s: %w", l.path, l.pathErr)
	}
	l.mu.Lock()
	switch l.state {
	case LockQueued, LockHolding, LockSuspended:
		l.mu.Unlock()
		return false, fmt.Errorf("acquire %s: %w", l.path, ErrInUse)
	}
	l.state, l.node, l.err, l.releasing = LockQueued, "", nil, false
	l.mu.Unlock()

	t, held, err := l.contend(ctx, wait)
	if err != nil || !held {
		l.mu.Lock()
		l.state = LockIdle
		l.mu.Unlock()
		if err != nil {
			return false, fmt.Errorf("acquire %s: %w", l.path, err)
		}
		return false, nil
	}
	l.hold(t)
	return true, nil
}

// joinAs is how the own node is named: the style, and the family of the
// queue it joins ("" for an empty queue), which picks between Curator's
// mutex names and its read/write names.
type joinAs struct {
	style  Style
	family string
}

// joinFor is how to join a queue of others that is not mixed.
func joinFor(q Queue) joinAs {
	st, _ := DetectStyle(q)
	j := joinAs{style: st}
	if len(q.Entries) > 0 {
		j.family = q.Entries[0].Family()
	}
	return j
}

// restyle asks contend to create again, named as the queue wants.
type restyle struct{ join joinAs }

func (r restyle) Error() string {
	return "queue changed style again (now " + r.join.style.String() + " " + r.join.family + "): clients of both kinds keep arriving: " + ErrMixedRecipes.Error()
}

func (r restyle) Unwrap() error { return ErrMixedRecipes }

func (l *Lock) contend(ctx context.Context, wait bool) (tenure, bool, error) {
	join, err := l.chooseJoin(ctx)
	if err != nil {
		return tenure{}, false, err
	}
	restyles := 0
	for {
		c, err := l.createNode(ctx, join)
		if err != nil {
			return tenure{}, false, err
		}
		l.mu.Lock()
		l.node = c.node
		l.mu.Unlock()
		t, held, err := l.queue(ctx, c, join, wait)
		if err == nil && held {
			return t, true, nil
		}
		var rs restyle
		if errors.Is(err, errSessionGone) {
			// The node went with its session; queue again in the new one.
			continue
		}
		cerr := l.removeNode(ctx, c)
		if errors.As(err, &rs) && restyles < maxRestyles {
			if cerr != nil {
				return tenure{}, false, cerr
			}
			restyles++
			join = rs.join
			continue
		}
		if err == nil && cerr != nil {
			err = cerr
		}
		return tenure{}, false, err
	}
}

// chooseJoin picks the naming before the create: as the queue was last
// seen through this Session, or from one listing (the first acquisition
// on a parent). The listing after the create checks again (the queue may
// have changed), so the hint only saves a second create in the common
// case.
func (l *Lock) chooseJoin(ctx context.Context) (joinAs, error) {
	if j, ok := l.s.joinHint(l.abs); ok {
		return l.forced(j), nil
	}
	children, err := retry(ctx, l.s, func() ([]string, error) {
		c, _, err := l.s.conn.Children(l.abs)
		return c, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return l.forced(joinAs{}), nil
	}
	if err != nil {
		return joinAs{}, fmt.Errorf("list %s: %w", l.abs, err)
	}
	q := seqQueue(children)
	if _, err := DetectStyle(q); err != nil {
		if l.cfg.allowMixed {
			return l.forced(joinAs{}), nil
		}
		return joinAs{}, err
	}
	j := joinFor(q)
	l.s.setJoinHint(l.abs, j)
	return l.forced(j), nil
}

// forced applies WithStyle.
func (l *Lock) forced(j joinAs) joinAs {
	if l.cfg.styleSet && l.cfg.style != j.style {
		return joinAs{style: l.cfg.style}
	}
	return j
}

// checkJoin looks at the first listing after the create. It refuses a
// queue of recipes that cannot see each other, or one that the own node
// would make so (a forced style, a read lock on a mutex queue), and asks
// for a new create when the queue turned out to want other names.
func (l *Lock) checkJoin(all Queue, children []string, own string, join joinAs) error {
	if l.cfg.allowMixed {
		return nil
	}
	if _, err := DetectStyle(all); err == nil {
		l.s.setJoinHint(l.abs, join)
		return nil
	} else if !errors.Is(err, ErrMixedRecipes) {
		return err
	}
	others := make([]string, 0, len(children))
	for _, c := range children {
		if c != own {
			others = append(others, c)
		}
	}
	oq := seqQueue(others)
	if _, err := DetectStyle(oq); err != nil {
		return err
	}
	want := joinFor(oq)
	l.s.setJoinHint(l.abs, want)
	if want != join && l.forced(want) == want {
		if p, _ := nodePrefix(want, l.cfg.kind); p != "" {
			if n, _ := ParseName(p + "0000000001"); n.Family() == want.family {
				return restyle{want}
			}
		}
	}
	_, err := DetectStyle(all)
	return fmt.Errorf("joining as %s %s would mix recipes: %w", join.style, l.cfg.kind, err)
}

// nodePrefix is the own node's name before the sequence, with a fresh
// guid (Curator's protected-create idea: the guid finds the node again
// after a connection loss during the create). In Curator style a mutex
// joining a read/write queue is named as a write lock, and a write lock
// joining a mutex queue as a mutex: each excludes everyone, as asked, in
// names the queue's clients see.
func nodePrefix(j joinAs, kind Kind) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	if j.style == StyleKazoo {
		if kind == KindRead {
			return hex.EncodeToString(b[:]) + "__rlock__", nil
		}
		return hex.EncodeToString(b[:]) + "__lock__", nil
	}
	b[6] = b[6]&0x0f | 0x40 // a version 4 UUID, as java.util.UUID.randomUUID
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	uuid := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
	switch {
	case kind == KindRead:
		return "_c_" + uuid + "-__READ__", nil
	case kind == KindWrite && j.family != FamilyCuratorMutex,
		kind == KindMutex && j.family == FamilyCuratorRW:
		return "_c_" + uuid + "-__WRIT__", nil
	}
	return "_c_" + uuid + "-lock-", nil
}

// ownName reports whether child is prefix plus a sequence: %010d, which
// is 11 characters once the counter has wrapped negative.
func ownName(child, prefix string) bool {
	if !strings.HasPrefix(child, prefix) {
		return false
	}
	seq := strings.TrimPrefix(child[len(prefix):], "-")
	if len(seq) != 10 {
		return false
	}
	for _, r := range seq {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

type createResult struct {
	path string
	err  error
}

// createNode is the protected create. A lost connection leaves the
// outcome unknown; the node is then looked for by its prefix once the link
// is back, and created again (same prefix) only if absent. A cancelled
// create is finished in the background and its node, if any, deleted.
func (l *Lock) createNode(ctx context.Context, join joinAs) (created, error) {
	prefix, err := nodePrefix(join, l.cfg.kind)
	if err != nil {
		return created{}, err
	}
	full := l.abs + "/" + prefix
	for {
		gen, err := l.s.waitConnected(ctx)
		if err != nil {
			return created{}, err
		}
		res := make(chan createResult, 1)
		sent := l.s.lease.sent.expect([]byte(full))
		go func() {
			p, err := l.s.conn.Create(full, l.cfg.data, zk.FlagEphemeral|zk.FlagSequence, l.cfg.acl)
			res <- createResult{p, err}
		}()
		var (
			r       createResult
			listing <-chan listResult
		)
		select {
		case <-sent.ch:
			// The create is on the wire: a listing sent now is answered
			// after it (see sentWatch).
			listing = l.listAsync()
			select {
			case r = <-res:
			case <-ctx.Done():
				go l.reapCreate(res, prefix, gen)
				return created{}, ctx.Err()
			}
		case r = <-res:
			l.s.lease.sent.drop(sent)
		case <-ctx.Done():
			l.s.lease.sent.drop(sent)
			go l.reapCreate(res, prefix, gen)
			return created{}, ctx.Err()
		}
		switch {
		case r.err == nil:
			c := created{node: path.Base(r.path), abs: r.path, prefix: prefix, gen: gen}
			if listing != nil {
				c.listing = l.awaitListing(ctx, listing, c)
			}
			return c, nil
		case errors.Is(r.err, zk.ErrNoNode):
			if err := l.makeParents(ctx); err != nil {
				return created{}, err
			}
		case errors.Is(r.err, zk.ErrSessionExpired), errors.Is(r.err, zk.ErrNoServer):
			// Nothing exists: never sent, or gone with the session.
		case errors.Is(r.err, zk.ErrClosing):
			return created{}, ErrSessionClosed
		case ConnLoss(r.err):
			c, found, err := l.findOwn(ctx, prefix, gen)
			if errors.Is(err, errSessionGone) {
				continue
			}
			if err != nil {
				return created{}, err
			}
			if found {
				return c, nil
			}
		default:
			return created{}, fmt.Errorf("create %s: %w", full, r.err)
		}
	}
}

type listResult struct {
	children []string
	err      error
}

// listAsync sends a listing of the lock parent and returns where its
// answer will arrive.
func (l *Lock) listAsync() <-chan listResult {
	ch := make(chan listResult, 1)
	go func() {
		kids, _, err := l.s.conn.Children(l.abs)
		ch <- listResult{kids, err}
	}()
	return ch
}

// awaitListing is the listing pipelined behind the create of c, if it is
// good to use: answered without error, in c's session, and showing c's
// node. Otherwise nil, and the waiter lists again.
func (l *Lock) awaitListing(ctx context.Context, ch <-chan listResult, c created) []string {
	select {
	case r := <-ch:
		if r.err != nil || l.s.Generation() != c.gen || !slices.Contains(r.children, c.node) {
			return nil
		}
		l.s.pipelined.Add(1)
		return r.children
	case <-ctx.Done():
		return nil
	}
}

// findOwn lists the parent once the link is back and returns the child
// that carries prefix, if session gen still lives.
func (l *Lock) findOwn(ctx context.Context, prefix string, gen uint64) (created, bool, error) {
	children, err := l.list(ctx, gen)
	if errors.Is(err, ErrParentDeleted) {
		return created{}, false, nil
	}
	if err != nil {
		return created{}, false, err
	}
	for _, c := range children {
		if ownName(c, prefix) {
			return created{node: c, abs: l.abs + "/" + c, prefix: prefix, gen: gen}, true, nil
		}
	}
	return created{}, false, nil
}

// reapCreate waits for a create its caller gave up on and deletes the
// node it made, if any, so that a cancelled Acquire leaves no orphan.
// It ends with the session at the latest.
func (l *Lock) reapCreate(res <-chan createResult, prefix string, gen uint64) {
	r := <-res
	switch {
	case r.err == nil:
		_ = l.s.deleteOwned(r.path, gen)
	case ConnLoss(r.err):
		if c, found, err := l.findOwn(context.Background(), prefix, gen); err == nil && found {
			_ = l.s.deleteOwned(c.abs, gen)
		}
	}
}

// makeParents creates the lock parent and its ancestors as persistent
// nodes. Curator makes containers (the server deletes them once empty);
// persistent ones keep the path visible to the console between uses.
func (l *Lock) makeParents(ctx context.Context) error {
	parts := strings.Split(strings.TrimPrefix(l.abs, "/"), "/")
	p := ""
	for _, part := range parts {
		p += "/" + part
		_, err := retry(ctx, l.s, func() (string, error) {
			return l.s.conn.Create(p, nil, 0, l.cfg.acl)
		})
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create parent %s: %w", p, err)
		}
	}
	return nil
}

// list lists the lock parent in session generation gen: errSessionGone
// if that session ended.
func (l *Lock) list(ctx context.Context, gen uint64) ([]string, error) {
	children, err := retry(ctx, l.s, func() ([]string, error) {
		c, _, err := l.s.conn.Children(l.abs)
		return c, err
	})
	if l.s.Generation() != gen || errors.Is(err, zk.ErrSessionExpired) {
		return nil, errSessionGone
	}
	if errors.Is(err, zk.ErrNoNode) {
		return nil, fmt.Errorf("%w: %s", ErrParentDeleted, l.abs)
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", l.abs, err)
	}
	return children, nil
}

// removeNode deletes an own node that is not (or no longer) wanted,
// waiting up to cleanupWait even when ctx has already ended; past that the
// deletion goes on in the background.
func (l *Lock) removeNode(ctx context.Context, c created) error {
	res := make(chan error, 1)
	go func() { res <- l.s.deleteOwned(c.abs, c.gen) }()
	t := time.NewTimer(cleanupWait)
	defer t.Stop()
	select {
	case err := <-res:
		if err != nil {
			return fmt.Errorf("delete own node %s: %w", c.abs, err)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("delete own node %s: still trying in the background (link down)", c.abs)
	}
}

// deleteOwned deletes a node owned by session generation gen, retrying
// across link losses until it is gone, or its session is (the server then
// deletes it), or the Session is closed.
func (s *Session) deleteOwned(abs string, gen uint64) error {
	for {
		st, g, ch := s.snapshot()
		if g != gen || st == StateClosed {
			return nil
		}
		if st != StateConnected {
			<-ch
			continue
		}
		err := s.conn.Delete(abs, -1)
		switch {
		case err == nil, errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrSessionExpired), errors.Is(err, zk.ErrClosing):
			return nil
		case ConnLoss(err):
			continue
		default:
			return err
		}
	}
}

func (l *Lock) report(p Progress) {
	if l.cfg.progress == nil {
		return
	}
	if p.At.IsZero() {
		p.At = time.Now()
	}
	l.cfg.progress(p)
}

// hold records the hold and starts its monitor.
func (l *Lock) hold(t tenure) {
	ctx, cancel := context.WithCancel(context.Background())
	l.mu.Lock()
	l.state = LockHolding
	l.ten = t
	l.done = make(chan struct{})
	l.err = nil
	l.stop = cancel
	l.mu.Unlock()
	l.report(Progress{State: LockHolding, Node: t.node, Position: 1})
	go l.monitor(ctx, t)
}

// monitor watches a hold until it is released (ctx cancelled) or lost.
// Session expiry is seen at once through the Session's state; deletion of
// the own node by someone else through a data watch on it, armed after
// ownWatchDelay (at once for revocable locks, or if the waiter had armed it
// already).
func (l *Lock) monitor(ctx context.Context, t tenure) {
	own := t.own
	armAt := time.Now().Add(ownWatchDelay)
	if l.cfg.revocable || t.armNow {
		armAt = time.Now()
	}
	if own.armed() && l.cfg.revocable && string(own.data) == revokeData {
		l.revoke(t)
		return
	}
	suspended := false
	for {
		if ctx.Err() != nil {
			return
		}
		st, gen, sch := l.s.snapshot()
		switch {
		case gen != t.gen || st == StateExpired:
			l.lose(t, ErrSessionExpired)
			return
		case st == StateClosed:
			l.lose(t, ErrSessionClosed)
			return
		case st == StateSuspended:
			if !suspended {
				suspended = true
				l.setHoldState(LockSuspended, t)
			}
		case st == StateConnected && suspended:
			// Same session back: the node should still be there; make sure.
			ok, err := do(ctx, func() (bool, error) {
				ok, _, err := l.s.conn.Exists(t.abs)
				return ok, err
			})
			if ConnLoss(err) || ctx.Err() != nil {
				continue
			}
			if err == nil && !ok {
				l.lose(t, ErrNodeDeleted)
				return
			}
			suspended = false
			l.setHoldState(LockHolding, t)
		}
		if !own.armed() {
			if st != StateConnected {
				if _, _, err := waitEvent(ctx, sch); err != nil {
					return
				}
				continue
			}
			if d := time.Until(armAt); d > 0 {
				wctx, cancel := context.WithTimeout(ctx, d)
				_, _, _ = waitEvent(wctx, sch)
				cancel()
				continue
			}
			w, gone, err := armWatch(ctx, l.s, t.abs, t.node, true)
			switch {
			case ctx.Err() != nil:
				return
			case gone:
				l.lose(t, ErrNodeDeleted)
				return
			case err != nil:
				// The link dropped (the state tells what next), or the
				// server refused: try again a little later, not in a spin.
				armAt = time.Now().Add(ownWatchDelay)
				continue
			case l.cfg.revocable && string(w.data) == revokeData:
				l.revoke(t)
				return
			}
			own = w
			continue
		}
		which, ev, err := waitEvent(ctx, sch, own.ch)
		if err != nil {
			return
		}
		switch {
		case which == sessionWake:
		case ev.Type == zk.EventNodeDeleted:
			if ctx.Err() == nil {
				l.lose(t, ErrNodeDeleted)
			}
			return
		default:
			// data changed (perhaps a revoke), or the watch was dropped:
			// re-arm at once and look at the data.
			own = watch{}
			armAt = time.Now()
		}
	}
}

func (l *Lock) setHoldState(st LockState, t tenure) {
	l.mu.Lock()
	if l.releasing || (l.state != LockHolding && l.state != LockSuspended) {
		l.mu.Unlock()
		return
	}
	l.state = st
	l.mu.Unlock()
	l.report(Progress{State: st, Node: t.node, Position: 1})
}

// lose ends a hold that its holder did not end. If the session may still
// live (expiry presumed while the link is down), the node is deleted
// should the same session come back, so a lock given up is never held.
func (l *Lock) lose(t tenure, why error) {
	l.mu.Lock()
	if l.releasing || (l.state != LockHolding && l.state != LockSuspended) {
		l.mu.Unlock()
		return
	}
	err := fmt.Errorf("%w: %s: %w", ErrLost, t.node, why)
	l.state = LockLost
	l.err = err
	close(l.done)
	l.mu.Unlock()
	l.report(Progress{State: LockLost, Node: t.node, Err: err})
	if !errors.Is(why, ErrNodeDeleted) {
		go l.s.deleteOwned(t.abs, t.gen)
	}
}

// revoke honours a revocation: the hold ends and lose deletes the node.
func (l *Lock) revoke(t tenure) { l.lose(t, ErrRevoked) }

// Release deletes the own node. A lock that is not held (never acquired,
// already released) gives ErrNotHeld. Releasing a lock that was lost
// returns nil at once (the loss was reported by Done and Err; if its
// session may still live, the node is deleted in the background).
// While the link is down the delete is retried once it is back; if the
// session ends meanwhile the node is gone with it and Release succeeds. If
// ctx ends first, the error is returned and the deletion goes on in the
// background.
func (l *Lock) Release(ctx context.Context) error {
	l.mu.Lock()
	switch l.state {
	case LockHolding, LockSuspended, LockLost:
	default:
		l.mu.Unlock()
		return fmt.Errorf("release %s: %w", l.path, ErrNotHeld)
	}
	t, stop := l.ten, l.stop
	t.lost = l.state == LockLost
	l.releasing = true
	l.mu.Unlock()

	// The monitor ends on its own; releasing (set above) keeps it from
	// reporting our own delete as a loss, so there is no need to wait.
	stop()

	if t.lost {
		// lose already deletes the node in the background if the session
		// may still live; nothing is held.
		l.finishRelease(t, nil)
		return nil
	}
	err := l.deleteForRelease(ctx, t)
	l.finishRelease(t, err)
	return err
}

// deleteForRelease deletes the own node, or waits until the session that
// owns it has ended (or is presumed to have: then the deletion goes on in
// the background should the same session come back).
func (l *Lock) deleteForRelease(ctx context.Context, t tenure) error {
	if st, gen, _ := l.s.snapshot(); st == StateConnected && gen == t.gen && ctx.Done() == nil {
		// A context that never ends, over a live link: no goroutine needed
		// (go-zookeeper fails the delete once the link drops; then below).
		err := l.s.conn.Delete(t.abs, -1)
		if err == nil || errors.Is(err, zk.ErrNoNode) {
			return nil
		}
	}
	res := make(chan error, 1)
	go func() { res <- l.s.deleteOwned(t.abs, t.gen) }()
	for {
		st, gen, sch := l.s.snapshot()
		if gen != t.gen || st == StateExpired || st == StateClosed {
			return nil
		}
		select {
		case err := <-res:
			if err != nil {
				return fmt.Errorf("release %s: delete %s: %w", l.path, t.node, err)
			}
			return nil
		case <-ctx.Done():
			return fmt.Errorf("release %s: %w (the node is deleted once the link is back, or goes with the session)", l.path, ctx.Err())
		case <-sch:
		}
	}
}

func (l *Lock) finishRelease(t tenure, err error) {
	l.mu.Lock()
	if l.state != LockLost {
		close(l.done)
	}
	l.state = LockIdle
	l.mu.Unlock()
	l.report(Progress{State: LockReleased, Node: t.node, Err: err})
}
