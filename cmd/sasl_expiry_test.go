package cmd

import (
	"context"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sasl"
)

// TestSASLSessionExpiry: a holder's link (through a proxy) is cut until
// the server expires its session; once the link is back, go-zookeeper
// makes a new session, which must run the SASL exchange again before
// anything else: the server, which requires SASL, closes a session that
// does not, and the parent only sasl:alice may use refuses it. The new
// session lists the parent and takes the lock again.
func TestSASLSessionExpiry(t *testing.T) {
	c := sharedSASL.Cluster(t)
	alice := saslSession(t, c, "alice", "alice-secret")
	p := testPath(t)
	mkdirsAs(t, alice, p, aliceOnly)
	px, err := sandbox.NewProxy(c.Servers()[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := lockops.Connect(ctx, []string{px.Addr()}, lockops.WithSessionTimeout(4*time.Second),
		lockops.WithSASL(&sasl.Digest{User: "alice", Password: "alice-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	holder := holdOver(t, s, p, ordering.LockHolding)
	node, gen, id := holder.Node(), s.Generation(), s.ID()

	px.Cut()
	eventually(t, 60*time.Second, "the server to expire the cut session (its lock node gone)", func() bool {
		kids, _, err := alice.ChildrenStat(context.Background(), p)
		if err != nil {
			return false
		}
		for _, k := range kids {
			if k == node {
				return false
			}
		}
		return true
	})
	px.Restore()
	eventually(t, 60*time.Second, "a new session, authenticated", func() bool {
		return s.Generation() > gen && s.State() == lockops.SessionConnected
	})
	if s.ID() == id {
		t.Fatalf("session %x kept: the test wants a new session", id)
	}
	if _, _, err := s.ChildrenStat(context.Background(), p); err != nil {
		t.Fatalf("the alice-only parent from the new session: %v", err)
	}
	again := holdOver(t, s, p, ordering.LockHolding)
	t.Logf("session %x expired; new session %x (generation %d) holds %s on the sasl:alice parent", id, s.ID(), s.Generation(), again.Node())
}
