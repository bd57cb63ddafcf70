package lockops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/peers"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// The fault suite runs on its own 3-member ensemble (the package's other
// integration tests share a standalone server, where a member cannot be
// killed without killing everything). Each fault test starts one.

const (
	// faultTimeout is the session timeout of the fault suite's clients.
	// go-zookeeper waits a second between rounds of failed dials and
	// pings every third of the timeout, so a 300 ms cut costs up to ~1.5 s
	// of silence: 4 s keeps that a suspension (the lease stops believing
	// at nine tenths, 3.6 s) on a loaded 2-core machine, and a fault that
	// outlasts it costs seconds, not a minute.
	faultTimeout = 4 * time.Second
	// faultTick allows that timeout (sessions are bounded below by two
	// ticks) and makes the servers expire sessions within a tick of it.
	faultTick = 100 * time.Millisecond
)

// faultEnsemble starts a 3-member ensemble for one test, closed at its end.
func faultEnsemble(t *testing.T) *sandbox.Cluster {
	t.Helper()
	return sandboxtest.Start(t, sandbox.Options{Members: 3, TickTime: faultTick})
}

// faultPause lets a fault last d (a member down, a link cut): it is the
// length of the fault, not a wait for something to happen.
func faultPause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// links is one client's own way to every member, a proxy per member, so
// that a test cuts that client alone, as a partition of its host would,
// while the servers and every other client carry on.
type links []*sandbox.Proxy

func newLinks(t *testing.T, c *sandbox.Cluster) links {
	t.Helper()
	var ls links
	for _, addr := range c.Servers() {
		p, err := sandbox.NewProxy(addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		ls = append(ls, p)
	}
	return ls
}

func (ls links) addrs() []string {
	out := make([]string, len(ls))
	for i, p := range ls {
		out[i] = p.Addr()
	}
	return out
}

func (ls links) cut() {
	for _, p := range ls {
		p.Cut()
	}
}

func (ls links) restore() {
	for _, p := range ls {
		p.Restore()
	}
}

// critSpan is one critical section as its contender lived it: from the
// return of Acquire to the start of Release, or to the moment the
// contender learned the lock was lost (its Done closed), whichever came
// first. Times are wall-clock (monotonic reading stripped) so that spans
// of other processes compare with them.
type critSpan struct {
	who, node   string
	start, end  time.Time
	lost        bool   // the hold ended by a loss, not a release
	why         error  // Err() of a lost hold
	gen, endGen uint64 // session generation at the start and at the end
}

// interval is the span for the overlap detector (peers.Overlaps, the one
// exclusion check the suite and the benchmarks share).
func (s critSpan) interval() peers.Interval {
	return peers.Interval{Who: s.who + " " + s.node, Start: s.start, End: s.end}
}

// spanLog collects critical sections from many goroutines.
type spanLog struct {
	mu    sync.Mutex
	spans map[string][]critSpan // by lock parent
}

func (l *spanLog) add(lock string, s critSpan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spans == nil {
		l.spans = map[string][]critSpan{}
	}
	l.spans[lock] = append(l.spans[lock], s)
}

func (l *spanLog) of(lock string) []critSpan {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.spans[lock])
}

// cutPlan asks a contender to cut its own links while it holds, so that
// the cut is certain to hit a holder: restoreAfter > 0 restores them
// after that long (a short partition), 0 only once the hold has ended (a
// partition past the session timeout).
type cutPlan struct {
	restoreAfter time.Duration
	result       chan cutOutcome
}

// cutOutcome is what a cut holder lived through.
type cutOutcome struct {
	who       string
	at        time.Time
	span      critSpan
	stillHeld bool // after the link came back: state holding, node ours
	ownerErr  error
}

// faultContender is one lockops client cycling on one lock in its own
// session, reached through its own links.
type faultContender struct {
	name  string
	lock  string
	links links
	s     *Session
	l     *Lock
	hold  time.Duration
	cuts  chan cutPlan

	cycles atomic.Int64
	losses atomic.Int64
	lostAt atomic.Int64 // unix ns of the last ordering.LockLost progress report

	mu   sync.Mutex
	errs []string // Acquire or Release errors, for the log
}

