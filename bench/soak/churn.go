package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/ui"
)

// The three locks, as in the demo: a busy mutex, a read/write lock, a
// quiet lock.
const (
	busyLock  = "/soak/locks/billing"
	rwLock    = "/soak/locks/orders"
	quietLock = "/soak/locks/reports"
)

func soakPaths() []string { return []string{busyLock, rwLock, quietLock} }

// soakSession is the contenders' session timeout: a crashed holder's
// node goes within seconds.
const soakSession = 4 * time.Second

// span is a range of durations picked at random, so that handoffs come at
// uneven times.
type span struct{ lo, hi time.Duration }

func (s span) pick() time.Duration { return s.lo + rand.N(s.hi-s.lo+1) }

// role is one kind of client: its lock, kind, hold and think times.
type role struct {
	path  string
	kind  ordering.Kind
	hold  span
	think span
	// patience > 0: the client gives up waiting after that long (a
	// cancelled acquire), as a job with a deadline does.
	patience time.Duration
}

func roles() []role {
	ms := time.Millisecond
	return []role{
		{path: busyLock, kind: ordering.KindMutex, hold: span{100 * ms, 600 * ms}, think: span{50 * ms, 400 * ms}},
		{path: busyLock, kind: ordering.KindMutex, hold: span{100 * ms, 600 * ms}, think: span{50 * ms, 400 * ms}},
		{path: busyLock, kind: ordering.KindMutex, hold: span{100 * ms, 600 * ms}, think: span{50 * ms, 400 * ms}},
		{path: busyLock, kind: ordering.KindMutex, hold: span{50 * ms, 300 * ms}, think: span{50 * ms, 200 * ms}, patience: 700 * ms},
		{path: rwLock, kind: ordering.KindRead, hold: span{200 * ms, 1500 * ms}, think: span{100 * ms, 800 * ms}},
		{path: rwLock, kind: ordering.KindRead, hold: span{200 * ms, 1500 * ms}, think: span{100 * ms, 800 * ms}},
		{path: rwLock, kind: ordering.KindRead, hold: span{200 * ms, 1500 * ms}, think: span{100 * ms, 800 * ms}},
		{path: rwLock, kind: ordering.KindWrite, hold: span{100 * ms, 500 * ms}, think: span{500 * ms, 2000 * ms}},
		{path: quietLock, kind: ordering.KindMutex, hold: span{2 * time.Second, 5 * time.Second}, think: span{3 * time.Second, 8 * time.Second}},
	}
}

// Churn rhythm.
const (
	// crashEvery: one holder crashes (session closed without a release)
	// and a new client replaces it.
	crashEvery = 5 * time.Second
	// operatorEvery: the operator takes the quiet lock, waits its turn,
	// holds it a while and releases it, reporting to the console.
	operatorEvery = 20 * time.Second
	operatorHold  = 5 * time.Second
	// maxErrors: lock-core errors are expected now and then (a request cut
	// by a crash), not by the hundred.
	maxErrors = 100
)

// churn runs the contenders.
type churn struct {
	servers []string
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	own     chan ui.OwnLock

	acquired  atomic.Int64
	crashed   atomic.Int64
	cancelled atomic.Int64
	errs      atomic.Int64

	mu       sync.Mutex
	clients  []*client
	firstErr error
	someErrs []string // the first few, for the summary
}

// client is one contender: its session, and whether it was told to crash
// at its next hold.
type client struct {
	r     role
	s     *lockops.Session
	crash atomic.Bool
}

func startChurn(ctx context.Context, servers []string, giveUp bool) (*churn, error) {
	cctx, cancel := context.WithCancel(ctx)
	c := &churn{servers: servers, ctx: cctx, cancel: cancel, own: make(chan ui.OwnLock, 64)}
	for _, r := range roles() {
		if r.patience > 0 && !giveUp {
			continue
		}
		if err := c.spawn(r); err != nil {
			cancel()
			c.wg.Wait()
			return nil, err
		}
	}
	c.wg.Go(c.crasher)
	c.wg.Go(c.operator)
	return c, nil
}

func (c *churn) connect() (*lockops.Session, error) {
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	return lockops.Connect(ctx, c.servers, lockops.WithSessionTimeout(soakSession))
}

