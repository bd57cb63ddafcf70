package cmd

// What `zklock run` takes at PATH: a lock, one lease of a semaphore, or a
// participant's place in a leader election (CMD runs while it leads),
// decided from what the parent holds, or --kind. A semaphore is taken in
// the protocol its clients use (lockops.Semaphore), an election is joined
// as a LeaderLatch participant, or, for an election the config names on a
// mutex (LeaderSelector, Kazoo Election), as its clients join it: by
// taking the mutex.

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

// runHold is what run holds while CMD runs: a *lockops.Lock (a lock, or
// an election's leadership) or a *lockops.Semaphore (a lease).
type runHold interface {
	Acquire(context.Context) error
	Release(context.Context) error
	Done() <-chan struct{}
	Err() error
	FencingToken() int64
}

// Kinds of `run --kind` beyond the lock kinds, and the audit record's.
const (
	runKindLease    = "lease"
	runKindElection = "election"
)

// runTarget is what run takes at a path, decided once connected.
type runTarget struct {
	// kind is the audit record's: mutex, read, write, lease or election.
	kind string
	hold runHold
	// node is the own node's path relative to the run's path, once held
	// (a Curator lease is "leases/<name>").
	node func() string
}

// chooseRunTarget reads the parent and decides what to take there.
// explicit says that --kind was given; lockOpts are the lock options
// already chosen from the flags (note, style, allow-mixed, progress).
func chooseRunTarget(ctx context.Context, sess *lockops.Session, s *config.Settings, p string, o runOptions, explicit bool, lockOpts []lockops.Option) (runTarget, error) {
	info, err := lockops.ReadParent(ctx, sess, p)
	if err != nil {
		return runTarget{}, fmt.Errorf("run: %w", err)
	}
	_, isSem := info.Semaphore()
	named := slices.Contains(s.Elections, p)
	switch {
	case o.kind == runKindLease || !explicit && (isSem || o.limit != 0):
		// --limit alone asks for a lease too: of a new semaphore on an
		// empty parent (a lock queue is refused as no semaphore).
		return leaseTarget(ctx, sess, s, p, o, lockOpts)
	case isSem:
		return runTarget{}, fmt.Errorf("run: %s is a semaphore: take a lease (--kind lease, or leave --kind out), not a %s lock", p, o.kind)
	case o.kind == runKindElection || !explicit && (info.Latch() || named):
		return electionTarget(sess, p, o, named && !info.Latch(), lockOpts)
	case info.Latch():
		return runTarget{}, fmt.Errorf("run: %s is a LeaderLatch election: join it (--kind election, or leave --kind out), not as a %s lock", p, o.kind)
	}
	return lockTarget(sess, p, o, lockOpts)
}

// electionTarget is a participant's place in the election at p: a
// LeaderLatch participant (the lock core with latch names), unless
// onMutex says that the config names p an election held on a mutex
// (LeaderSelector, Kazoo Election) and no latch node is there: then the
// mutex, taken as those clients take it.
func electionTarget(sess *lockops.Session, p string, o runOptions, onMutex bool, lockOpts []lockops.Option) (runTarget, error) {
	if o.limit != 0 {
		return runTarget{}, fmt.Errorf("run: --limit is a semaphore's; %s is an election", p)
	}
	if !onMutex {
		lockOpts = append(lockOpts, lockops.WithLatch())
	}
	l := lockops.NewLock(sess, p, lockOpts...)
	return runTarget{kind: runKindElection, hold: l, node: l.Node}, nil
}

// lockTarget is a lock of --kind (mutex, read or write) at p.
func lockTarget(sess *lockops.Session, p string, o runOptions, lockOpts []lockops.Option) (runTarget, error) {
	if o.limit != 0 {
		return runTarget{}, fmt.Errorf("run: --limit is a semaphore's, not a %s lock's", o.kind)
	}
	kind, err := parseKind(o.kind)
	if err != nil {
		return runTarget{}, err
	}
	l := lockops.NewLock(sess, p, append(lockOpts, lockops.WithKind(kind))...)
	return runTarget{kind: kind.String(), hold: l, node: l.Node}, nil
}

