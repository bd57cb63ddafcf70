package lockops

// Stock peers in the linearizability suite: real Curator
// (InterProcessMutex) and Kazoo (Lock) clients take the lock beside
// lockops clients, on the same parent, and record their acquires,
// releases and register increments into the same histories, so that
// porcupine checks the mix (models in fencing_history_test.go).
//
// Stock Curator and Kazoo do not see each other's nodes (PRODUCT.md,
// "Recipes that cannot see each other"), so each parent has one peer
// recipe, and lockops joins in that recipe's style: a Curator parent and a
// Kazoo parent.
//
// A peer's fencing token: Curator and Kazoo give none. What a peer must do
// is read its own lock node's Stat once it holds and take the czxid (see
// peerToken and docs/fencing.md). A node that is already gone gives no
// token: the lock is lost, and the peer must not write.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/peers"
	"github.com/zklock/zklock/third_party/zk"
)

// newWallHistory is a history timed by the wall clock: the stock peers'
// drivers report the wall-clock moments they lived (peers' package
// comment), and processes on one machine read the same clock, so their
// times go into it beside this process's.
func newWallHistory() *history { return &history{origin: time.Now().Round(0), wall: true} }

// at is the wall-clock time t's place in h.
func (h *history) at(t time.Time) int64 { return int64(t.Round(0).Sub(h.origin)) }

// peerToken is the fencing token of a stock peer holding node: its czxid,
// read from the node's Stat once it holds, as a peer must (Curator:
// checkExists() on InterProcessMutex's lock path; Kazoo: client.exists on
// lock.path + "/" + lock.node). ok is false when the node is gone: the
// lock is lost, and there is nothing to write with. The test reads it on
// check, after a sync, for the peer: the peer's own session would see its
// own create without one; the czxid is the same whoever reads it.
func peerToken(ctx context.Context, check *Session, node string) (token int64, ok bool, err error) {
	if err := check.Sync(ctx, node); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return 0, false, err
	}
	ok, st, err := check.Exists(ctx, node)
	if err != nil || !ok {
		return 0, false, err
	}
	return st.Czxid, true, nil
}

// peerWorker is one stock Curator or Kazoo client taking a lock, driven
// from here one hold at a time: acquire, take the token, increment the
// register, hold a moment, release; each step recorded with the times its
// driver reported.
type peerWorker struct {
	id     int // in the histories
	p      *peers.Proc
	client int
	links  links
	label  string

	holds   atomic.Int64
	fails   atomic.Int64 // acquires or releases that failed
	noToken atomic.Int64 // holds whose node was gone before the token was read

	mu    sync.Mutex
	stay  chan struct{} // set: the next hold lasts until it is closed or lost
	held  *peers.Hold   // a hold lasting for stay
	heldC chan struct{} // closed once held is set
}

// run takes holds on lock until ctx ends.
func (w *peerWorker) run(ctx context.Context, lock string, h *history, reg *register, check *Session) {
	for ctx.Err() == nil {
		actx, cancel := context.WithTimeout(ctx, 30*time.Second)
		hd, err := w.p.Acquire(actx, w.client, lock, peers.Mutex)
		cancel()
		if err != nil {
			w.fails.Add(1)
			faultPause(ctx, 50*time.Millisecond)
			continue
		}
		sess := w.p.Session(w.client)
		t0 := hd.Times()
		h.add(w.id, mutexIn{w.id, true}, nil, h.at(t0.Requested), h.at(t0.Acquired))
		w.holds.Add(1)
		if tok, ok, err := peerToken(ctx, check, lock+"/"+hd.Node()); ok {
			reg.write(reg.read(w.id, tok))
		} else if err == nil {
			w.noToken.Add(1)
		}
		w.hold(ctx, hd)
		rctx, rcancel := context.WithTimeout(context.Background(), 2*faultTimeout)
		call := h.now()
		rerr := hd.Release(rctx)
		rcancel()
		if rerr != nil {
			w.fails.Add(1)
		}
		w.recordEnd(h, hd, sess, call, rerr)
	}
}

// hold lasts 10 ms, or while a nemesis wants it to (stay), or until the
// client learns the lock is lost.
func (w *peerWorker) hold(ctx context.Context, hd *peers.Hold) {
	w.mu.Lock()
	stay := w.stay
	lingering := stay != nil && w.held == nil
	if lingering {
		w.held = hd
		close(w.heldC)
	}
	w.mu.Unlock()
	if !lingering {
		stay = nil // a nil channel: the timer ends the hold
	}
	t := time.NewTimer(10 * time.Millisecond)
	if lingering {
		t.Stop()
	}
	defer t.Stop()
	select {
	case <-t.C:
	case <-stay:
	case <-hd.Lost():
	case <-ctx.Done():
	}
}

