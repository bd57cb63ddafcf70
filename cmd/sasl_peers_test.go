package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/peers"
)

// peerSASL is the peers' SASL settings for alice: a client JAAS file for
// Curator (as a Java service is configured), user and password for Kazoo.
func peerSASL(t *testing.T) *peers.SASL {
	t.Helper()
	s, err := peers.WriteClientJAAS(t.TempDir(), "alice", "alice-secret")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSASLPeersLeaderKill: stock Curator (DIGEST-MD5 from a client JAAS
// file) and stock Kazoo (sasl_options through pure-sasl), each contending
// with `zklock run` as alice on a parent only sasl:alice may use, while
// the leader is killed and restarted. No two critical sections overlap,
// and every peer client, dropped by the election, holds again after it
// reconnected: on that parent it can only if it authenticated again.
func TestSASLPeersLeaderKill(t *testing.T) {
	c := sharedSASL.Cluster(t)
	for _, kind := range []peers.Kind{peers.Curator, peers.Kazoo} {
		t.Run(string(kind), func(t *testing.T) { saslLeaderKill(t, c, kind) })
	}
}

func saslLeaderKill(t *testing.T, c *sandbox.Cluster, kind peers.Kind) {
	alice := saslSession(t, c, "alice", "alice-secret")
	p := testPath(t)
	mkdirsAs(t, alice, p, aliceOnly)
	peer := peers.StartT(t, kind, peers.Options{Servers: c.Servers(), Sessions: 2, SASL: peerSASL(t),
		SessionTimeout: 10 * time.Second})
	var mu sync.Mutex
	lastHeld := map[int]time.Time{}
	stopLoop := loopInBackground(t, peer, peers.LoopSpec{Path: p, Duration: 120 * time.Second, Hold: 20 * time.Millisecond,
		OnCycle: func(cy peers.Cycle) {
			if cy.Held {
				mu.Lock()
				lastHeld[cy.Client] = cy.Acquired
				mu.Unlock()
			}
		}})
	eventually(t, 30*time.Second, "the peers to queue", func() bool {
		k, _, _ := alice.ChildrenStat(context.Background(), p)
		return len(k) > 0
	})

	log := filepath.Join(t.TempDir(), "intervals")
	script := `echo "S $ID $(date +%s%N)" >> "$LOG"; sleep 0.05; echo "E $ID $(date +%s%N)" >> "$LOG"`
	const lanes, runsPerLane = 2, 4
	bin := buildBinary(t)
	flags, env := saslFlags(c, "alice", "alice-secret")
	var wg sync.WaitGroup
	errs := make(chan string, lanes*runsPerLane)
	started := make(chan struct{}, lanes*runsPerLane)
	for lane := range lanes {
		wg.Go(func() {
			for r := range runsPerLane {
				id := fmt.Sprintf("%d.%d", lane, r)
				// As in TestTLSLeaderKill: a run may start connecting as
				// the leader dies and wait out the election.
				// --style: a run that finds the queue empty between the
				// peers' holds would join in Curator style (the default)
				// and make a Kazoo queue mixed, which the next run refuses.
				args := append(append([]string{}, flags...), "--session-timeout", "10s", "--connect-timeout", "40s", "run", "--style", string(kind), p, "--", "sh", "-c", script)
				if e := runThroughElection(t, id, started, func(logArgs []string) (*proc, error) {
					return startProc(t, bin, append([]string{"LOG=" + log, "ID=" + id}, env...), append(logArgs, args...)...)
				}); e != "" {
					errs <- e
				}
			}
		})
	}
	<-started
	killed := killLeader(t, c)
	wg.Wait()
	// The peers go on past the runs until each client has held again
	// after its reconnect (or the loop's Duration ends).
	eventually(t, 90*time.Second, "every peer client to reconnect after the kill and hold again", func() bool {
		back := reconnectedSince(peer, killed)
		mu.Lock()
		defer mu.Unlock()
		for client := range 2 {
			if at, ok := back[client]; !ok || !lastHeld[client].After(at) {
				return false
			}
		}
		return true
	})
	cycles := stopLoop()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	back := reconnectedSince(peer, killed)
	for client, at := range back {
		if !heldAfter(cycles, client, at) {
			t.Errorf("%s client %d reconnected at %v and never held again on the sasl:alice parent", kind, client, at.Format(time.StampMicro))
		}
	}
	all := peers.Intervals(string(kind), cycles)
	held := len(all)
	all = append(all, runIntervals(t, log)...)
	if held == 0 || len(all)-held != lanes*runsPerLane {
		t.Fatalf("%d %s holds and %d zklock runs; want both sides to have held", held, kind, len(all)-held)
	}
	if ov := peers.Overlaps(all); len(ov) > 0 {
		t.Fatalf("%d overlapping critical sections, first %v and %v", len(ov), ov[0][0], ov[0][1])
	}
	if _, _, err := alice.ChildrenStat(context.Background(), p); err != nil {
		t.Fatalf("zklock's own session on the alice-only parent after the election: %v", err)
	}
	if alice.State() != lockops.SessionConnected {
		t.Fatalf("zklock's session after the election: %v", alice.State())
	}
	t.Logf("%d %s holds (re-authenticated after the election: clients %v) and %d zklock runs over SASL across a leader kill, no overlap",
		held, kind, back, lanes*runsPerLane)
}

// killLeader kills the ensemble's leader, restarts it and waits until the
// ensemble serves again; it returns when the kill happened.
func killLeader(t *testing.T, c *sandbox.Cluster) time.Time {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	leader, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := c.Members()[leader]
	at := time.Now()
	if err := m.Kill(); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed the leader, member %d (%s)", m.ID(), m.Addr())
	if err := m.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return at
}

// reconnectedSince is, per client, the first time it reported RECONNECTED
// after since.
func reconnectedSince(proc *peers.Proc, since time.Time) map[int]time.Time {
	out := map[int]time.Time{}
	for _, e := range proc.Events() {
		if e.Type == peers.EventState && e.State == peers.StateReconnected && e.Time.After(since) {
			if _, ok := out[e.Client]; !ok {
				out[e.Client] = e.Time
			}
		}
	}
	return out
}

// heldAfter says whether client acquired the lock after at.
func heldAfter(cycles []peers.Cycle, client int, at time.Time) bool {
	for _, c := range cycles {
		if c.Client == client && c.Held && c.Acquired.After(at) {
			return true
		}
	}
	return false
}
