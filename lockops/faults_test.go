package lockops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/peers"
)

// TestMutualExclusionUnderFaults: real Curator clients and lockops
// contenders cycle on one lock, real Kazoo clients and lockops contenders
// (Kazoo style) on another, each client in its own session behind its own
// proxies, while the ensemble loses its leader, then a follower (each
// restarted), has its busiest member paused past the session timeout, and
// holders of each kind are cut off: briefly (the session survives) and
// for longer than the session timeout (the session dies). The overlap
// detector over every critical section of both locks finds none: a
// holder that was cut either kept its lock or learned it was lost before
// anyone else entered. Every contender still makes progress at the end,
// and no node is left behind.
//
// The faults are phases, one after the other on the same running
// contenders: a phase that fails ends the test.
func TestMutualExclusionUnderFaults(t *testing.T) {
	for _, k := range []peers.Kind{peers.Curator, peers.Kazoo} {
		if err := peers.Available(k); err != nil {
			t.Fatalf("the fault suite needs real %s clients: %v", k, err)
		}
	}
	f := startFaultScenario(t)
	defer f.stopAll(t)
	f.progress(t, "warm-up")
	f.begin = time.Now()

	for _, role := range []string{"leader", "follower"} {
		if !t.Run("kill the "+role, func(t *testing.T) { f.killMember(t, role) }) {
			return
		}
	}
	if !t.Run("pause the busiest member", f.pauseBusiest) {
		return
	}
	// Checks the peers' holds through the cuts, and the locks at the end.
	f.check = checkSession(t, f.c.Servers())
	var cuts []*cutCase
	for _, short := range []bool{true, false} {
		name := "cut holders past the session timeout"
		if short {
			name = "cut holders briefly"
		}
		if !t.Run(name, func(t *testing.T) { cuts = append(cuts, f.cutHolders(t, short)...) }) {
			return
		}
	}
	f.stopAll(t)
	f.logf(t, "stopped")

	t.Run("every cut holder kept its lock or was told", func(t *testing.T) { f.checkCuts(t, cuts) })
	t.Run("no overlap", f.checkExclusion)
	t.Run("nothing left behind", f.checkNothingLeft)
}

// faultScenario is what TestMutualExclusionUnderFaults runs on: an
// ensemble and two locks, each with lockops contenders and a group of
// real peer clients cycling on it, and the log of their critical
// sections.
type faultScenario struct {
	c      *sandbox.Cluster
	ctx    context.Context
	locks  []faultLock
	ours   []*faultContender   // every lockops contender
	byLock [][]*faultContender // the lockops contenders of each lock
	groups []*peerGroup        // the peer clients of each lock
	all    []contender         // all of them, for progress
	log    spanLog
	// check is a plain session for checks, made before the cuts.
	check *Session
	begin time.Time // after the warm-up: the origin of logf's times

	stop    context.CancelFunc // stops the contenders
	wg      sync.WaitGroup
	stopped bool
}

// faultLock is one lock of the scenario: the peer kind on it, and the
// options that make lockops join in that kind's style.
type faultLock struct {
	path string
	peer peers.Kind
	opts []Option
}

// startFaultScenario starts the ensemble and every contender on it.
func startFaultScenario(t *testing.T) *faultScenario {
	f := &faultScenario{c: faultEnsemble(t), ctx: tctx(t, 200*time.Second)}
	stamp := time.Now().UnixNano()
	f.locks = []faultLock{
		{fmt.Sprintf("/faults/curator-%d", stamp), peers.Curator, nil},
		{fmt.Sprintf("/faults/kazoo-%d", stamp), peers.Kazoo, []Option{WithStyle(ordering.StyleKazoo)}},
	}
	for li, lk := range f.locks {
		var cs []*faultContender
		for i := range 3 {
			fc := newFaultContender(t, f.ctx, f.c, fmt.Sprintf("zklock-%c%d", 'a'+li, i+1), lk.path, lk.opts...)
			cs = append(cs, fc)
			f.all = append(f.all, fc)
		}
		f.byLock = append(f.byLock, cs)
		f.ours = append(f.ours, cs...)
		g := startPeerGroup(t, f.c, lk.peer, lk.path, 3)
		f.groups = append(f.groups, g)
		f.all = append(f.all, g.contenders()...)
	}
	runCtx, stop := context.WithCancel(f.ctx)
	f.stop = stop
	for _, fc := range f.ours {
		f.wg.Go(func() { fc.run(runCtx, &f.log) })
	}
	for _, g := range f.groups {
		f.wg.Go(func() { g.run(runCtx) })
	}
	return f
}

