package cmd

import (
	"context"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/sasl"
	"github.com/zklock/zklock/third_party/zk"
)

// countingGSSAPI is GSSAPI that records each exchange it completes (one
// per connection), with the server it ran with: the proof that the
// exchange was run again, beside the server's refusal of a connection
// that did not run it.
type countingGSSAPI struct {
	*sasl.GSSAPI

	mu   sync.Mutex
	done []string // servers, in order
}

func (c *countingGSSAPI) Start(ctx context.Context, server string, remote net.Addr) (zk.SASLExchange, error) {
	ex, err := c.GSSAPI.Start(ctx, server, remote)
	if err != nil {
		return nil, err
	}
	return &countedExchange{SASLExchange: ex, done: func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.done = append(c.done, server)
	}}, nil
}

// exchanges returns the servers of the exchanges completed so far.
func (c *countingGSSAPI) exchanges() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.done)
}

// countedExchange calls done when the client side completes.
type countedExchange struct {
	zk.SASLExchange
	done     func()
	reported bool
}

func (e *countedExchange) Step(challenge []byte) ([]byte, error) {
	out, err := e.SASLExchange.Step(challenge)
	if err == nil && e.Complete() && !e.reported {
		e.reported = true
		e.done()
	}
	return out, err
}

// gssapiSession is a lock-core session authenticated as name from its
// keytab, with its exchanges counted.
func gssapiSession(t *testing.T, k *sandbox.KDC, servers []string, name string, opts ...lockops.SessionOption) (*lockops.Session, *countingGSSAPI) {
	t.Helper()
	g, err := sasl.NewGSSAPI(sasl.GSSAPIOptions{Principal: name, Keytab: k.Keytab(name), Krb5Conf: k.Krb5Conf()})
	if err != nil {
		t.Fatal(err)
	}
	m := &countingGSSAPI{GSSAPI: g}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := lockops.Connect(ctx, servers, append(opts, lockops.WithSASL(m))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, m
}

// closeIfFailed closes s before the cleanups of the locks held on it
// (cleanups run last first): after a failure the session may never
// authenticate again, and their release would wait for it forever.
func closeIfFailed(t *testing.T, s *lockops.Session) {
	t.Cleanup(func() {
		if t.Failed() {
			s.Close()
		}
	})
}

// kerberosOnly is the ACL of a lock parent only principal may use.
func kerberosOnly(k *sandbox.KDC, name string) []zk.ACL {
	return []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: k.Principal(name)}}
}

// TestGSSAPILeaderKill: on the Kerberos ensemble, alice's session is on
// the leader, holds a lock on a parent only sasl:alice@REALM may use, and
// `zklock run` as alice waits behind it. The leader is killed: the session
// moves to another member, where it must run GSSAPI again (the server,
// which requires SASL, closes a connection that does not, and the parent
// refuses it); run, whose connection is dropped by the election too, gets
// its turn only after it did the same.
func TestGSSAPILeaderKill(t *testing.T) {
	k, c, servers := kerberos.Ensemble(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	leader, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The host provider shuffles the servers: connect until the session
	// is on the leader, so that the kill moves it (each try costs an
	// exchange of a few milliseconds).
	var alice *lockops.Session
	var mech *countingGSSAPI
	for range 30 {
		alice, mech = gssapiSession(t, k, servers, "alice")
		if alice.Server() == servers[leader] {
			break
		}
		alice.Close()
	}
	if alice.Server() != servers[leader] {
		t.Fatalf("no session landed on the leader %s in 30 tries", servers[leader])
	}
	p := testPath(t)
	mkdirsAs(t, alice, p, kerberosOnly(k, "alice"))
	holder := holdOver(t, alice, p, ordering.LockHolding)
	closeIfFailed(t, alice)
	pr := startBinary(t, nil, append(gssapiFlags(k, strings.Join(servers, ","), "alice"),
		"--session-timeout", "10s", "--connect-timeout", "40s", "run", p, "--", "sh", "-c", `echo "$ZKLOCK_NODE"`)...)
	eventually(t, 20*time.Second, "run's node to queue", func() bool {
		kids, _, _ := alice.ChildrenStat(context.Background(), p)
		return len(kids) == 2
	})
	gen, before := alice.Generation(), len(mech.exchanges())
	if err := c.Members()[leader].Kill(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Members()[leader].Restart(context.Background()) })
	eventually(t, 30*time.Second, "the holder's session to move to another member", func() bool {
		return alice.State() == lockops.SessionConnected && alice.Server() != servers[leader]
	})
	if alice.Generation() != gen {
		t.Fatalf("the holder's session was replaced: the test wants the same session on another member")
	}
	after := mech.exchanges()
	if len(after) <= before || !slices.Contains(after[before:], alice.Server()) {
		t.Fatalf("GSSAPI exchanges %v: none with %s, where the session moved", after, alice.Server())
	}
	if _, _, err := alice.ChildrenStat(context.Background(), p); err != nil {
		t.Fatalf("the alice-only parent after the move: %v", err)
	}
	if err := holder.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code := pr.wait(t, 40*time.Second); code != 0 || !strings.HasPrefix(pr.out.String(), p+"/") {
		t.Fatalf("run after the election: code %d, out %q, stderr %q", code, pr.out.String(), pr.err.String())
	}
	t.Logf("session moved from %s to %s; GSSAPI exchanges: %v", servers[leader], alice.Server(), after)
}

