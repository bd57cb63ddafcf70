package peers

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DefaultGiveUpWithin bounds the random timeout of a loop's give-up
// requests when LoopSpec.GiveUpWithin is zero: a few handoffs' worth, so
// that some requests give up while queued and some get the lock in time.
const DefaultGiveUpWithin = 10 * time.Millisecond

// stopWait bounds how long a cancelled Loop waits for its clients to
// finish their cycle.
const stopWait = 30 * time.Second

// LoopSpec is a contention loop: each of its clients, on its own driver
// thread with one lock object reused as an application would, requests
// the lock, holds it for Hold, releases it, and starts again, until
// Duration has passed or it has made Cycles requests.
type LoopSpec struct {
	Path string
	Kind LockKind // Mutex when empty
	// Clients take part (every client of the Proc when nil).
	Clients []int
	// Duration: no request starts after it (0: no bound). A request under
	// way at the end completes.
	Duration time.Duration
	// Cycles per client (0: no bound). At least one of Duration and
	// Cycles must be set.
	Cycles int
	// Hold is the time spent holding, in a sleep (0: release at once).
	Hold time.Duration
	// GiveUpPercent of requests (chosen at random) are made with a random
	// timeout in [0, GiveUpWithin] and given up when it passes, as a
	// client with a deadline would: Curator's acquire(time, unit), Kazoo's
	// acquire(timeout=...). The others wait as long as it takes.
	GiveUpPercent int
	GiveUpWithin  time.Duration // DefaultGiveUpWithin when zero
	// OnCycle, when set, sees each cycle as its line arrives, on the
	// reader's goroutine (the Proc's other lines wait meanwhile: be quick).
	OnCycle func(Cycle)
	// Discard keeps no cycles for Loop to return: Loop keeps every cycle
	// (about 200 bytes each), which a long run streaming to OnCycle need
	// not pay for.
	Discard bool
}

// Cycle is one request of a loop, as the client lived it, by the driver's
// clock (see the package comment on clocks).
type Cycle struct {
	Client  int
	Session int64  // the client's session when it made the request
	Node    string // the lock node; empty unless Held
	// Held: acquire returned holding. GaveUp: a timed request whose timeout
	// passed first (nothing held). Neither: acquire failed (Err).
	Held, GaveUp bool
	Requested    time.Time // acquire called
	Acquired     time.Time // acquire returned (holding, giving up or failing)
	// ReleaseCalled and ReleaseReturned bracket the release (zero unless Held).
	ReleaseCalled, ReleaseReturned time.Time
	// Notice is the first time during the hold that the client was told
	// its connection was suspended or its session lost (zero if never): a
	// holder that follows Curator's advice stops trusting its lock there.
	Notice time.Time
	// Lost: the client was told during the hold that its session was lost.
	Lost bool
	// Err is the client's error text ("acquire: ..." or "release: ..."),
	// empty when none.
	Err string
}

// Interval is the cycle's critical section as the client lived it: from
// the return of acquire to the call of release.
func (c Cycle) Interval(who string) Interval {
	return Interval{Who: who, Start: c.Acquired, End: c.ReleaseCalled}
}

// IntervalUntilNotice is the critical section as a careful client trusts
// it: cut at Notice when the client was told during the hold that its
// connection was suspended or its session lost. A fault test checks that
// these never overlap for clients whose session died.
func (c Cycle) IntervalUntilNotice(who string) Interval {
	iv := c.Interval(who)
	if !c.Notice.IsZero() && c.Notice.Before(iv.End) {
		iv.End = c.Notice
	}
	return iv
}

// Intervals are the critical sections of the held cycles, each named
// who/client (for instance "curator/2").
func Intervals(who string, cycles []Cycle) []Interval {
	var out []Interval
	for _, c := range cycles {
		if c.Held {
			out = append(out, c.Interval(who+"/"+strconv.Itoa(c.Client)))
		}
	}
	return out
}

type loopRun struct {
	cycles  []Cycle
	onCycle func(Cycle)
	discard bool
	done    chan struct{}
	err     error // set before done closes when the driver exited
}