// stopAll stops every contender, once.
func (f *faultScenario) stopAll(t *testing.T) {
	if f.stopped {
		return
	}
	f.stopped = true
	f.stop()
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(45 * time.Second):
		t.Errorf("contenders did not stop within 45s")
	}
}

// progress fails the test unless every contender completes a cycle.
func (f *faultScenario) progress(t *testing.T, what string) {
	t.Helper()
	if err := waitCycles(f.ctx, f.all, cyclesOf(f.all), 45*time.Second); err != nil {
		lctx, cancel := context.WithTimeout(f.ctx, 2*time.Second)
		defer cancel()
		leader, lerr := f.c.Leader(lctx)
		t.Fatalf("%s: %v\n(ensemble: leader index %d, %v)", what, err, leader, lerr)
	}
}

// logf logs with the time since the warm-up ended.
func (f *faultScenario) logf(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Logf("+%5.1fs "+format, append([]any{time.Since(f.begin).Seconds()}, args...)...)
}

// killMember kills a member (the leader, or the follower most lockops
// contenders are linked to): the others carry on without it; then it
// comes back.
func (f *faultScenario) killMember(t *testing.T, role string) {
	ctx, c := f.ctx, f.c
	var victim, linked int
	var err error
	if role == "leader" {
		victim, err = c.Leader(ctx)
	} else {
		victim, err = follower(ctx, c)
		if b, _ := busiest(ctx, c, f.ours); b >= 0 && b != victim {
			if l, _ := c.Leader(ctx); l != b {
				victim = b
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range f.ours {
		if fc.member() == victim {
			linked++
		}
	}
	m := c.Members()[victim]
	f.logf(t, "kill the %s, member %d (%d lockops contenders linked to it)", role, m.ID(), linked)
	if err := m.Kill(); err != nil {
		t.Fatal(err)
	}
	f.progress(t, "with the "+role+" down")
	f.logf(t, "restart member %d", m.ID())
	if err := m.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	f.progress(t, "after the "+role+" came back")
}

// pauseBusiest pauses the member most lockops contenders are linked to
// past the session timeout: its clients' links go silent (a long GC
// pause, a hung host), and, if it led, the others elect a new leader;
// then it resumes.
func (f *faultScenario) pauseBusiest(t *testing.T) {
	ctx, c := f.ctx, f.c
	victim, linked := busiest(ctx, c, f.ours)
	if victim < 0 {
		t.Fatal("no member to pause")
	}
	m := c.Members()[victim]
	leader, _ := c.Leader(ctx)
	f.logf(t, "pause member %d (leader: %v, %d lockops contenders linked to it) for %v", m.ID(), leader == victim, linked, faultTimeout+time.Second)
	if err := m.Pause(); err != nil {
		t.Fatal(err)
	}
	faultPause(ctx, faultTimeout+time.Second)
	f.logf(t, "resume member %d", m.ID())
	if err := m.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	f.progress(t, "after the pause")
}

// cutCase is one holder cut off, a lockops contender (ours) or a peer
// (group), and what it lived through.
type cutCase struct {
	name  string
	short bool
	ours  *faultContender
	group *peerGroup
	out   cutOutcome
	pout  peerCut
	err   error
}

// cutHolders cuts off, on each lock, a lockops holder and a peer holder,
// all four at once: briefly (short) or past the session timeout. What
// each lived through is checked once the contenders have stopped
// (checkCuts).
func (f *faultScenario) cutHolders(t *testing.T, short bool) []*cutCase {
	var round []*cutCase
	for li := range f.locks {
		fc := f.byLock[li][0]
		if !short {
			fc = f.byLock[li][1]
		}
		g := f.groups[li]
		round = append(round, &cutCase{name: fc.name, short: short, ours: fc},
			&cutCase{name: fmt.Sprintf("%s/%d", g.kind, g.cutter), short: short, group: g})
	}
	var cwg sync.WaitGroup
	for _, cc := range round {
		f.logf(t, "cut %s while it holds (short: %v)", cc.name, short)
		cwg.Go(func() {
			if cc.ours != nil {
				restore := time.Duration(0)
				if short {
					restore = 300 * time.Millisecond
				}
				cc.out, cc.err = cc.ours.requestCut(f.ctx, restore)
			} else {
				cc.pout, cc.err = cc.group.cutWhileHolding(f.ctx, f.check, short)
			}
		})
	}
	cwg.Wait()
	f.progress(t, fmt.Sprintf("after the cuts (short: %v)", short))
	return round
}

// checkCuts: every cut holder either kept its lock in the same session or
// was told it lost it, and a cut past the session timeout always lost it.
func (f *faultScenario) checkCuts(t *testing.T, cuts []*cutCase) {
	for _, cc := range cuts {
		switch {
		case cc.err != nil:
			t.Errorf("cut of %s: %v", cc.name, cc.err)
		case cc.group != nil:
			f.checkPeerCut(t, cc)
		default:
			f.checkOurCut(t, cc)
		}
	}
}

func (f *faultScenario) checkPeerCut(t *testing.T, cc *cutCase) {
	p := cc.pout
	switch {
	case p.survived:
		f.logf(t, "%s (short: %v) kept %s through the cut (reconnected after %v)", cc.name, cc.short, p.node, p.reconnect.Round(time.Millisecond))
	case p.noticeAt.IsZero():
		t.Errorf("%s (short: %v) lost %s without being told (suspended or lost)", cc.name, cc.short, p.node)
	default:
		f.logf(t, "%s (short: %v) lost %s: told SUSPENDED %v after the cut, LOST at %v", cc.name, cc.short, p.node,
			p.noticeAt.Sub(p.at).Round(time.Millisecond), fmtSince(p.lostAt, p.at))
		if p.ownerErr != nil {
			f.logf(t, "  (%v)", p.ownerErr)
		}
	}
	if !cc.short && (p.survived || p.lostAt.IsZero()) {
		t.Errorf("%s: cut past the session timeout, yet never told its lock was lost (survived: %v)", cc.name, p.survived)
	}
}

func (f *faultScenario) checkOurCut(t *testing.T, cc *cutCase) {
	sp := cc.out.span
	cutFor := sp.end.Sub(cc.out.at).Round(time.Millisecond)
	switch {
	case sp.lost:
		f.logf(t, "%s (short: %v) learned it lost %s %v after the cut: %v", cc.name, cc.short, sp.node, cutFor, sp.why)
		if !errors.Is(sp.why, ErrLost) {
			t.Errorf("%s: lost hold with Err %v, want ErrLost", cc.name, sp.why)
		}
	case cc.out.ownerErr != nil || !cc.out.stillHeld:
		t.Errorf("%s: the hold was not reported lost, yet it is not held after the link came back (state %s): %v",
			cc.name, cc.ours.l.State(), cc.out.ownerErr)
	default:
		f.logf(t, "%s (short: %v) kept %s through the cut (session generation %d -> %d)", cc.name, cc.short, sp.node, sp.gen, sp.endGen)
		if sp.gen != sp.endGen {
			t.Errorf("%s kept its hold across a new session (generation %d -> %d)", cc.name, sp.gen, sp.endGen)
		}
	}
	if !cc.short && !sp.lost {
		t.Errorf("%s: cut past the session timeout but its hold was not lost", cc.name)
	}
}

// checkExclusion runs the overlap detector over every critical section
// of each lock, lockops' and the peers' together.
func (f *faultScenario) checkExclusion(t *testing.T) {
	for li, lk := range f.locks {
		var ivs []peers.Interval
		lost := 0
		for _, s := range f.log.of(lk.path) {
			ivs = append(ivs, s.interval())
			if s.lost {
				lost++
			}
		}
		ourN := len(ivs)
		pivs, cycles, err := f.groups[li].intervals()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("%s loop: %v", lk.peer, err)
		}
		ivs = append(ivs, pivs...)
		var peerLost, gaveUp, failed int
		for _, cy := range cycles {
			switch {
			case cy.Lost:
				peerLost++
			case cy.GaveUp:
				gaveUp++
			case cy.Err != "":
				failed++
			}
		}
		ov := peers.Overlaps(ivs)
		f.logf(t, "%s: %d critical sections (zklock %d, %d ended by a loss; %s %d, %d told lost, %d gave up, %d failed), %d overlaps",
			lk.path, len(ivs), ourN, lost, lk.peer, len(pivs), peerLost, gaveUp, failed, len(ov))
		for i, o := range ov {
			if i == 10 {
				break
			}
			t.Errorf("overlap on %s: %s and %s", lk.path, o[0], o[1])
		}
		for _, fc := range f.byLock[li] {
			f.logf(t, "  %s: %d cycles, %d losses, errors %q", fc.name, fc.cycles.Load(), fc.losses.Load(), fc.errors())
		}
	}
}

// checkNothingLeft: once every contender has stopped (the peers' sessions
// are still open), no node is left: a cancelled acquire, a given-up
// request or a lost hold must not leave a node in a live session.
func (f *faultScenario) checkNothingLeft(t *testing.T) {
	for _, fc := range f.ours {
		if st := fc.l.State(); st == ordering.LockQueued || st == ordering.LockHolding || st == ordering.LockSuspended {
			t.Errorf("%s still %s after stopping", fc.name, st)
		}
	}
	for _, lk := range f.locks {
		eventually(t, 2*faultTimeout, "no node left on "+lk.path, func() bool {
			kids, _, err := f.check.conn.Children(lk.path)
			return err == nil && len(kids) == 0
		})
	}
}

// fmtSince is the time from `from` to at, or "never".
func fmtSince(at, from time.Time) string {
	if at.IsZero() {
		return "never"
	}
	return "+" + at.Sub(from).Round(time.Millisecond).String()
}

// checkSession is a plain Session on the ensemble for checks.
func checkSession(t *testing.T, servers []string) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Connect(ctx, servers, WithSessionTimeout(faultTimeout))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestLockCoreUnderFaults: the lock core's own fault cases, on one
// ensemble: release across a failover, a cancelled acquire with the link
// down, a create in flight when its member dies or when the session
// expires.
func TestLockCoreUnderFaults(t *testing.T) {
	c := faultEnsemble(t)
	t.Run("ReleaseAcrossFailover", func(t *testing.T) { testReleaseAcrossFailover(t, c) })
	t.Run("CancelQueuedWhileCut", func(t *testing.T) { testCancelQueuedWhileCut(t, c) })
	t.Run("ProtectedCreateMemberKilled", func(t *testing.T) { testProtectedCreateMemberKilled(t, c) })
	t.Run("ProtectedCreateSessionExpires", func(t *testing.T) { testProtectedCreateSessionExpires(t, c) })
}

// heal brings every member back (resumed, restarted) when a subtest ends,
// however it ended, so that the next one starts on a whole ensemble.
func heal(t *testing.T, c *sandbox.Cluster) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		for _, m := range c.Members() {
			if m.Paused() {
				_ = m.Resume()
			}
			if !m.Running() {
				wg.Go(func() {
					if err := m.Restart(ctx); err != nil {
						t.Errorf("heal: restart member %d: %v", m.ID(), err)
					}
				})
			}
		}
		wg.Wait()
		if err := c.WaitReady(ctx); err != nil {
			t.Errorf("heal: %v", err)
		}
	})
}

