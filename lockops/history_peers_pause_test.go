package lockops

// The pause nemesis on a stock peer: a Curator client (its whole JVM) or a
// Kazoo client (its Python process) holding the lock is stopped with
// SIGSTOP between its read of the register and its write, for longer than
// its session; the servers expire the session and lockops workers, joined
// in the peer's style, take the lock and increment the register; then
// SIGCONT, and the peer's application, back from the pause, writes what it
// computed before it. Stock Curator and Kazoo give no token: the peer took
// its node's czxid when it acquired (peerToken), as docs/fencing.md says a
// peer must.

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/peers"
)

// peerPauseOutcome is one pause of a peer: the register's check, the lock
// history's check (the peer's hold as it lived it, the lockops holds
// meanwhile), and whether the peer's late write was accepted.
type peerPauseOutcome struct {
	register, mutex checkResult
	lateAccepted    bool
}

// pausedPeerID is the paused peer's client id in the histories.
const pausedPeerID = 100

// peerPauseRun runs the pause once on c with a stock client of kind
// (lockops joins with opts), the register fenced or not.
func peerPauseRun(t *testing.T, c *sandbox.Cluster, kind peers.Kind, fenced bool, opts ...Option) peerPauseOutcome {
	ctx := tctx(t, 3*time.Minute)
	check := checkSession(t, c.Servers())
	lock := lockPath(t)
	h := newWallHistory()
	reg := &register{fenced: fenced, h: &history{origin: h.origin, wall: true}}
	p := peers.StartT(t, kind, peers.Options{Servers: c.Servers(), SessionTimeout: pauseSessionTimeout})
	t.Cleanup(func() { _ = p.Resume() }) // before StartT's Close: a stopped driver cannot quit

	hd, err := p.Acquire(ctx, 0, lock, peers.Mutex)
	if err != nil {
		t.Fatal(err)
	}
	held := hd.Times()
	h.add(pausedPeerID, mutexIn{pausedPeerID, true}, nil, h.at(held.Requested), h.at(held.Acquired))
	node := lock + "/" + hd.Node()
	token, ok, err := peerToken(ctx, check, node)
	if err != nil || !ok {
		t.Fatalf("%s holder's token from the Stat of %s: found %v, %v", kind, node, ok, err)
	}
	inc := reg.read(pausedPeerID, token)

	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	var workers []*historyWorker
	for i := range 2 {
		s, err := Connect(ctx, c.Servers(), WithSessionTimeout(faultTimeout))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		w := &historyWorker{id: i, s: s, l: NewLock(s, lock, opts...)}
		workers = append(workers, w)
		wg.Go(func() { w.run(wctx, h, reg) })
	}

	if err := p.Pause(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the paused peer's session to expire and the others to increment", func() bool {
		if ok, _, err := check.Exists(ctx, node); err != nil || ok {
			return false
		}
		return workers[0].holds.Load()+workers[1].holds.Load() >= 3
	})
	if err := p.Resume(); err != nil {
		t.Fatal(err)
	}
	late := reg.write(inc)
	var told time.Time
	eventually(t, 60*time.Second, "the resumed peer to be told its connection or session is gone", func() bool {
		told = notice(p.Events(), 0, held.Acquired)
		return !told.IsZero()
	})
	h.add(pausedPeerID, mutexIn{pausedPeerID, false}, nil, h.at(told), h.at(told))
	rctx, cancel := context.WithTimeout(ctx, 2*faultTimeout)
	_ = hd.Release(rctx) // its node is gone: the release may fail
	cancel()
	stop()
	wg.Wait()

	name, model := "unfenced-register", counterModel
	if fenced {
		name, model = "fenced-register", fencedModel
	}
	return peerPauseOutcome{
		register:     checkHistory(t, fmt.Sprintf("%s-%s", kind, name), model, reg.h.operations()),
		mutex:        checkHistory(t, fmt.Sprintf("%s-mutex-%s", kind, name), mutexModel, h.operations()),
		lateAccepted: late,
	}
}

// TestFencingUnderPeerPause: a stock Curator and a stock Kazoo holder,
// paused past their session while lockops clients take the lock and
// write. The lock alone does not protect them: the paused peer's hold,
// as it lived it, overlaps the lockops holds (the mutex history is not
// linearizable, and the test requires the checker to say so). Unfenced,
// its late write is a lost update the checker finds; fenced with its
// node's czxid, the write is refused and the history is linearizable.
func TestFencingUnderPeerPause(t *testing.T) {
	c := faultEnsemble(t)
	heal(t, c)
	soak := historyDuration(t)
	kinds := []struct {
		kind peers.Kind
		opts []Option
	}{{peers.Curator, []Option{WithStyle(ordering.StyleCurator)}}, {peers.Kazoo, []Option{WithStyle(ordering.StyleKazoo)}}}
	for _, k := range kinds {
		if err := peers.Available(k.kind); err != nil {
			t.Fatalf("the suite needs real %s clients: %v", k.kind, err)
		}
	}
	begin := time.Now()
	var ops, pauses, unfencedCaught, overlapsCaught, fencedViolations int
	for round := 0; round == 0 || time.Since(begin) < soak; round++ {
		for _, k := range kinds {
			for _, fenced := range []bool{false, true} {
				out := peerPauseRun(t, c, k.kind, fenced, k.opts...)
				ops += out.register.ops + out.mutex.ops
				pauses++
				what := fmt.Sprintf("round %d, %s, fenced %v", round, k.kind, fenced)
				if out.mutex.ok {
					t.Errorf("%s: the paused peer's hold did not overlap the others': the pause does not bite", what)
				} else {
					overlapsCaught++
				}
				switch {
				case !fenced && out.register.ok:
					t.Errorf("%s: the late write (accepted %v) left a linearizable history: the checker or the pause does not bite", what, out.lateAccepted)
				case !fenced:
					unfencedCaught++
					t.Logf("%s: not linearizable, as expected: %s", what, out.register.html)
				case out.lateAccepted:
					t.Errorf("%s: the late write with token was accepted, want refused", what)
				case !out.register.ok:
					fencedViolations++
					t.Errorf("%s: not linearizable: see %s", what, out.register.html)
				}
			}
		}
	}
	t.Logf("operations checked: %d; faults injected (peer pauses): %d; violations: lock alone %d (expected, one a pause), unfenced %d (expected, one an unfenced pause), fenced %d",
		ops, pauses, overlapsCaught, unfencedCaught, fencedViolations)
}