// runLoop checks spec, sends the driver its loop and collects the cycles
// until the loop ends or ctx does (Proc.Loop).
func runLoop(ctx context.Context, p *Proc, spec LoopSpec) ([]Cycle, error) {
	if spec.Kind == "" {
		spec.Kind = Mutex
	}
	if err := checkPath(spec.Path); err != nil {
		return nil, err
	}
	if err := checkLockKind(spec.Kind); err != nil {
		return nil, err
	}
	if _, ok := spec.Kind.SemaphoreLimit(); ok {
		return nil, fmt.Errorf("%w: loops take locks, not semaphore leases", ErrBadArgument)
	}
	if spec.Duration <= 0 && spec.Cycles <= 0 {
		return nil, fmt.Errorf("%w: loop without Duration or Cycles", ErrBadArgument)
	}
	if spec.GiveUpPercent < 0 || spec.GiveUpPercent > 100 || spec.Hold < 0 || spec.GiveUpWithin < 0 {
		return nil, fmt.Errorf("%w: loop %+v", ErrBadArgument, spec)
	}
	if spec.GiveUpWithin == 0 {
		spec.GiveUpWithin = DefaultGiveUpWithin
	}
	clients := "all"
	if spec.Clients != nil {
		if len(spec.Clients) == 0 {
			return nil, fmt.Errorf("%w: loop with no clients", ErrBadArgument)
		}
		var cs []string
		for _, c := range spec.Clients {
			if err := p.checkClient(c); err != nil {
				return nil, err
			}
			cs = append(cs, strconv.Itoa(c))
		}
		clients = strings.Join(cs, ",")
	}
	id := "l" + strconv.FormatUint(p.nextID.Add(1), 10)
	l := &loopRun{onCycle: spec.OnCycle, discard: spec.Discard, done: make(chan struct{})}
	p.mu.Lock()
	select {
	case <-p.exited:
		p.mu.Unlock()
		return nil, p.exitErr()
	default:
	}
	p.loops[id] = l
	p.mu.Unlock()
	cmd := fmt.Sprintf("loop %s %s %s %s %d %d %d %d %d", id, spec.Path, spec.Kind, clients,
		spec.Duration.Microseconds(), spec.Cycles, spec.Hold.Microseconds(), spec.GiveUpPercent, spec.GiveUpWithin.Microseconds())
	if err := p.send(cmd); err != nil {
		p.mu.Lock()
		delete(p.loops, id)
		p.mu.Unlock()
		return nil, err
	}
	result := func() []Cycle {
		p.mu.Lock()
		defer p.mu.Unlock()
		return append([]Cycle(nil), l.cycles...)
	}
	select {
	case <-l.done:
		return result(), l.err
	case <-ctx.Done():
	}
	_ = p.send("stop " + id)
	select {
	case <-l.done:
	case <-time.After(stopWait):
	}
	return result(), fmt.Errorf("peers: %s loop on %s: %w", p.kind, spec.Path, ctx.Err())
}

// parseCycle reads "L C HELD GAVEUP NODE TREQ TACQ TCALL TRET TNOTICE LOST SESSION TEXT".
func parseCycle(rest string) (Cycle, string, error) {
	f := strings.SplitN(rest, " ", 13)
	if len(f) != 13 {
		return Cycle{}, "", fmt.Errorf("cycle line with %d fields", len(f))
	}
	var (
		c    Cycle
		err  error
		nums [5]int64
	)
	if c.Client, err = strconv.Atoi(f[1]); err != nil {
		return Cycle{}, "", err
	}
	c.Held, c.GaveUp = f[2] == "1", f[3] == "1"
	c.Node = dash(f[4])
	for i := range nums {
		if nums[i], err = strconv.ParseInt(f[5+i], 10, 64); err != nil {
			return Cycle{}, "", err
		}
	}
	c.Requested, c.Acquired = unixNano(nums[0]), unixNano(nums[1])
	c.ReleaseCalled, c.ReleaseReturned = unixNano(nums[2]), unixNano(nums[3])
	c.Notice = unixNano(nums[4])
	c.Lost = f[10] == "1"
	s, err := strconv.ParseUint(f[11], 16, 64)
	if err != nil {
		return Cycle{}, "", err
	}
	c.Session = int64(s)
	c.Err = dash(f[12])
	return c, f[0], nil
}
