package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox/peers"
)

// errNotApplicable: a workload that a contender cannot run (go-zookeeper's
// zk.Lock cannot give up; the limit loop has no queue).
var errNotApplicable = errors.New("bench: not applicable")

// contender is one lock implementation under test, with its clients (each
// its own session) already connected. Clients are numbered from 0; every
// workload uses the first n.
type contender interface {
	Name() string
	// Loop runs spec (peers' contention loop: each client requests,
	// holds, releases, again) and returns every cycle, timed by the wall
	// clock of the process that ran it.
	Loop(ctx context.Context, spec peers.LoopSpec) ([]peers.Cycle, error)
	// Queue has client 0 take the lock on p and clients 1..waiters request
	// it; end lets them all go (waiters cancelled or served in turn).
	Queue(ctx context.Context, p string, waiters int) (end func(context.Context) error, err error)
	Close() error
}

// driverContender is a real Curator or Kazoo client set, run by the peers
// package in one driver process.
type driverContender struct {
	name string
	p    *peers.Proc
}

func (d *driverContender) Name() string { return d.name }
func (d *driverContender) Close() error { return d.p.Close() }

func (d *driverContender) Loop(ctx context.Context, spec peers.LoopSpec) ([]peers.Cycle, error) {
	return d.p.Loop(ctx, spec)
}

func (d *driverContender) Queue(ctx context.Context, p string, waiters int) (func(context.Context) error, error) {
	h0, err := d.p.Acquire(ctx, 0, p, peers.Mutex)
	if err != nil {
		return nil, err
	}
	var hs []*peers.Hold
	for i := 1; i <= waiters; i++ {
		h, err := d.p.Request(i, p, peers.Mutex)
		if err != nil {
			return nil, err
		}
		hs = append(hs, h)
	}
	return func(ctx context.Context) error {
		var wg sync.WaitGroup
		errs := make([]error, len(hs)+1)
		for i, h := range hs {
			wg.Go(func() { errs[i] = h.Cancel(ctx) })
		}
		wg.Wait()
		errs[len(hs)] = h0.Release(ctx)
		return errors.Join(errs...)
	}, nil
}

// goClient is one session of a Go contender.
type goClient interface {
	sessionID() int64
	// acquire returns holding, or the context's error if ctx ended first
	// (the request was given up), or another error.
	acquire(ctx context.Context, p string) (node string, err error)
	release(p string) error
	close()
}

// goContender runs Go clients in this process: zklock's lock core,
// go-zookeeper's zk.Lock, or the limit loop.
type goContender struct {
	name    string
	clients []goClient
}

func (g *goContender) Name() string { return g.name }

func (g *goContender) Close() error {
	for _, c := range g.clients {
		c.close()
	}
	return nil
}

// Loop is peers' loop, in Go: the same spec, the same cycle records.
func (g *goContender) Loop(ctx context.Context, spec peers.LoopSpec) ([]peers.Cycle, error) {
	return loopClients(ctx, spec, len(g.clients), func(ci int, more func(int) bool) []peers.Cycle {
		c := g.clients[ci]
		var mine []peers.Cycle
		fails := 0
		for n := 0; more(n); n++ {
			cy := peers.Cycle{Client: ci, Session: c.sessionID()}
			actx, cancel, timed := timedRequest(ctx, spec)
			cy.Requested = time.Now()
			node, err := c.acquire(actx, spec.Path)
			cy.Acquired = time.Now()
			cancel()
			switch {
			case err == nil:
				cy.Held, cy.Node = true, node
				if spec.Hold > 0 {
					time.Sleep(spec.Hold) // the workload's critical section
				}
				cy.ReleaseCalled = time.Now()
				if err := c.release(spec.Path); err != nil {
					cy.Err = "release: " + err.Error()
				}
				cy.ReleaseReturned = time.Now()
			case timed && errors.Is(err, context.DeadlineExceeded):
				cy.GaveUp = true
			default:
				cy.Err = "acquire: " + err.Error()
			}
			mine = append(mine, cy)
			if cy.Err != "" {
				if fails++; fails > 10 {
					break
				}
			}
		}
		return mine
	})
}