// recordEnd records the end of hd's hold in the lock's own view: the
// release, if the session lived through the hold; otherwise the first
// SUSPENDED or LOST the client was told after it acquired. Stock Curator
// and Kazoo learn of the loss itself only at the session timeout or after
// reconnecting, and Curator's advice is to stop trusting the lock at
// SUSPENDED: the rule of the fault suite's overlap check
// (peerGroup.intervals). A release that failed in a session that lived
// ends at the end of time (its node goes later).
func (w *peerWorker) recordEnd(h *history, hd *peers.Hold, sess int64, call int64, rerr error) {
	t := hd.Times()
	evs := w.p.Events()
	died := !t.Lost.IsZero() || w.p.Session(w.client) != sess || newSessionDuring(evs, w.client, t.Requested, t.ReleaseReturned)
	in := mutexIn{w.id, false}
	if died {
		if n := notice(evs, w.client, t.Acquired); !n.IsZero() && (t.ReleaseCalled.IsZero() || n.Before(t.ReleaseCalled)) {
			h.add(w.id, in, nil, h.at(n), h.at(n))
			return
		}
	}
	if rerr != nil {
		h.add(w.id, in, nil, call, math.MaxInt64)
		return
	}
	h.add(w.id, in, nil, h.at(t.ReleaseCalled), h.at(t.ReleaseReturned))
}

