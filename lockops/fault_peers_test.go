package lockops

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/peers"
)

// peerGroup is one driver of real Curator or Kazoo clients contending on
// one lock in the fault suite, each client in its own session behind its
// own links: the loop clients cycle for the whole test, and one more
// client (the cutter) takes the lock on demand to be cut off while it
// holds.
type peerGroup struct {
	kind    peers.Kind
	lock    string
	p       *peers.Proc
	links   []links // by client
	loopers []int
	cutter  int
	cycles  []atomic.Int64 // held cycles, by client

	done    chan struct{} // the loop returned
	mu      sync.Mutex
	loop    []peers.Cycle
	loopErr error
	cutIvs  []peers.Interval
}

// peerHold is how long a loop client holds: as long as a lockops
// contender, so that the two kinds share the lock evenly.
const peerHold = 15 * time.Millisecond

func startPeerGroup(t *testing.T, c *sandbox.Cluster, kind peers.Kind, lock string, loopers int) *peerGroup {
	t.Helper()
	g := &peerGroup{kind: kind, lock: lock, cutter: loopers, cycles: make([]atomic.Int64, loopers+1), done: make(chan struct{})}
	var servers [][]string
	for i := range loopers + 1 {
		ls := newLinks(t, c)
		g.links = append(g.links, ls)
		servers = append(servers, ls.addrs())
		if i < loopers {
			g.loopers = append(g.loopers, i)
		}
	}
	g.p = peers.StartT(t, kind, peers.Options{ClientServers: servers, SessionTimeout: faultTimeout})
	return g
}

// run cycles the loop clients until ctx ends. One request in ten gives
// up after a random wait under 50 ms (a client with a deadline): a
// cancelled acquire under faults must not leave a node either.
func (g *peerGroup) run(ctx context.Context) {
	defer close(g.done)
	cycles, err := g.p.Loop(ctx, peers.LoopSpec{
		// Duration only bounds the loop: ctx ends it.
		Path: g.lock, Kind: peers.Mutex, Clients: g.loopers, Hold: peerHold, Duration: time.Hour,
		GiveUpPercent: 10, GiveUpWithin: 50 * time.Millisecond,
		OnCycle: func(c peers.Cycle) {
			if c.Held {
				g.cycles[c.Client].Add(1)
			}
		},
	})
	g.mu.Lock()
	g.loop, g.loopErr = cycles, err
	g.mu.Unlock()
}

// peerClient is one loop client, as a contender to follow.
type peerClient struct {
	g *peerGroup
	i int
}

func (pc peerClient) label() string     { return fmt.Sprintf("%s/%d", pc.g.kind, pc.i) }
func (pc peerClient) cycleCount() int64 { return pc.g.cycles[pc.i].Load() }
func (pc peerClient) status() string {
	var last []string
	for _, e := range pc.g.p.Events() {
		if e.Client == pc.i && e.Type == peers.EventState {
			last = append(last, e.Time.Format("15:04:05.000")+" "+string(e.State))
		}
	}
	pc.g.mu.Lock()
	loopErr := pc.g.loopErr
	pc.g.mu.Unlock()
	return fmt.Sprintf("session 0x%x, states %v, loop error %v", pc.g.p.Session(pc.i), last[max(len(last)-4, 0):], loopErr)
}

func (g *peerGroup) contenders() []contender {
	var out []contender
	for _, i := range g.loopers {
		out = append(out, peerClient{g, i})
	}
	return out
}

// newSessionDuring reports whether client announced a new session between
// from and to (to zero: any time after from).
func newSessionDuring(evs []peers.PeerEvent, client int, from, to time.Time) bool {
	for _, e := range evs {
		if e.Client == client && e.Type == peers.EventSession && e.Time.After(from) && (to.IsZero() || e.Time.Before(to)) {
			return true
		}
	}
	return false
}

// notice is the first time at or after from that client was told its
// connection was suspended or its session lost; zero if never.
func notice(evs []peers.PeerEvent, client int, from time.Time) time.Time {
	for _, e := range evs {
		if e.Client == client && e.Type == peers.EventState && (e.State == peers.StateSuspended || e.State == peers.StateLost) && !e.Time.Before(from) {
			return e.Time
		}
	}
	return time.Time{}
}

