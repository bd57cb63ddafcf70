package holds

// What taking a path means: a lock, one lease of a semaphore, or a
// participant's place in a leader election, decided from what the parent
// holds, or from the kind asked. A semaphore is taken in the protocol its
// clients use (lockops.Semaphore), an election is joined as a LeaderLatch
// participant, or, for an election the config names on a mutex
// (LeaderSelector, Kazoo Election), as its clients join it: by taking
// the mutex.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

// LookupTimeout bounds a look at the queue that only informs (a deduced
// limit, who holds, a place in line): what cannot be read in this long
// is not known.
const LookupTimeout = 3 * time.Second

// ErrLimitUnknown is returned by Take when Want.RefuseUnknownLimit is
// set and the path is a Curator semaphore whose limit nobody states or
// shows.
var ErrLimitUnknown = errors.New("holds: semaphore limit unknown")

// Want is what a caller asks of a path.
type Want struct {
	// Kind is mutex, read, write, lease or election.
	Kind string
	// Explicit says that Kind was asked for (`run --kind`); otherwise the
	// parent decides: a semaphore is taken as a lease, a LeaderLatch or
	// an election named in Elections is joined, and Kind applies to a
	// lock only.
	Explicit bool
	// Limit is a semaphore limit the caller states (`run --limit`; 0:
	// none): it asks for a lease, of a new semaphore on an empty parent.
	Limit int
	// Semaphores are the limits the config states, by path: the limit
	// of a lease when Limit is 0.
	Semaphores map[string]int
	// Elections are the paths the config names as elections.
	Elections []string
	// Options are the lock core's options the caller chose (note,
	// style, allow-mixed, progress).
	Options []lockops.Option
	// Warn is told what does not stop the take (a stated limit below the
	// one the clients show); nil: nothing is said.
	Warn func(error)
	// RefuseUnknownLimit refuses a Curator semaphore without a known
	// limit here (ErrLimitUnknown), not at Acquire (lockops.ErrNoLimit):
	// for a caller that must not start what it cannot finish.
	RefuseUnknownLimit bool
}

// Take reads the parent at p and decides what to take there; the Hold
// it returns is not acquired yet.
func Take(ctx context.Context, sess *lockops.Session, p string, w Want) (*Hold, error) {
	info, err := lockops.ReadParent(ctx, sess, p)
	if err != nil {
		return nil, err
	}
	style, isSem := info.Semaphore()
	named := slices.Contains(w.Elections, p)
	switch {
	case w.Kind == KindLease || !w.Explicit && (isSem || w.Limit != 0):
		// A limit alone asks for a lease too: of a new semaphore on an
		// empty parent (a lock queue is refused as no semaphore).
		return takeLease(ctx, sess, p, w, isSem && style == ordering.StyleCurator)
	case isSem:
		return nil, fmt.Errorf("%s is a semaphore: take a lease (--kind lease, or leave --kind out), not a %s lock", p, w.Kind)
	case w.Kind == KindElection || !w.Explicit && (info.Latch() || named):
		return takeElection(sess, p, w, named && !info.Latch())
	case info.Latch():
		return nil, fmt.Errorf("%s is a LeaderLatch election: join it (--kind election, or leave --kind out), not as a %s lock", p, w.Kind)
	}
	return takeLock(sess, p, w)
}

// takeElection is a participant's place in the election at p: a
// LeaderLatch participant (the lock core with latch names), unless
// onMutex says that the config names p an election held on a mutex
// (LeaderSelector, Kazoo Election) and no latch node is there: then the
// mutex, taken as those clients take it.
func takeElection(sess *lockops.Session, p string, w Want, onMutex bool) (*Hold, error) {
	if w.Limit != 0 {
		return nil, fmt.Errorf("--limit is a semaphore's; %s is an election", p)
	}
	opts := w.Options
	if !onMutex {
		opts = append(slices.Clip(opts), lockops.WithLatch())
	}
	l := lockops.NewLock(sess, p, opts...)
	return &Hold{recipe: l, kind: KindElection, node: l.Node}, nil
}

// takeLock is a lock of w.Kind (mutex, read or write) at p.
func takeLock(sess *lockops.Session, p string, w Want) (*Hold, error) {
	if w.Limit != 0 {
		return nil, fmt.Errorf("--limit is a semaphore's, not a %s lock's", w.Kind)
	}
	kind, err := ParseKind(w.Kind)
	if err != nil {
		return nil, err
	}
	l := lockops.NewLock(sess, p, append(slices.Clip(w.Options), lockops.WithKind(kind))...)
	return &Hold{recipe: l, kind: kind.String(), node: l.Node}, nil
}