// lingerHold makes w's next hold last until the returned release function
// is called (or the client learns it is lost), and returns that hold once
// it is taken.
func (w *peerWorker) lingerHold(ctx context.Context) (*peers.Hold, func(), error) {
	w.mu.Lock()
	w.stay, w.held, w.heldC = make(chan struct{}), nil, make(chan struct{})
	stay, heldC := w.stay, w.heldC
	w.mu.Unlock()
	var once sync.Once
	let := func() {
		once.Do(func() {
			w.mu.Lock()
			close(stay)
			w.stay = nil
			w.mu.Unlock()
		})
	}
	select {
	case <-heldC:
	case <-ctx.Done():
		let()
		return nil, nil, fmt.Errorf("%s: no hold to cut: %w", w.label, ctx.Err())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held, let, nil
}

// peerParent is one lock parent of the mix: lockops workers joined in the
// style of one stock peer recipe, that recipe's clients, and what they
// recorded.
type peerParent struct {
	kind  peers.Kind
	lock  string
	h     *history
	reg   *register
	ours  *historyRun // the lockops workers, with their own nemeses
	peers []*peerWorker
}

// newPeerParent starts two lockops workers (opts: the peer's style) and
// two stock clients of kind, each in its own session behind its own
// links, on a new lock.
func newPeerParent(t *testing.T, ctx context.Context, c *sandbox.Cluster, check *Session, kind peers.Kind, opts ...Option) *peerParent {
	t.Helper()
	lock := fmt.Sprintf("/history-peers/%s-%d", kind, time.Now().UnixNano())
	h := newWallHistory()
	pp := &peerParent{kind: kind, lock: lock, h: h,
		// The register's history shares the lock's clock, not its operations.
		reg:  &register{fenced: true, h: &history{origin: h.origin, wall: true}},
		ours: &historyRun{c: c, ctx: ctx, check: check, lock: lock}}
	for i := range 2 {
		w := newHistoryWorker(t, ctx, c, i, lock, opts...)
		w.pins = &pp.ours.pins
		pp.ours.workers = append(pp.ours.workers, w)
	}
	var servers [][]string
	for i := range 2 {
		w := &peerWorker{id: 2 + i, client: i, links: newLinks(t, c), label: fmt.Sprintf("%s/%d", kind, i)}
		servers = append(servers, w.links.addrs())
		pp.peers = append(pp.peers, w)
	}
	p := peers.StartT(t, kind, peers.Options{ClientServers: servers, SessionTimeout: faultTimeout})
	for _, w := range pp.peers {
		w.p = p
	}
	return pp
}

// start runs every worker of the parent until ctx ends.
func (pp *peerParent) start(ctx context.Context, wg *sync.WaitGroup) {
	for _, w := range pp.ours.workers {
		wg.Go(func() { w.run(ctx, pp.h, pp.reg) })
	}
	for _, w := range pp.peers {
		wg.Go(func() { w.run(ctx, pp.lock, pp.h, pp.reg, pp.ours.check) })
	}
}

// holdsBy are the holds taken by the lockops workers and by the peers.
func (pp *peerParent) holdsBy() (ours, theirs int64) {
	ours = pp.ours.totalHolds()
	for _, w := range pp.peers {
		theirs += w.holds.Load()
	}
	return ours, theirs
}

// cutPeer cuts a peer holder off past its session timeout, then lets it
// back. expire false (a partition): restored once the client was told its
// connection is down and someone else has held the lock. expire true (a
// session expiry): restored once the servers have deleted its node, then
// waits for the client's new session and more holds. It returns an error
// rather than failing the test: the two parents are cut at once. The
// string says what happened when.
func (pp *peerParent) cutPeer(ctx context.Context, w *peerWorker, expire bool) (string, error) {
	hd, let, err := w.lingerHold(ctx)
	if err != nil {
		return "", err
	}
	defer let()
	sess, node, at := w.p.Session(w.client), pp.lock+"/"+hd.Node(), time.Now()
	w.links.cut()
	defer w.links.restore()
	ours, theirs := pp.holdsBy()
	others := ours + theirs - w.holds.Load()
	told := func() bool { return !notice(w.p.Events(), w.client, at).IsZero() }
	var goneAt time.Time
	gone := func() bool {
		ok, _, err := pp.ours.check.Exists(ctx, node)
		if err == nil && !ok && goneAt.IsZero() {
			goneAt = time.Now()
		}
		return !goneAt.IsZero()
	}
	if err := waitFor(ctx, 60*time.Second, w.label+" cut: told, node gone, another holder", func() bool {
		ours, theirs := pp.holdsBy()
		return (expire || told()) && (!expire || gone()) && ours+theirs-w.holds.Load() > others
	}); err != nil {
		return "", err
	}
	w.links.restore()
	what := fmt.Sprintf("%s cut holding %s: told SUSPENDED/LOST %s, restored %s", w.label, hd.Node(),
		fmtSince(notice(w.p.Events(), w.client, at), at), fmtSince(time.Now(), at))
	if !expire {
		return what, nil
	}
	what += ", node deleted by the servers " + fmtSince(goneAt, at)
	let()
	if err := waitFor(ctx, 60*time.Second, w.label+"'s new session", func() bool { return w.p.Session(w.client) != sess }); err != nil {
		return what, err
	}
	what += ", new session " + fmtSince(time.Now(), at)
	before := w.holds.Load()
	return what, waitFor(ctx, 60*time.Second, w.label+" to hold again", func() bool { return w.holds.Load() > before })
}

// waitFor polls cond until it holds, d passes (an error naming what), or
// ctx ends: eventually, for goroutines, which must not fail the test.
func waitFor(ctx context.Context, d time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s", d, what)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// peerMix is TestHistoryWithPeersUnderFaults' ensemble and parents.
type peerMix struct {
	c       *sandbox.Cluster
	ctx     context.Context
	parents []*peerParent
	faults  int // the ensemble's and the peers' (the lockops nemeses count their own)
	cuts    int // which peer of a parent is cut next
}

// progress waits until every parent has n more holds, and its peers and
// its lockops workers each at least one more.
func (m *peerMix) progress(t *testing.T, what string, n int64) {
	t.Helper()
	type mark struct{ ours, theirs int64 }
	before := make([]mark, len(m.parents))
	for i, pp := range m.parents {
		before[i].ours, before[i].theirs = pp.holdsBy()
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var stalled []string
		for i, pp := range m.parents {
			ours, theirs := pp.holdsBy()
			if ours <= before[i].ours || theirs <= before[i].theirs || ours+theirs < before[i].ours+before[i].theirs+n {
				stalled = append(stalled, fmt.Sprintf("%s: lockops %d -> %d, peers %d -> %d", pp.kind, before[i].ours, ours, before[i].theirs, theirs))
			}
		}
		if len(stalled) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 60s waiting for %d more holds on each parent, peers and lockops both, %s; stalled: %s", n, what, strings.Join(stalled, "; "))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// killMember kills the leader or a follower, waits for every parent to
// go on without it, and restarts it.
func (m *peerMix) killMember(t *testing.T, leader bool) {
	t.Helper()
	var victim int
	var err error
	if leader {
		victim, err = m.c.Leader(m.ctx)
	} else {
		victim, err = follower(m.ctx, m.c)
	}
	if err != nil {
		t.Fatal(err)
	}
	mem := m.c.Members()[victim]
	if err := mem.Kill(); err != nil {
		t.Fatal(err)
	}
	m.faults++
	at := time.Now()
	m.progress(t, "with a member down", 3)
	t.Logf("member %d killed (leader %v): every parent held 3 more times, peers and lockops both, %s", victim, leader, fmtSince(time.Now(), at))
	if err := mem.Restart(m.ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.c.WaitReady(m.ctx); err != nil {
		t.Fatal(err)
	}
}

// cutPeers cuts a peer holder of every parent at once (cutPeer).
func (m *peerMix) cutPeers(t *testing.T, expire bool) {
	t.Helper()
	errs := make([]error, len(m.parents))
	whats := make([]string, len(m.parents))
	var wg sync.WaitGroup
	for i, pp := range m.parents {
		w := pp.peers[m.cuts%len(pp.peers)]
		wg.Go(func() { whats[i], errs[i] = pp.cutPeer(m.ctx, w, expire) })
	}
	wg.Wait()
	m.cuts++
	m.faults += len(m.parents)
	for _, w := range whats {
		t.Logf("%s (expiry %v)", w, expire)
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryWithPeersUnderFaults: stock Curator clients and lockops
// workers (Curator style) take one lock, stock Kazoo clients and lockops
// workers (Kazoo style) another, each client in its own session behind
// its own links, incrementing a fenced register under the lock (the
// peers with their node's czxid as the token), while the ensemble loses
// its leader, then a follower; peer holders of both parents are cut off
// past the session timeout (a partition, then a session expiry), and so
// are lockops holders. Each parent's history of acquires and releases,
// peers' and lockops' together, is a linearizable mutex (a peer's hold
// ending at its release, or at the first SUSPENDED or LOST it was told
// when its session died), and each register's history a linearizable
// fenced register.
func TestHistoryWithPeersUnderFaults(t *testing.T) {
	for _, k := range []peers.Kind{peers.Curator, peers.Kazoo} {
		if err := peers.Available(k); err != nil {
			t.Fatalf("the suite needs real %s clients: %v", k, err)
		}
	}
	c := faultEnsemble(t)
	heal(t, c)
	soak := historyDuration(t)
	ctx := tctx(t, 10*time.Minute+soak)
	check := checkSession(t, c.Servers())
	m := &peerMix{c: c, ctx: ctx, parents: []*peerParent{
		newPeerParent(t, ctx, c, check, peers.Curator, WithStyle(ordering.StyleCurator)),
		newPeerParent(t, ctx, c, check, peers.Kazoo, WithStyle(ordering.StyleKazoo)),
	}}
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, pp := range m.parents {
		pp.start(wctx, &wg)
	}
	var halt sync.Once
	stopAll := func() { halt.Do(func() { stop(); wg.Wait() }) }
	defer stopAll()
	m.progress(t, "to warm up", 5)

	begin := time.Now()
	for round := 0; round == 0 || time.Since(begin) < soak; round++ {
		m.killMember(t, true)
		m.killMember(t, false)
		m.cutPeers(t, false)
		m.cutPeers(t, true)
		// The lockops nemeses of TestHistoryUnderFaults, one parent each,
		// the other way round next round.
		m.parents[round%2].ours.partition(t)
		m.parents[(round+1)%2].ours.expire(t)
		m.progress(t, "after the faults", 3)
		t.Logf("round %d done after %v", round, time.Since(begin).Round(time.Second))
	}
	stopAll()
	m.report(t)
}

// report checks every parent's histories and logs the counts.
func (m *peerMix) report(t *testing.T) {
	faults, ops, violations := m.faults, 0, 0
	for _, pp := range m.parents {
		faults += pp.ours.faults
		mutex := checkHistory(t, string(pp.kind)+"-mutex", mutexModel, pp.h.operations())
		fenced := checkHistory(t, string(pp.kind)+"-fenced-register", fencedModel, pp.reg.h.operations())
		ops += mutex.ops + fenced.ops
		ours, theirs := pp.holdsBy()
		var fails, noToken int64
		for _, w := range pp.peers {
			fails += w.fails.Load()
			noToken += w.noToken.Load()
		}
		for _, w := range pp.ours.workers {
			fails += w.fails.Load()
		}
		peerWrites, accepted := 0, 0
		for _, op := range pp.reg.h.operations() {
			if op.ClientId >= 2 {
				peerWrites++
				if op.Output.(incOut).ok {
					accepted++
				}
			}
		}
		t.Logf("%s parent: holds lockops %d, %s %d; mutex ops %d, register ops %d (by %s %d, %d accepted; %d holds found their node gone); failed acquires/releases %d",
			pp.kind, ours, pp.kind, theirs, mutex.ops, fenced.ops, pp.kind, peerWrites, accepted, noToken, fails)
		if !mutex.ok {
			violations++
			t.Errorf("%s parent: the holds of %s and lockops together are not a linearizable mutex: see %s", pp.kind, pp.kind, mutex.html)
		}
		if !fenced.ok {
			violations++
			t.Errorf("%s parent: the fenced register's history is not linearizable: see %s", pp.kind, fenced.html)
		}
		if accepted == 0 {
			t.Errorf("%s parent: no increment of a %s client was accepted: the peers are not in the history", pp.kind, pp.kind)
		}
	}
	t.Logf("operations checked: %d; faults injected: %d; violations: %d", ops, faults, violations)
}