// spawn starts a client of role r in a new session.
func (c *churn) spawn(r role) error {
	s, err := c.connect()
	if err != nil {
		return fmt.Errorf("connect a contender: %w", err)
	}
	cl := &client{r: r, s: s}
	c.mu.Lock()
	c.clients = append(c.clients, cl)
	c.mu.Unlock()
	c.wg.Go(func() { c.contend(cl) })
	return nil
}

func (c *churn) noteErr(err error) {
	n := c.errs.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.someErrs) < 5 {
		c.someErrs = append(c.someErrs, time.Now().Format("15:04:05.000")+" "+err.Error())
	}
	if n == maxErrors {
		c.firstErr = fmt.Errorf("%d lock-core errors, the last: %w", maxErrors, err)
	}
}

// errorSample is the first few errors, one a line.
func (c *churn) errorSample() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.someErrs...)
}

// contend cycles until the churn ends or the client crashes; a crashed
// client is replaced by a new one.
func (c *churn) contend(cl *client) {
	defer cl.s.Close()
	l := lockops.NewLock(cl.s, cl.r.path, lockops.WithKind(cl.r.kind), lockops.WithNote("soak"))
	for c.ctx.Err() == nil {
		actx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
		if cl.r.patience > 0 {
			actx, cancel = context.WithTimeout(c.ctx, cl.r.patience)
		}
		err := l.Acquire(actx)
		cancel()
		switch {
		case err != nil && c.ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded) && cl.r.patience > 0:
			c.cancelled.Add(1)
			if !sleep(c.ctx, cl.r.think.pick()) {
				return
			}
			continue
		case err != nil:
			c.noteErr(err)
			if !sleep(c.ctx, time.Second) {
				return
			}
			continue
		}
		c.acquired.Add(1)
		hold := time.NewTimer(cl.r.hold.pick())
		select {
		case <-hold.C:
		case <-l.Done():
		case <-c.ctx.Done():
		}
		hold.Stop()
		if cl.crash.Load() && c.ctx.Err() == nil {
			// Crash while holding: the session ends without a release; its
			// node goes with it. A new client takes this one's place.
			c.crashed.Add(1)
			c.remove(cl)
			cl.s.Close()
			if err := c.spawn(cl.r); err != nil && c.ctx.Err() == nil {
				c.noteErr(err)
			}
			return
		}
		rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := l.Release(rctx); err != nil {
			c.noteErr(err)
		}
		rcancel()
		if !sleep(c.ctx, cl.r.think.pick()) {
			return
		}
	}
}

func (c *churn) remove(cl *client) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.clients {
		if x == cl {
			c.clients = append(c.clients[:i], c.clients[i+1:]...)
			return
		}
	}
}

// crasher tells one client at random to crash at its next hold.
func (c *churn) crasher() {
	t := time.NewTicker(crashEvery)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		c.mu.Lock()
		if n := len(c.clients); n > 0 {
			c.clients[rand.N(n)].crash.Store(true)
		}
		c.mu.Unlock()
	}
}

// operator is the person at the console: takes the quiet lock now and
// then, its progress reported to the console as the lock core reports it.
func (c *churn) operator() {
	s, err := c.connect()
	if err != nil {
		c.noteErr(err)
		return
	}
	defer s.Close()
	defer close(c.own)
	report := func(p ordering.Progress) {
		if p.State == ordering.LockIdle {
			return
		}
		o := ui.OwnFromProgress(quietLock, p)
		// Progress callbacks must not block: a console that fell this far
		// behind loses a report, as a terminal would a frame.
		select {
		case c.own <- o:
		default:
		}
	}
	l := lockops.NewLock(s, quietLock, lockops.WithNote("operator"), lockops.WithProgress(report))
	for sleep(c.ctx, operatorEvery) {
		actx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
		err := l.Acquire(actx)
		cancel()
		if err != nil {
			if c.ctx.Err() == nil {
				c.noteErr(err)
			}
			continue
		}
		sleep(c.ctx, operatorHold)
		rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := l.Release(rctx); err != nil {
			c.noteErr(err)
		}
		rcancel()
	}
}

func (c *churn) stop() {
	c.cancel()
	c.wg.Wait()
}

func (c *churn) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.firstErr
}

// sleep waits d; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