// takeLease is one lease of the semaphore at p, with the limit from
// w.Limit (--limit), else the config, else what the console deduces (a
// Curator lease waiting beyond the limit); a Kazoo semaphore states its
// own, and without any, Curator's (curator: p is one) is refused
// (lockops.ErrNoLimit at Acquire, or ErrLimitUnknown now when w says so).
func takeLease(ctx context.Context, sess *lockops.Session, p string, w Want, curator bool) (*Hold, error) {
	stated, src := w.Limit, "--limit"
	if stated == 0 {
		stated, src = w.Semaphores[p], "the context's semaphores: limit"
	}
	limit, err := leaseLimit(ctx, sess, stated, src, p, w.Warn)
	if err != nil {
		return nil, err
	}
	if limit == 0 && curator && w.RefuseUnknownLimit {
		return nil, fmt.Errorf("%w: %s", ErrLimitUnknown, p)
	}
	opts := w.Options
	if limit != 0 {
		opts = append(slices.Clip(opts), lockops.WithLimit(limit))
	}
	m := lockops.NewSemaphore(sess, p, opts...)
	return &Hold{recipe: m, kind: KindLease, node: func() string { return leaseNode(p, m) }}, nil
}

// deducedLimit is the limit the console deduces for the semaphore at p
// (a Curator lease waiting beyond the limit); 0 when unknown, and a
// Kazoo semaphore then states its own.
//
// One read cannot tell a lease that waits from one in passing: Curator's
// client holds the admission lock from before it makes its lease until
// after it has counted the leases, so for a round trip or two a lease
// within the limit looks like one waiting beyond it, and the limit read
// then is one too low (a run under the right limit was refused so, once,
// under load). A deduction stands only when the next read, deduceGap
// later, shows the same lease waiting under the same limit; at most
// deduceReads reads. Waiting that long costs a run nothing it would not
// wait anyway: a lease that truly waits is one the run waits behind.
func deducedLimit(ctx context.Context, sess *lockops.Session, p string) int {
	var last deduction
	for i := range deduceReads {
		if i > 0 {
			select {
			case <-time.After(deduceGap):
			case <-ctx.Done():
				return 0
			}
		}
		d := readDeduction(ctx, sess, p)
		if d.limit == 0 {
			return 0
		}
		if d == last {
			return d.limit
		}
		last = d
	}
	return 0
}

const (
	deduceGap   = 500 * time.Millisecond
	deduceReads = 3
)

// deduction is one read's deduced limit and the lease that waits beyond
// it (zero when the read deduced none).
type deduction struct {
	limit   int
	pending string
}

// readDeduction reads the semaphore at p once: the limit deduced from a
// lease waiting beyond it, and that lease.
func readDeduction(ctx context.Context, sess *lockops.Session, p string) deduction {
	lctx, cancel := context.WithTimeout(ctx, LookupTimeout)
	defer cancel()
	snap, err := zkview.Load(lctx, sess, zkview.Options{Paths: []string{p}})
	if err != nil || snap.Queues.Len() != 1 {
		return deduction{}
	}
	q := snap.Queues.At(0)
	if q.Type != model.TypeSemaphore || q.LimitSource() != model.LimitDeduced {
		return deduction{}
	}
	for _, n := range q.Nodes.All() {
		if n.Lease && n.Role == ordering.RoleWaiting {
			return deduction{limit: q.Limit(), pending: n.Name}
		}
	}
	return deduction{}
}

// leaseLimit is the limit a lease of p is taken under: the stated one
// (from src) checked against the one the console deduces from the
// clients there (a Curator lease waiting beyond their limit), else the
// deduced one; 0 when neither is known.
//
// A stated limit above the deduced one is refused: those clients let no
// more than that many hold at once, and a lease taken under a higher
// limit would be one more than they allow, the overload the semaphore is
// there to prevent (lockops refuses a limit other than Kazoo's stated
// max_leases for the same reason). To raise a limit, raise it in the
// clients. A stated limit below it is taken, with a warning: the take
// then only waits longer than it needs to.
func leaseLimit(ctx context.Context, sess *lockops.Session, stated int, src, p string, warn func(error)) (int, error) {
	deduced := deducedLimit(ctx, sess, p)
	switch {
	case stated == 0:
		return deduced, nil
	case deduced == 0 || stated == deduced:
		return stated, nil
	case stated > deduced:
		return 0, fmt.Errorf("%s %d is above the limit of semaphore %s: its clients let %d hold at once (deduced from a lease waiting beyond it); give %d, or leave the limit out",
			src, stated, p, deduced, deduced)
	}
	if warn != nil {
		warn(fmt.Errorf("warning: %s %d is below the limit of semaphore %s that its clients show (%d): this run may wait longer than they would", src, stated, p, deduced))
	}
	return stated, nil
}

// ParseKind is the lock kind a --kind value names.
func ParseKind(s string) (ordering.Kind, error) {
	switch s {
	case "mutex":
		return ordering.KindMutex, nil
	case "read":
		return ordering.KindRead, nil
	case "write":
		return ordering.KindWrite, nil
	}
	return 0, fmt.Errorf("--kind %q: want mutex, read or write", s)
}
