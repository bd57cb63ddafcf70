package lockops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"sync"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
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
	state     ordering.LockState
	node      string
	ten       tenure
	done      chan struct{}
	err       error
	stop      context.CancelFunc // ends the holder's monitor
	releasing bool

	waitStats // the waits that saved a listing (watch.go)
}

// NewLock prepares a lock on the lock parent path (as the user sees it;
// the Session's chroot is applied). Nothing is sent until Acquire.
func NewLock(s *Session, p string, opts ...Option) *Lock {
	cfg := lockConfig{kind: ordering.KindMutex, acl: zk.WorldACL(zk.PermAll)}
	for _, o := range opts {
		o(&cfg)
	}
	l := &Lock{s: s, path: p, cfg: cfg, done: make(chan struct{})}
	if err := ValidPath(p); err != nil {
		l.pathErr = err
	} else if p == "/" {
		l.pathErr = fmt.Errorf("the root cannot be a lock parent")
	} else if cfg.kind != ordering.KindMutex && cfg.kind != ordering.KindRead && cfg.kind != ordering.KindWrite {
		l.pathErr = fmt.Errorf("kind %s is not a lock kind", cfg.kind)
	} else if cfg.latch && (cfg.kind != ordering.KindMutex || cfg.styleSet && cfg.style != ordering.StyleCurator) {
		l.pathErr = fmt.Errorf("a LeaderLatch participant is a Curator-style mutex node, not %s %s", cfg.style, cfg.kind)
	} else if cfg.limit != 0 {
		l.pathErr = fmt.Errorf("WithLimit is a semaphore's option (NewSemaphore)")
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
func (l *Lock) State() ordering.LockState {
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

// Fencing tokens: a hold's number that a resource compares, so that a
// holder who lost its hold (a paused process, a partition) and writes
// anyway is refused (docs/fencing.md).

// FencingToken is the czxid of the current hold's node (the zxid of the
// ZooKeeper transaction that created it), or of the last hold once it
// ended; 0 before the first hold. It is taken from the create's own
// answer, never read again later. Every later holder of the lock has a
// higher one, whichever recipe it uses under this parent, even after the
// parent was deleted and made again (where sequence numbers restart):
// zxids grow ensemble-wide. A resource that refuses a token lower than
// the highest it has accepted refuses a holder that lost the lock
// (docs/fencing.md). The token is kept after a loss on purpose: a holder
// that does not know it lost still presents its old token, and that is
// what the resource must see. Readers of a read/write lock, and leases of
// one semaphore, hold at once with different tokens: the token orders
// them, it does not make them exclusive.
func (l *Lock) FencingToken() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ten.czxid
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
	case ordering.LockQueued, ordering.LockHolding, ordering.LockSuspended:
		l.mu.Unlock()
		return false, fmt.Errorf("acquire %s: %w", l.path, ErrInUse)
	}
	l.state, l.node, l.err, l.releasing = ordering.LockQueued, "", nil, false
	l.mu.Unlock()

	t, held, err := l.contend(ctx, wait)
	if err != nil || !held {
		l.mu.Lock()
		l.state = ordering.LockIdle
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
	style  ordering.Style
	family string
}

// joinFor is how to join a queue of others that is not mixed.
func joinFor(q ordering.Ordering) joinAs {
	st, _ := ordering.DetectStyle(q)
	j := joinAs{style: st}
	if len(q.Entries) > 0 {
		j.family = q.Entries[0].Family()
	}
	return j
}

// restyle asks contend to create again, named as the queue wants.
type restyle struct{ join joinAs }

func (r restyle) Error() string {
	return "queue changed style again (now " + r.join.style.String() + " " + r.join.family + "): clients of both kinds keep arriving: " + ordering.ErrMixedRecipes.Error()
}

func (r restyle) Unwrap() error { return ordering.ErrMixedRecipes }

func (l *Lock) contend(ctx context.Context, wait bool) (tenure, bool, error) {
	join, err := l.chooseJoin(ctx)
	if err != nil {
		return tenure{}, false, err
	}
	return l.contendFrom(ctx, created{}, join, wait)
}

// contendFrom queues with the own node c, already created as join names
// it (Rejoin's), or with a node it creates first when c is zero; and
// creates again when the session ends or the queue wants other names. On
// an error the own node is deleted, as for a cancelled Acquire.
func (l *Lock) contendFrom(ctx context.Context, c created, join joinAs, wait bool) (tenure, bool, error) {
	restyles := 0
	for {
		if c.node == "" {
			var err error
			if c, err = l.createNode(ctx, join); err != nil {
				return tenure{}, false, err
			}
		}
		l.mu.Lock()
		l.node = c.node
		l.mu.Unlock()
		t, held, err := l.waiter().queue(ctx, c, join, wait)
		if err == nil && held {
			return t, true, nil
		}
		var rs restyle
		if errors.Is(err, errSessionGone) {
			// The node went with its session; queue again in the new one.
			c = created{}
			continue
		}
		cerr := l.removeNode(ctx, c)
		c = created{}
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
	q := ordering.BySequence(children)
	if _, err := ordering.DetectStyle(q); err != nil {
		if l.cfg.allowMixed {
			return l.forced(joinAs{}), nil
		}
		return joinAs{}, err
	}
	j := joinFor(q)
	l.s.setJoinHint(l.abs, j)
	return l.forced(j), nil
}

// forced applies WithLatch and WithStyle.
func (l *Lock) forced(j joinAs) joinAs {
	if l.cfg.latch {
		return joinAs{style: ordering.StyleCurator, family: ordering.FamilyCuratorLatch}
	}
	if l.cfg.styleSet && l.cfg.style != j.style {
		return joinAs{style: l.cfg.style}
	}
	return j
}

// checkJoin looks at the first listing after the create. It refuses a
// queue of recipes that cannot see each other, or one that the own node
// would make so (a forced style, a read lock on a mutex queue), and asks
// for a new create when the queue turned out to want other names.
func (l *Lock) checkJoin(all ordering.Ordering, children []string, own string, join joinAs) error {
	if l.cfg.allowMixed {
		return nil
	}
	if _, err := ordering.DetectStyle(all); err == nil {
		l.s.setJoinHint(l.abs, join)
		return nil
	} else if !errors.Is(err, ordering.ErrMixedRecipes) {
		return err
	}
	others := make([]string, 0, len(children))
	for _, c := range children {
		if c != own {
			others = append(others, c)
		}
	}
	oq := ordering.BySequence(others)
	if _, err := ordering.DetectStyle(oq); err != nil {
		return err
	}
	want := joinFor(oq)
	l.s.setJoinHint(l.abs, want)
	if want != join && l.forced(want) == want {
		if p, _ := nodePrefix(want, l.cfg.kind); p != "" {
			if n, _ := ordering.ParseName(p + "0000000001"); n.Family() == want.family {
				return restyle{want}
			}
		}
	}
	_, err := ordering.DetectStyle(all)
	as := l.cfg.kind.String()
	if join.family == ordering.FamilyCuratorLatch {
		as = "latch participant"
	}
	return fmt.Errorf("joining as %s %s would mix recipes: %w", join.style, as, err)
}

func (l *Lock) report(p ordering.Progress) {
	if l.cfg.progress == nil {
		return
	}
	if p.At.IsZero() {
		p.At = time.Now()
	}
	l.cfg.progress(p)
}

// parent is the lock parent as the protected create and the waiter reach
// it (create.go).
func (l *Lock) parent() lockParent { return lockParent{s: l.s, abs: l.abs} }

// createNode is the protected create of the own node (create.go), joining
// as join.
func (l *Lock) createNode(ctx context.Context, join joinAs) (created, error) {
	return protectedCreate(ctx, l.parent(), l.cfg, join)
}

// waiter is the Lock's wait in its queue (watch.go).
func (l *Lock) waiter() waiter {
	return waiter{lockParent: l.parent(), report: l.report, checkJoin: l.checkJoin, stats: &l.waitStats}
}