// intervals are the group's critical sections for the overlap detector.
// A hold whose session lived on through it (no loss told, no new
// session) counts whole, from acquire to release, suspended or not: the
// servers kept its node, so nobody else may have entered. A hold whose
// session died counts until the client was first told its connection was
// suspended: stock Curator and Kazoo learn of the loss itself only at the
// session timeout or after reconnecting, and Curator's advice is to stop
// trusting a lock at SUSPENDED.
func (g *peerGroup) intervals() ([]peers.Interval, []peers.Cycle, error) {
	<-g.done
	g.mu.Lock()
	defer g.mu.Unlock()
	evs := g.p.Events()
	var out []peers.Interval
	for _, c := range g.loop {
		if !c.Held {
			continue
		}
		who := fmt.Sprintf("%s/%d %s", g.kind, c.Client, c.Node)
		iv := c.Interval(who)
		if c.Lost || newSessionDuring(evs, c.Client, c.Requested, c.ReleaseReturned) {
			iv = c.IntervalUntilNotice(who)
		}
		out = append(out, iv)
	}
	return append(out, g.cutIvs...), g.loop, g.loopErr
}

// peerCut is what a cut peer holder lived through.
type peerCut struct {
	who       string
	node      string
	at        time.Time // the cut
	survived  bool      // same session, not told it was lost, node still its own
	noticeAt  time.Time // first told SUSPENDED or LOST
	lostAt    time.Time // told its lock was lost (zero if not)
	ownerErr  error
	reconnect time.Duration
}

// cutWhileHolding has the cutter take the lock (queueing with the loop
// clients) and cuts its links while it holds: restored after 300 ms for
// a short cut, kept cut for one and a half session timeouts for a long
// one (the servers expire the session meanwhile and let another
// contender in). check is a session for reading the lock node's owner.
func (g *peerGroup) cutWhileHolding(ctx context.Context, check *Session, short bool) (peerCut, error) {
	cl := g.cutter
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	h, err := g.p.Acquire(actx, cl, g.lock, peers.Mutex)
	cancel()
	if err != nil {
		return peerCut{}, fmt.Errorf("%s/%d acquire: %w", g.kind, cl, err)
	}
	sess := g.p.Session(cl)
	out := peerCut{who: fmt.Sprintf("%s/%d", g.kind, cl), node: h.Node(), at: time.Now()}
	g.links[cl].cut()
	if short {
		faultPause(ctx, 300*time.Millisecond)
		g.links[cl].restore()
		wctx, cancel := context.WithTimeout(ctx, 3*faultTimeout)
		ev, err := g.p.WaitEvent(wctx, func(e peers.PeerEvent) bool {
			return e.Client == cl && e.Type == peers.EventState && e.State == peers.StateReconnected && e.Time.After(out.at)
		})
		cancel()
		if err == nil {
			out.reconnect = ev.Time.Sub(out.at)
		}
	} else {
		faultPause(ctx, faultTimeout+faultTimeout/2)
		g.links[cl].restore()
		// Curator tells LOST by its own timer (often before the restore),
		// Kazoo once it has reconnected and heard its session expired.
		select {
		case <-h.Lost():
		case <-time.After(3 * faultTimeout):
		case <-ctx.Done():
		}
	}
	lost := false
	select {
	case <-h.Lost():
		lost = true
	default:
	}
	out.survived = !lost && g.p.Session(cl) == sess
	if out.survived {
		_, st, err := check.conn.Get(g.lock + "/" + out.node)
		switch {
		case err != nil:
			out.ownerErr, out.survived = err, false
		case st.EphemeralOwner != sess:
			out.ownerErr, out.survived = fmt.Errorf("node owned by 0x%x, client's session 0x%x", st.EphemeralOwner, sess), false
		}
	}
	rctx, rcancel := context.WithTimeout(ctx, 2*faultTimeout)
	rerr := h.Release(rctx) // a lost lock may fail to release: its node is gone anyway
	rcancel()
	times := h.Times()
	out.noticeAt = notice(g.p.Events(), cl, times.Acquired)
	out.lostAt = times.Lost
	iv := peers.Interval{Who: out.who + " " + out.node + " (cut)", Start: times.Acquired, End: times.ReleaseCalled}
	if !out.survived && !out.noticeAt.IsZero() {
		iv.End = out.noticeAt
	}
	g.mu.Lock()
	g.cutIvs = append(g.cutIvs, iv)
	g.mu.Unlock()
	if out.survived && rerr != nil {
		return out, fmt.Errorf("%s: release after a short cut: %w", out.who, rerr)
	}
	return out, nil
}