// leaseTarget is one lease of the semaphore at p, with the limit from
// --limit, else the context config, else what the console deduces (a
// Curator lease waiting beyond the limit, Kazoo's max_leases); a Kazoo
// semaphore states its own, and without any, Curator's is refused.
func leaseTarget(ctx context.Context, sess *lockops.Session, s *config.Settings, p string, o runOptions, lockOpts []lockops.Option) (runTarget, error) {
	stated, src := o.limit, "--limit"
	if stated == 0 {
		stated, src = s.Semaphores[p], "the context's semaphores: limit"
	}
	limit, err := runLimit(ctx, sess, stated, src, p)
	if err != nil {
		return runTarget{}, err
	}
	if limit != 0 {
		lockOpts = append(lockOpts, lockops.WithLimit(limit))
	}
	m := lockops.NewSemaphore(sess, p, lockOpts...)
	return runTarget{kind: runKindLease, hold: m, node: func() string { return leaseNode(p, m) }}, nil
}

// semaphoreLimit is the limit to take a lease of p under: the stated one
// (--limit, the context's semaphores:), else the one the console deduces
// (a Curator lease waiting beyond the limit); 0 when unknown, and a Kazoo
// semaphore then states its own.
func semaphoreLimit(ctx context.Context, sess *lockops.Session, stated int, p string) int {
	if stated != 0 {
		return stated
	}
	lctx, cancel := context.WithTimeout(ctx, holderLookupTimeout)
	defer cancel()
	snap, err := zkview.Load(lctx, sess, zkview.Options{Paths: []string{p}})
	if err != nil || snap.Queues.Len() != 1 {
		return 0
	}
	if q := snap.Queues.At(0); q.Type == model.TypeSemaphore && q.LimitSource() == model.LimitDeduced {
		return q.Limit()
	}
	return 0
}

// runLimit is the limit run takes a lease of p under: the stated one
// (from src) checked against the one the console deduces from the
// clients there (a Curator lease waiting beyond their limit), else the
// deduced one; 0 when neither is known.
//
// A stated limit above the deduced one is refused: those clients let no
// more than that many hold at once, and a lease taken under a higher
// limit would be one more than they allow, the overload the semaphore is
// there to prevent (lockops refuses a limit other than Kazoo's stated
// max_leases for the same reason). To raise a limit, raise it in the
// clients. A stated limit below it is taken, with a warning: the run
// then only waits longer than it needs to.
func runLimit(ctx context.Context, sess *lockops.Session, stated int, src, p string) (int, error) {
	deduced := semaphoreLimit(ctx, sess, 0, p)
	switch {
	case stated == 0:
		return deduced, nil
	case deduced == 0 || stated == deduced:
		return stated, nil
	case stated > deduced:
		return 0, fmt.Errorf("run: %s %d is above the limit of semaphore %s: its clients let %d hold at once (deduced from a lease waiting beyond it); give %d, or leave the limit out",
			src, stated, p, deduced, deduced)
	}
	warn(fmt.Errorf("warning: %s %d is below the limit of semaphore %s that its clients show (%d): this run may wait longer than they would", src, stated, p, deduced))
	return stated, nil
}

// leaseNode is a semaphore's lease node relative to its path p
// ("leases/<name>" for Curator's), "" before the first lease.
func leaseNode(p string, m *lockops.Semaphore) string {
	lp := m.LeasePath()
	if lp == "" {
		return ""
	}
	return strings.TrimPrefix(lp, strings.TrimSuffix(p, "/")+"/")
}

// runRefusal turns a semaphore's refusals into the one line that says
// what to do; other errors are returned as they are.
func runRefusal(p string, err error) error {
	switch {
	case errors.Is(err, lockops.ErrNoLimit):
		return fmt.Errorf("run: the limit of semaphore %s is unknown (Curator keeps it in its clients only): give it with --limit N, or under semaphores: in the context config", p)
	case errors.Is(err, lockops.ErrLimitMismatch):
		return fmt.Errorf("run: %w (leave --limit out: Kazoo's semaphore states its own)", err)
	case errors.Is(err, lockops.ErrNotSemaphore):
		return fmt.Errorf("run: refusing to take a lease of %s: %w", p, err)
	}
	return nil
}

// runNodePath is ZKLOCK_NODE: the own node's full path.
func runNodePath(p string, t runTarget) string { return path.Join(p, t.node()) }

// what names the hold in messages: lock, lease or leadership.
func (t runTarget) what() string {
	switch t.kind {
	case runKindLease:
		return "lease"
	case runKindElection:
		return "leadership"
	}
	return "lock"
}

// checkRunKind refuses a --kind value before connecting.
func checkRunKind(o runOptions) error {
	switch o.kind {
	case runKindLease, runKindElection:
	default:
		if _, err := parseKind(o.kind); err != nil {
			return fmt.Errorf("--kind %q: want mutex, read, write, lease or election", o.kind)
		}
	}
	if o.limit < 0 {
		return fmt.Errorf("--limit %d: want 1 or more", o.limit)
	}
	return nil
}