func newFaultContender(t *testing.T, ctx context.Context, c *sandbox.Cluster, name, lock string, opts ...Option) *faultContender {
	t.Helper()
	fc := &faultContender{name: name, lock: lock, links: newLinks(t, c), hold: 15 * time.Millisecond, cuts: make(chan cutPlan, 1)}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := Connect(cctx, fc.links.addrs(), WithSessionTimeout(faultTimeout))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(s.Close)
	fc.s = s
	opts = append(opts, WithNote(name), WithProgress(func(p ordering.Progress) {
		if p.State == ordering.LockLost {
			fc.lostAt.Store(p.At.UnixNano())
		}
	}))
	fc.l = NewLock(s, lock, opts...)
	return fc
}

func (fc *faultContender) noteErr(what string, err error) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if len(fc.errs) < 20 {
		fc.errs = append(fc.errs, fmt.Sprintf("%s %s: %v", time.Now().Format("15:04:05.000"), what, err))
	}
}

func (fc *faultContender) errors() []string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return slices.Clone(fc.errs)
}

// run cycles until ctx ends: acquire, hold (cut its links if asked),
// release. Every hold is recorded in log.
func (fc *faultContender) run(ctx context.Context, log *spanLog) {
	for ctx.Err() == nil {
		actx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := fc.l.Acquire(actx)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				fc.noteErr("acquire", err)
				faultPause(ctx, 50*time.Millisecond)
			}
			continue
		}
		span := critSpan{who: fc.name, node: fc.l.Node(), start: time.Now().Round(0), gen: fc.s.Generation()}
		var plan *cutPlan
		select {
		case p := <-fc.cuts:
			plan = &p
		default:
		}
		var out cutOutcome
		if plan == nil {
			fc.holdFor(ctx, &span, fc.hold)
		} else {
			out = fc.holdCut(ctx, &span, *plan)
		}
		span.endGen = fc.s.Generation()
		fc.cycles.Add(1)
		log.add(fc.lock, span)
		if plan != nil {
			out.span = span
			plan.result <- out
		}
		// Release goes on after ctx ends: the test wants its nodes gone.
		rctx, rcancel := context.WithTimeout(context.Background(), 2*faultTimeout)
		if err := fc.l.Release(rctx); err != nil {
			fc.noteErr("release", err)
		}
		rcancel()
	}
}

// holdFor holds for d or until the lock is lost, ending span then.
func (fc *faultContender) holdFor(ctx context.Context, span *critSpan, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-fc.l.Done():
		fc.endLost(span)
	case <-t.C:
		span.end = time.Now().Round(0)
	case <-ctx.Done():
		span.end = time.Now().Round(0)
	}
}

// endLost ends a span at the loss: when the lock core reported it (the
// "lost" progress event, sent as Done closes), or now if that came later.
func (fc *faultContender) endLost(span *critSpan) {
	now := time.Now().Round(0)
	span.end, span.lost, span.why = now, true, fc.l.Err()
	if ns := fc.lostAt.Load(); ns != 0 {
		if at := time.Unix(0, ns); at.After(span.start) && at.Before(now) {
			span.end = at
		}
	}
	fc.losses.Add(1)
}