// connectOn connects a Session that knows every member but is linked to
// member i (go-zookeeper shuffles its server list: dial until it lands
// there).
func connectOn(t *testing.T, ctx context.Context, c *sandbox.Cluster, i int, opts ...SessionOption) *Session {
	t.Helper()
	opts = append([]SessionOption{WithSessionTimeout(faultTimeout)}, opts...)
	for range 60 {
		s, err := Connect(ctx, c.Servers(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		if memberOf(c, s.Server()) == i {
			t.Cleanup(s.Close)
			return s
		}
		s.Close()
	}
	t.Fatalf("never linked to member %d", i+1)
	return nil
}

// testReleaseAcrossFailover: the leader dies under a holder linked to it;
// Release, called while the link is down, completes once the session is
// back on another member (or is over), and the node is gone. The leader
// is the worst victim: no member serves until the other two elect one.
func testReleaseAcrossFailover(t *testing.T, c *sandbox.Cluster) {
	heal(t, c)
	ctx := tctx(t, 90*time.Second)
	p := lockPath(t)
	victim, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hs := connectOn(t, ctx, c, victim)
	holder := NewLock(hs, p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	node, gen := holder.Node(), hs.Generation()
	if err := c.Members()[victim].Kill(); err != nil {
		t.Fatal(err)
	}
	eventually(t, faultTimeout, "holder suspended", func() bool { return holder.State() != ordering.LockHolding })
	start := time.Now()
	if err := holder.Release(ctx); err != nil {
		t.Fatalf("Release across the failover: %v", err)
	}
	t.Logf("Release returned %v after the link went with the leader (session generation %d -> %d, state %s)",
		time.Since(start).Round(time.Millisecond), gen, hs.Generation(), hs.State())
	other := checkSession(t, c.Servers())
	eventually(t, 2*faultTimeout, "the node gone", func() bool {
		ok, _, err := other.conn.Exists(p + "/" + node)
		return err == nil && !ok
	})
	if err := c.Members()[victim].Restart(ctx); err != nil {
		t.Fatal(err)
	}
	// The lock still works in the same Session.
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// testCancelQueuedWhileCut: a waiter whose link is cut gives up (its
// context ends). Acquire returns promptly, and once the link is back (the
// same session: its node would otherwise stay for the session's life)
// the node is gone.
func testCancelQueuedWhileCut(t *testing.T, c *sandbox.Cluster) {
	heal(t, c)
	ctx := tctx(t, 60*time.Second)
	p := lockPath(t)
	holder := NewLock(checkSession(t, c.Servers()), p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	ls := newLinks(t, c)
	ws, err := Connect(ctx, ls.addrs(), WithSessionTimeout(faultTimeout))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var queued sync.Once
	isQueued := make(chan struct{})
	waiter := NewLock(ws, p, WithProgress(func(pr ordering.Progress) {
		if pr.State == ordering.LockQueued && pr.Watching != "" {
			queued.Do(func() { close(isQueued) })
		}
	}))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res := make(chan error, 1)
	go func() { res <- waiter.Acquire(wctx) }()
	waitClosed(t, isQueued, 10*time.Second, "waiter queued")
	node, gen := waiter.Node(), ws.Generation()
	ls.cut()
	waitState(t, ws, SessionSuspended, faultTimeout)
	cancel()
	start := time.Now()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire after cancel: %v", err)
		}
	case <-time.After(cleanupWait + 3*time.Second):
		t.Fatal("Acquire did not return after cancel with the link down")
	}
	t.Logf("Acquire returned %v after cancel, link down", time.Since(start).Round(time.Millisecond))
	check := checkSession(t, c.Servers())
	if ok, _, err := check.conn.Exists(p + "/" + node); err != nil || !ok {
		t.Fatalf("the waiter's node should still be there while its session lives: %v %v", ok, err)
	}
	ls.restore()
	eventually(t, 2*faultTimeout, "the cancelled waiter's node gone", func() bool {
		ok, _, err := check.conn.Exists(p + "/" + node)
		return err == nil && !ok
	})
	if ws.Generation() != gen {
		t.Errorf("the session changed (%d -> %d): the node went with it, not by the lock core", gen, ws.Generation())
	}
	if kids := children(t, check, p); !slices.Equal(kids, []string{holder.Node()}) {
		t.Fatalf("children %v, want only the holder", kids)
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := waiter.TryAcquire(ctx); !ok || err != nil {
		t.Fatalf("TryAcquire after the cut: %v %v", ok, err)
	}
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// testProtectedCreateMemberKilled: the member a client sent its create to
// dies with the request in flight (killed the moment the create is
// written). The create may or may not have been committed; once the
// session is back on another member, exactly one node of its own exists
// and the lock works. Once with the leader as the victim, once with a
// follower.
func testProtectedCreateMemberKilled(t *testing.T, c *sandbox.Cluster) {
	heal(t, c)
	ctx := tctx(t, 120*time.Second)
	p := lockPath(t)
	other := checkSession(t, c.Servers())
	if err := NewLock(other, p).makeParents(ctx); err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"leader", "follower"} {
		var victim int
		var err error
		if role == "leader" {
			victim, err = c.Leader(ctx)
		} else {
			victim, err = follower(ctx, c)
		}
		if err != nil {
			t.Fatal(err)
		}
		m := c.Members()[victim]
		d := &killOnCreate{}
		s := connectOn(t, ctx, c, victim, WithDialer(d.dial))
		var killed sync.WaitGroup
		d.arm(func() {
			killed.Go(func() {
				if err := m.Kill(); err != nil {
					t.Errorf("kill member %d: %v", m.ID(), err)
				}
			})
		})
		l := NewLock(s, p)
		err = l.Acquire(ctx)
		killed.Wait()
		if err != nil {
			t.Fatalf("%s killed mid-create: Acquire: %v", role, err)
		}
		if d.fired.Load() != 1 {
			t.Fatalf("%s: the create was not intercepted", role)
		}
		kids := children(t, other, p)
		var mine []string
		for _, k := range kids {
			_, st, err := other.conn.Get(p + "/" + k)
			if err == nil && st.EphemeralOwner == s.ID() {
				mine = append(mine, k)
			}
		}
		t.Logf("%s (member %d) killed mid-create: session 0x%x now on %s, own nodes %v", role, m.ID(), s.ID(), s.Server(), mine)
		if len(mine) != 1 || mine[0] != l.Node() || len(kids) != 1 {
			t.Fatalf("%s killed mid-create: children %v, own %v, the lock's node %s: want exactly the own node", role, kids, mine, l.Node())
		}
		// A lock that counts itself lost releases at once and deletes in
		// the background: say so if the node outlives the release.
		stateBefore, errBefore := l.State(), l.Err()
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if kids := children(t, other, p); len(kids) != 0 {
			t.Fatalf("children after release: %v (the lock was %v before Release, Err %v; session state %v)", kids, stateBefore, errBefore, s.State())
		}
		s.Close()
		if err := m.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// testProtectedCreateSessionExpires: the client's links are cut the
// moment its create request is written and stay cut past the session
// timeout, so whether the node was made is unknown and, if it was, it
// goes with the expired session. Once the links are back, Acquire carries
// on in the new session: exactly one node, its own, in the new session.
func testProtectedCreateSessionExpires(t *testing.T, c *sandbox.Cluster) {
	heal(t, c)
	ctx := tctx(t, 60*time.Second)
	p := lockPath(t)
	other := checkSession(t, c.Servers())
	if err := NewLock(other, p).makeParents(ctx); err != nil {
		t.Fatal(err)
	}
	ls := newLinks(t, c)
	d := &killOnCreate{}
	s, err := Connect(ctx, ls.addrs(), WithSessionTimeout(faultTimeout), WithDialer(d.dial))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := s.ID()
	d.arm(func() {
		ls.cut()
		time.AfterFunc(faultTimeout+faultTimeout/2, ls.restore)
	})
	l := NewLock(s, p)
	start := time.Now()
	if err := l.Acquire(ctx); err != nil {
		t.Fatalf("Acquire across the expiry: %v", err)
	}
	t.Logf("held %v after the cut create, session 0x%x -> 0x%x (generation %d)", time.Since(start).Round(time.Millisecond), first, s.ID(), s.Generation())
	if d.fired.Load() != 1 {
		t.Fatal("the create was not intercepted")
	}
	if s.ID() == first || s.Generation() < 2 {
		t.Fatalf("session 0x%x (generation %d): the cut did not outlast the session", s.ID(), s.Generation())
	}
	kids := children(t, other, p)
	if len(kids) != 1 || kids[0] != l.Node() {
		t.Fatalf("children %v, want exactly the lock's node %s", kids, l.Node())
	}
	if _, st, err := other.conn.Get(p + "/" + kids[0]); err != nil || st.EphemeralOwner != s.ID() {
		t.Fatalf("own node's owner: %v %v, want the new session 0x%x", st, err, s.ID())
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// killOnCreate is a dialer whose connections, once armed, call a hook the
// moment a create request has been written: the server has it, the
// client has no reply yet.
type killOnCreate struct {
	mu    sync.Mutex
	hook  func()
	fired atomic.Int32
}

func (d *killOnCreate) arm(hook func()) {
	d.mu.Lock()
	d.hook = hook
	d.mu.Unlock()
}

func (d *killOnCreate) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	cn, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &killConn{Conn: cn, d: d}, nil
}

type killConn struct {
	net.Conn
	d *killOnCreate
}

func (c *killConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	// go-zookeeper writes one packet per Write: length, xid, opcode.
	if err == nil && isCreate(b) {
		c.d.mu.Lock()
		h := c.d.hook
		c.d.hook = nil
		c.d.mu.Unlock()
		if h != nil {
			c.d.fired.Add(1)
			h()
		}
	}
	return n, err
}

// TestAcquirePastDeadline: an Acquire whose deadline passes while one of
// its requests is under way (here: already passed when it starts, so the
// first listing meets it) returns context.DeadlineExceeded at once and
// leaves no node. Under churn, a waiter with a deadline (`zklock run
// --timeout`, a job with patience) hits this window now and then.
func TestAcquirePastDeadline(t *testing.T) {
	s := connect(t)
	p := lockPath(t)
	l := NewLock(s, p)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	res := make(chan error, 1)
	go func() { res <- l.Acquire(ctx) }()
	select {
	case err := <-res:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Acquire past its deadline: %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(5 * time.Second):
		// Closing the session ends the loop that never looks at ctx, so the
		// rest of the package's tests do not share a spinning core.
		s.Close()
		<-res
		t.Fatal("Acquire past its deadline did not return within 5s (spinning in retry: a context deadline counts as a connection loss)")
	}
	if kids := children(t, connect(t), p); len(kids) != 0 {
		t.Fatalf("children after a failed Acquire: %v", kids)
	}
}