// TestGSSAPISessionExpiry: a holder's link (through a proxy) is cut until
// the server expires its session; the new session go-zookeeper makes must
// run GSSAPI again before anything else, or the server closes it and the
// sasl:alice@REALM parent refuses it. It lists the parent and takes the
// lock again.
func TestGSSAPISessionExpiry(t *testing.T) {
	k, server := kerberosZK(t)
	alice, _ := gssapiSession(t, k, []string{server}, "alice")
	p := testPath(t)
	mkdirsAs(t, alice, p, kerberosOnly(k, "alice"))
	px, err := sandbox.NewProxy(server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	// The proxy's name must be the service principal's host: localhost.
	s, mech := gssapiSession(t, k, []string{sandboxtest.Localhost(t, px.Addr())}, "alice", lockops.WithSessionTimeout(4*time.Second))
	holder := holdOver(t, s, p, ordering.LockHolding)
	closeIfFailed(t, s)
	node, gen, id, before := holder.Node(), s.Generation(), s.ID(), len(mech.exchanges())

	px.Cut()
	eventually(t, 60*time.Second, "the server to expire the cut session (its lock node gone)", func() bool {
		kids, _, err := alice.ChildrenStat(context.Background(), p)
		return err == nil && !slices.Contains(kids, node)
	})
	px.Restore()
	eventually(t, 60*time.Second, "a new session, authenticated", func() bool {
		return s.Generation() > gen && s.State() == lockops.SessionConnected
	})
	if s.ID() == id {
		t.Fatalf("session %x kept: the test wants a new session", id)
	}
	if n := len(mech.exchanges()); n <= before {
		t.Fatalf("%d GSSAPI exchanges before the expiry and %d after: the new session did not run one", before, n)
	}
	if _, _, err := s.ChildrenStat(context.Background(), p); err != nil {
		t.Fatalf("the alice-only parent from the new session: %v", err)
	}
	again := holdOver(t, s, p, ordering.LockHolding)
	closeIfFailed(t, s)
	t.Logf("session %x expired; new session %x holds %s; %d GSSAPI exchanges in all", id, s.ID(), again.Node(), len(mech.exchanges()))
}

// TestGSSAPICredentialCache: with no keytab, zklock uses the credential
// cache kinit made (KRB5CCNAME): as alice it lists the alice-only parent,
// as bob it is refused; a cache whose ticket has expired is one line that
// says so and names kinit, at once.
func TestGSSAPICredentialCache(t *testing.T) {
	k, server := kerberosZK(t)
	alice, _ := gssapiSession(t, k, []string{server}, "alice")
	p := testPath(t)
	mkdirsAs(t, alice, p, kerberosOnly(k, "alice"))
	holder := holdOver(t, alice, p, ordering.LockHolding)
	dir := t.TempDir()
	cache := func(name string, life time.Duration) []string {
		cc := filepath.Join(dir, name+".cc")
		if err := k.Kinit(t.Context(), name, cc, life); err != nil {
			t.Fatal(err)
		}
		return []string{"KRB5CCNAME=FILE:" + cc}
	}
	flags := []string{"--servers=" + server, "--sasl", "GSSAPI", "--krb5-conf", k.Krb5Conf()}

	out, errOut, code := runBinary(t, cache("alice", 0), append(flags, "ls", "--json", p)...)
	if code != 0 {
		t.Fatalf("ls from alice's cache: code %d, stderr %q", code, errOut)
	}
	if jp := lsJSON(t, out)[0]; len(jp.Queue) != 1 || jp.Queue[0].Node != holder.Node() {
		t.Fatalf("ls from alice's cache: %+v", jp)
	}
	_, errOut, code = runBinary(t, cache("bob", 0), append(flags, "ls", "--json", p)...)
	assertOneLineFailure(t, errOut, code, "NoAuth")

	short := cache("alice", 2*time.Second)
	cc := strings.TrimPrefix(short[0], "KRB5CCNAME=FILE:")
	eventually(t, 20*time.Second, "the 2-second ticket to expire", func() bool {
		ok, err := k.TicketValid(t.Context(), cc)
		return err == nil && !ok
	})
	start := time.Now()
	_, errOut, code = runBinary(t, short, append(flags, "--connect-timeout", "30s", "ls", p)...)
	t.Logf("expired ticket: failed in %v: %s", time.Since(start), strings.TrimSpace(errOut))
	assertOneLineFailure(t, errOut, code, "the ticket of "+k.Principal("alice")+" in credential cache "+cc+" expired at ")
	if !strings.Contains(errOut, "run kinit (again") {
		t.Fatalf("the expired ticket's line does not name kinit: %q", errOut)
	}
}