// holdCut cuts the contender's links while it holds, and holds on: until
// the lock is lost, or, for a short cut, until the link is back and the
// lock core says holding again. It then checks that a hold that was not
// lost really is still ours.
func (fc *faultContender) holdCut(ctx context.Context, span *critSpan, plan cutPlan) cutOutcome {
	out := cutOutcome{who: fc.name, at: time.Now()}
	fc.links.cut()
	if plan.restoreAfter > 0 {
		tr := time.AfterFunc(plan.restoreAfter, fc.links.restore)
		defer tr.Stop()
	}
	// A long cut holds until the loss; a short one until holding again
	// after the restore. Either way three timeouts is far past the point
	// where the lock core must have decided.
	deadline := time.NewTimer(3 * faultTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	restoreAt := out.at.Add(plan.restoreAfter)
	for span.end.IsZero() {
		select {
		case <-fc.l.Done():
			fc.endLost(span)
		case <-deadline.C:
			span.end = time.Now().Round(0)
		case <-ctx.Done():
			span.end = time.Now().Round(0)
		case <-tick.C:
			if plan.restoreAfter > 0 && time.Now().After(restoreAt) && fc.l.State() == ordering.LockHolding && fc.s.State() == SessionConnected {
				span.end = time.Now().Round(0)
			}
		}
	}
	if plan.restoreAfter == 0 {
		fc.links.restore()
	}
	if !span.lost {
		// Still ours on the servers: the node exists, owned by this
		// session (an expired session's node would be gone).
		_, st, err := fc.s.conn.Get(fc.s.Abs(fc.lock) + "/" + span.node)
		switch {
		case err != nil:
			out.ownerErr = err
		case st.EphemeralOwner != fc.s.ID():
			out.ownerErr = fmt.Errorf("node owned by 0x%x, session is 0x%x", st.EphemeralOwner, fc.s.ID())
		default:
			out.stillHeld = fc.l.State() == ordering.LockHolding
		}
	}
	return out
}

// requestCut asks fc to cut its links during its next hold and waits for
// the outcome.
func (fc *faultContender) requestCut(ctx context.Context, restoreAfter time.Duration) (cutOutcome, error) {
	plan := cutPlan{restoreAfter: restoreAfter, result: make(chan cutOutcome, 1)}
	select {
	case fc.cuts <- plan:
	case <-ctx.Done():
		return cutOutcome{}, ctx.Err()
	}
	select {
	case out := <-plan.result:
		return out, nil
	case <-ctx.Done():
		return cutOutcome{}, fmt.Errorf("%s never held again to be cut: %w", fc.name, ctx.Err())
	}
}

// contender is anything that cycles on a lock and whose progress the
// suite follows: a lockops client here, a Curator or Kazoo client of a
// peer driver.
type contender interface {
	label() string
	cycleCount() int64
	status() string // for a failure message
}

func (fc *faultContender) label() string     { return fc.name }
func (fc *faultContender) cycleCount() int64 { return fc.cycles.Load() }
func (fc *faultContender) status() string {
	return fmt.Sprintf("state %s, session %s, errors %q", fc.l.State(), fc.s.State(), fc.errors())
}

// waitCycles waits until every contender has done at least one more cycle
// than in before (bounded by d); it names the ones that did not.
func waitCycles(ctx context.Context, cs []contender, before []int64, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var stuck []string
		for i, c := range cs {
			if c.cycleCount() <= before[i] {
				stuck = append(stuck, c.label()+" ("+c.status()+")")
			}
		}
		if len(stuck) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no cycle within %v: %s", d, strings.Join(stuck, "; "))
		case <-tick.C:
		}
	}
}

func cyclesOf(cs []contender) []int64 {
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.cycleCount()
	}
	return out
}

// member is the index of the member the contender's session is linked to
// now (through its proxy in front of it), -1 when none.
func (fc *faultContender) member() int {
	srv := fc.s.Server()
	for i, p := range fc.links {
		if p.Addr() == srv {
			return i
		}
	}
	return -1
}

// busiest is the running member most of the contenders are linked to, and
// how many are; among equals, a follower, then the lower index.
func busiest(ctx context.Context, c *sandbox.Cluster, cs []*faultContender) (int, int) {
	leader, _ := c.Leader(ctx)
	count := make([]int, len(c.Members()))
	for _, fc := range cs {
		if i := fc.member(); i >= 0 {
			count[i]++
		}
	}
	best := -1
	for i, m := range c.Members() {
		if !m.Running() || m.Paused() {
			continue
		}
		if best < 0 || count[i] > count[best] || count[i] == count[best] && best == leader {
			best = i
		}
	}
	if best < 0 {
		return -1, 0
	}
	return best, count[best]
}

// memberOf is the index of the member at addr (a member's own address or
// one of a contender's proxies in front of it), -1 when none.
func memberOf(c *sandbox.Cluster, addr string) int {
	for i, m := range c.Members() {
		if m.Addr() == addr {
			return i
		}
	}
	return -1
}

// follower is the index of a running member that does not lead.
func follower(ctx context.Context, c *sandbox.Cluster) (int, error) {
	leader, err := c.Leader(ctx)
	if err != nil {
		return -1, err
	}
	for i, m := range c.Members() {
		if i != leader && m.Running() && !m.Paused() {
			return i, nil
		}
	}
	return -1, errors.New("no running follower")
}