// loopClients runs one client's loop (one) on each client of spec at once
// (every client of n when spec names none) and gathers their cycles.
// more(k) says whether the client's cycle k is still to run: spec's count
// or duration not reached, ctx not ended.
func loopClients(ctx context.Context, spec peers.LoopSpec, n int, one func(ci int, more func(int) bool) []peers.Cycle) ([]peers.Cycle, error) {
	clients := spec.Clients
	if clients == nil {
		clients = clientRange(n)
	}
	deadline := time.Now().Add(spec.Duration)
	more := func(k int) bool {
		return (spec.Cycles <= 0 || k < spec.Cycles) && ctx.Err() == nil && (spec.Duration <= 0 || time.Now().Before(deadline))
	}
	var (
		mu     sync.Mutex
		cycles []peers.Cycle
		wg     sync.WaitGroup
	)
	for _, ci := range clients {
		wg.Go(func() {
			mine := one(ci, more)
			mu.Lock()
			cycles = append(cycles, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return cycles, ctx.Err()
}

// timedRequest is the context of one lock request: with a random timeout
// within spec's GiveUpWithin for spec's GiveUpPercent of requests (timed).
func timedRequest(ctx context.Context, spec peers.LoopSpec) (context.Context, context.CancelFunc, bool) {
	if spec.GiveUpPercent <= 0 || rand.IntN(100) >= spec.GiveUpPercent {
		return ctx, func() {}, false
	}
	within := spec.GiveUpWithin
	if within == 0 {
		within = peers.DefaultGiveUpWithin
	}
	actx, cancel := context.WithTimeout(ctx, rand.N(within+1))
	return actx, cancel, true
}

func (g *goContender) Queue(ctx context.Context, p string, waiters int) (func(context.Context) error, error) {
	if _, ok := g.clients[0].(*limitClient); ok {
		return nil, errNotApplicable
	}
	if _, err := g.clients[0].acquire(ctx, p); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, waiters)
	for _, c := range g.clients[1 : waiters+1] {
		go func() {
			_, err := c.acquire(wctx, p)
			if err == nil {
				err = c.release(p)
			} else if errors.Is(err, context.Canceled) {
				err = nil
			}
			done <- err
		}()
	}
	return func(ctx context.Context) error {
		cancel()
		errs := []error{g.clients[0].release(p)}
		for range waiters {
			select {
			case err := <-done:
				errs = append(errs, err)
			case <-ctx.Done():
				return errors.Join(append(errs, ctx.Err())...)
			}
		}
		return errors.Join(errs...)
	}, nil
}

// zklockClient is one lockops Session with one Lock per lock parent,
// reused from cycle to cycle as an application would.
type zklockClient struct {
	s     *lockops.Session
	mu    sync.Mutex
	locks map[string]*lockops.Lock
	// rel, when set (zklock-rejoin), hears each lock's end of a hold from
	// its progress: when the release's answer arrived.
	rel *releaseMark
}

func (c *zklockClient) lock(p string) *lockops.Lock {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.locks[p]
	if !ok {
		opts := []lockops.Option{lockops.WithData([]byte("bench"))}
		if c.rel != nil {
			opts = append(opts, lockops.WithProgress(c.rel.progress))
		}
		l = lockops.NewLock(c.s, p, opts...)
		c.locks[p] = l
	}
	return l
}

// releaseMark is the last end of a hold a client's locks reported: a
// Rejoin's release returns inside the call, so its time comes from the
// lock's own report (Progress.At: when the multi's answer arrived), not
// from the clock around the call.
type releaseMark struct {
	mu   sync.Mutex
	at   time.Time
	lost error
}

func (m *releaseMark) progress(p ordering.Progress) {
	if p.State != ordering.LockReleased && p.State != ordering.LockLost {
		return
	}
	m.mu.Lock()
	m.at, m.lost = p.At, p.Err
	m.mu.Unlock()
}

// take returns the mark and clears it (zero time: no end reported).
func (m *releaseMark) take() (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	at, lost := m.at, m.lost
	m.at, m.lost = time.Time{}, nil
	return at, lost
}

// rejoinContender is zklock's lock core looping with Lock.Rejoin (#43):
// the same loop spec, but each client Acquires once, then gives the lock
// back and queues again in one call (one multi), and Releases at the end.
// It is zklock's, so never a "best peer". Its watches run is the plain
// lock's Queue (Rejoin changes no waiter).
type rejoinContender struct{ *goContender }

// Loop: a cycle's Acquired is Acquire's or the previous Rejoin's return,
// its ReleaseCalled the Rejoin call (which is also the next cycle's
// request), its ReleaseReturned the arrival of the multi's answer.
func (r *rejoinContender) Loop(ctx context.Context, spec peers.LoopSpec) ([]peers.Cycle, error) {
	return loopClients(ctx, spec, len(r.clients), func(ci int, more func(int) bool) []peers.Cycle {
		c := r.clients[ci].(*zklockClient)
		l := c.lock(spec.Path)
		var (
			mine  []peers.Cycle
			next  *peers.Cycle // requested by the last Rejoin
			fails int
		)
		for n := 0; next != nil || more(n); n++ {
			var cy peers.Cycle
			if next != nil {
				cy, next = *next, nil
			} else {
				cy = acquireCycle(ctx, spec, ci, c, l)
			}
			if cy.Held {
				cy.Node = l.Node()
				if spec.Hold > 0 {
					time.Sleep(spec.Hold) // the workload's critical section
				}
				cy.ReleaseCalled = time.Now()
				if more(n + 1) {
					next = rejoinCycle(ctx, spec, ci, c, l, &cy)
				} else {
					if err := l.Release(context.Background()); err != nil {
						cy.Err = "release: " + err.Error()
					}
					cy.ReleaseReturned = time.Now()
				}
			}
			mine = append(mine, cy)
			if cy.Err != "" {
				if fails++; fails > 10 && next == nil {
					break
				}
			}
		}
		return mine
	})
}

// acquireCycle is a cycle's request by Acquire (the first, or after a
// Rejoin that did not end holding).
func acquireCycle(ctx context.Context, spec peers.LoopSpec, ci int, c *zklockClient, l *lockops.Lock) peers.Cycle {
	cy := peers.Cycle{Client: ci, Session: c.sessionID()}
	actx, cancel, timed := timedRequest(ctx, spec)
	defer cancel()
	cy.Requested = time.Now()
	err := l.Acquire(actx)
	cy.Acquired = time.Now()
	switch {
	case err == nil:
		cy.Held = true
	case timed && errors.Is(err, context.DeadlineExceeded):
		cy.GaveUp = true
	default:
		cy.Err = "acquire: " + err.Error()
	}
	return cy
}

// rejoinCycle ends the held cycle cy by Rejoin, timed as spec asks (a
// timeout covers the multi and the wait, as Rejoin's ctx does), and
// returns the cycle the Rejoin requested: held, given up or failed.
func rejoinCycle(ctx context.Context, spec peers.LoopSpec, ci int, c *zklockClient, l *lockops.Lock, cy *peers.Cycle) *peers.Cycle {
	nx := &peers.Cycle{Client: ci, Session: c.sessionID(), Requested: cy.ReleaseCalled}
	actx, cancel, timed := timedRequest(ctx, spec)
	defer cancel()
	c.rel.take()
	err := l.Rejoin(actx)
	nx.Acquired = time.Now()
	at, lost := c.rel.take()
	cy.ReleaseReturned = at
	switch {
	case lost != nil:
		// The multi did nothing: the hold was lost (its node deleted).
		cy.Err = "release: " + lost.Error()
		return nil
	case at.IsZero() || errors.Is(err, lockops.ErrNotHeld):
		// The hold was lost before Rejoin took it: a failed release, and
		// nothing requested.
		cy.ReleaseReturned = nx.Acquired
		cy.Err = fmt.Sprintf("rejoin: %v", err)
		return nil
	}
	switch {
	case err == nil:
		nx.Held = true
	case timed && errors.Is(err, context.DeadlineExceeded):
		nx.GaveUp = true
	default:
		nx.Err = "rejoin: " + err.Error()
	}
	return nx
}

func (c *zklockClient) sessionID() int64 { return c.s.ID() }
func (c *zklockClient) close()           { c.s.Close() }

func (c *zklockClient) acquire(ctx context.Context, p string) (string, error) {
	l := c.lock(p)
	if err := l.Acquire(ctx); err != nil {
		return "", err
	}
	return l.Node(), nil
}

func (c *zklockClient) release(p string) error { return c.lock(p).Release(context.Background()) }

// gozkClient is one go-zookeeper connection with one zk.Lock per lock
// parent. zk.Lock takes no context: it cannot give up.
type gozkClient struct {
	conn  *zk.Conn
	mu    sync.Mutex
	locks map[string]*zk.Lock
}

func (c *gozkClient) sessionID() int64 { return c.conn.SessionID() }
func (c *gozkClient) close()           { c.conn.Close() }

func (c *gozkClient) lock(p string) *zk.Lock {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.locks[p]
	if !ok {
		l = zk.NewLock(c.conn, p, zk.WorldACL(zk.PermAll))
		c.locks[p] = l
	}
	return l
}

func (c *gozkClient) acquire(ctx context.Context, p string) (string, error) {
	if _, ok := ctx.Deadline(); ok {
		return "", errNotApplicable
	}
	if err := c.lock(p).Lock(); err != nil {
		return "", err
	}
	return "", nil
}

func (c *gozkClient) release(p string) error { return c.lock(p).Unlock() }

// limitClient "acquires" by creating an ephemeral sequential node and
// "releases" by deleting it: the requests of a lock with no lock logic,
// the most any recipe could do. Its holders overlap, which the exclusion
// check must find.
type limitClient struct {
	conn  *zk.Conn
	mu    sync.Mutex
	nodes map[string]string
	made  map[string]bool
}

func (c *limitClient) sessionID() int64 { return c.conn.SessionID() }
func (c *limitClient) close()           { c.conn.Close() }

func (c *limitClient) acquire(ctx context.Context, p string) (string, error) {
	c.mu.Lock()
	made := c.made[p]
	c.mu.Unlock()
	if !made {
		if err := makeParents(c.conn, p); err != nil {
			return "", err
		}
		c.mu.Lock()
		c.made[p] = true
		c.mu.Unlock()
	}
	n, err := c.conn.Create(p+"/lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.nodes[p] = n
	c.mu.Unlock()
	return path.Base(n), nil
}

func (c *limitClient) release(p string) error {
	c.mu.Lock()
	n := c.nodes[p]
	c.mu.Unlock()
	return c.conn.Delete(n, -1)
}

func makeParents(conn *zk.Conn, p string) error {
	cur := ""
	for _, part := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		cur += "/" + part
		if _, err := conn.Create(cur, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", cur, err)
		}
	}
	return nil
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}

// dialZK connects a go-zookeeper client and waits for its session.
func dialZK(ctx context.Context, servers []string, timeout time.Duration) (*zk.Conn, error) {
	has := make(chan struct{}, 1)
	conn, _, err := zk.Connect(servers, timeout, zk.WithLogger(nopLogger{}), zk.WithEventCallback(func(ev zk.Event) {
		if ev.Type == zk.EventSession && ev.State == zk.StateHasSession {
			select {
			case has <- struct{}{}:
			default:
			}
		}
	}))
	if err != nil {
		return nil, err
	}
	select {
	case <-has:
		return conn, nil
	case <-ctx.Done():
		conn.Close()
		return nil, fmt.Errorf("bench: connect %v: %w", servers, ctx.Err())
	}
}

// startContender connects n clients of the named kind.
func startContender(ctx context.Context, name string, servers []string, n int, timeout time.Duration) (contender, error) {
	switch name {
	case "curator", "kazoo":
		kind, err := peers.ParseKind(name)
		if err != nil {
			return nil, err
		}
		p, err := peers.Start(ctx, kind, peers.Options{Servers: servers, Sessions: n, SessionTimeout: timeout})
		if err != nil {
			return nil, err
		}
		return &driverContender{name: name, p: p}, nil
	}
	g := &goContender{name: name}
	type res struct {
		i   int
		c   goClient
		err error
	}
	out := make(chan res, n)
	for i := range n {
		go func() {
			switch name {
			case "zklock", "zklock-rejoin":
				s, err := lockops.Connect(ctx, servers, lockops.WithSessionTimeout(timeout))
				if err != nil {
					out <- res{i, nil, err}
					return
				}
				c := &zklockClient{s: s, locks: map[string]*lockops.Lock{}}
				if name == "zklock-rejoin" {
					c.rel = &releaseMark{}
				}
				out <- res{i, c, nil}
			default:
				conn, err := dialZK(ctx, servers, timeout)
				if err != nil {
					out <- res{i, nil, err}
					return
				}
				if name == "gozk" {
					out <- res{i, &gozkClient{conn: conn, locks: map[string]*zk.Lock{}}, nil}
				} else {
					out <- res{i, &limitClient{conn: conn, nodes: map[string]string{}, made: map[string]bool{}}, nil}
				}
			}
		}()
	}
	g.clients = make([]goClient, n)
	var errs []error
	for range n {
		r := <-out
		g.clients[r.i] = r.c
		errs = append(errs, r.err)
	}
	if err := errors.Join(errs...); err != nil {
		for _, c := range g.clients {
			if c != nil {
				c.close()
			}
		}
		return nil, err
	}
	if name == "zklock-rejoin" {
		return &rejoinContender{g}, nil
	}
	return g, nil
}
