package sasl

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/third_party/zk"
)

// failWait bounds the wait for a refusal: a client that reconnects in a
// loop instead of stopping never gets there.
const failWait = 20 * time.Second

var users = map[string]string{"alice": "alice-secret", "bob": "bob-secret"}

// saslZK is the package's SASL server (required SASL, DIGEST-MD5 users).
var saslZK struct {
	once sync.Once
	c    *sandbox.Cluster
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if saslZK.c != nil {
		saslZK.c.Close()
	}
	closeKerberos()
	os.Exit(code)
}

// server returns the shared SASL server's address, starting it on first use.
func server(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real ZooKeeper (make test runs it; -short does not)")
	}
	saslZK.once.Do(func() {
		saslZK.c, saslZK.err = sandbox.Start(context.Background(), sandbox.Options{SASL: &sandbox.SASLOptions{Users: users}})
	})
	if saslZK.err != nil {
		t.Fatalf("SASL sandbox: %v", saslZK.err)
	}
	return saslZK.c.Servers()[0]
}

// events records a connection's session events for waits on conditions.
type events struct {
	mu  sync.Mutex
	evs []zk.Event
	ch  chan struct{}
}

func newEvents() *events { return &events{ch: make(chan struct{}, 1)} }

func (e *events) add(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	e.mu.Lock()
	e.evs = append(e.evs, ev)
	e.mu.Unlock()
	select {
	case e.ch <- struct{}{}:
	default:
	}
}

// count returns how many events of state st were seen, and the last one.
func (e *events) count(st zk.State) (int, zk.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, last := 0, zk.Event{}
	for _, ev := range e.evs {
		if ev.State == st {
			n, last = n+1, ev
		}
	}
	return n, last
}

// wait waits until n events of state st were seen, within d.
func (e *events) wait(t *testing.T, st zk.State, n int, d time.Duration) zk.Event {
	t.Helper()
	deadline := time.After(d)
	for {
		if got, last := e.count(st); got >= n {
			return last
		}
		select {
		case <-e.ch:
		case <-deadline:
			e.mu.Lock()
			defer e.mu.Unlock()
			t.Fatalf("no %d× %v within %v; events: %v", n, st, d, e.evs)
		}
	}
}

func connect(t *testing.T, addr string, mech zk.SASLMechanism, dialer zk.Dialer) (*zk.Conn, *events) {
	t.Helper()
	ev := newEvents()
	if dialer == nil {
		dialer = net.DialTimeout
	}
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false),
		zk.WithEventCallback(ev.add), zk.WithLogger(nopLogger{}), zk.WithSASL(mech), zk.WithDialer(dialer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, ev
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}

// TestDigestAgainstServer authenticates as alice and uses a node only
// sasl:alice may read.
func TestDigestAgainstServer(t *testing.T) {
	addr := server(t)
	c, ev := connect(t, addr, &Digest{User: "alice", Password: "alice-secret"}, nil)
	ev.wait(t, zk.StateSaslAuthenticated, 1, 20*time.Second)
	path := "/digest-" + t.Name()
	if _, err := c.Create(path, []byte("x"), 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "alice"}}); err != nil {
		t.Fatalf("create as alice: %v", err)
	}
	if _, _, err := c.Get(path); err != nil {
		t.Fatalf("get as alice: %v", err)
	}
	bob, bev := connect(t, addr, &Digest{User: "bob", Password: "bob-secret"}, nil)
	bev.wait(t, zk.StateSaslAuthenticated, 1, 20*time.Second)
	if _, _, err := bob.Get(path); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("get as bob: %v, want ErrNoAuth", err)
	}
}

// TestDigestFailures checks that each refusal ends the connection with a
// typed error within failWithin, not a reconnect loop.
func TestDigestFailures(t *testing.T) {
	addr := server(t)
	tests := []struct {
		name string
		mech zk.SASLMechanism
		want error
	}{
		{"wrong password", &Digest{User: "alice", Password: "nope"}, zk.ErrAuthFailed},
		{"unknown user", &Digest{User: "mallory", Password: "x"}, zk.ErrAuthFailed},
		{"no SASL to a server that requires it", nil, zk.ErrSASLRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			c, ev := connect(t, addr, tt.mech, nil)
			// A request, so that the client without SASL is refused too.
			_, _, reqErr := c.Get("/")
			last := ev.wait(t, zk.StateAuthFailed, 1, failWait)
			took := time.Since(start)
			var se *zk.SASLError
			if !errors.As(last.Err, &se) || !errors.Is(last.Err, tt.want) || !errors.Is(last.Err, zk.ErrSASL) {
				t.Fatalf("event Err = %v, want a *SASLError with %v", last.Err, tt.want)
			}
			if !errors.Is(reqErr, tt.want) {
				t.Errorf("request err = %v, want %v", reqErr, tt.want)
			}
			if _, _, err := c.Get("/"); !errors.Is(err, tt.want) {
				t.Errorf("request after the failure: %v, want %v", err, tt.want)
			}
			t.Logf("refused in %v", took) // the bound is the wait's deadline; speed is not asserted
			if c.State() != zk.StateAuthFailed {
				t.Errorf("State() = %v, want StateAuthFailed", c.State())
			}
		})
	}
}

// TestDigestAfterReconnect cuts the link under an authenticated session:
// the new connection must run the exchange again before anything else, or
// the node only sasl:alice may read turns unreadable (and the server,
// which requires SASL, closes the link).
func TestDigestAfterReconnect(t *testing.T) {
	addr := server(t)
	proxy, err := sandbox.NewProxy(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	c, ev := connect(t, proxy.Addr(), &Digest{User: "alice", Password: "alice-secret"}, nil)
	ev.wait(t, zk.StateSaslAuthenticated, 1, 20*time.Second)
	path := "/reconnect-" + t.Name()
	if _, err := c.Create(path, []byte("x"), 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "alice"}}); err != nil {
		t.Fatal(err)
	}
	id := c.SessionID()
	proxy.Cut()
	ev.wait(t, zk.StateDisconnected, 1, 20*time.Second)
	proxy.Restore()
	ev.wait(t, zk.StateSaslAuthenticated, 2, 20*time.Second)
	if c.SessionID() != id {
		t.Fatalf("session changed (%x to %x): the test wants a reconnect to the same session", id, c.SessionID())
	}
	if _, _, err := c.Get(path); err != nil {
		t.Fatalf("get after reconnect: %v", err)
	}
}

// TestDigestServerWithoutSASL: a server with no SASL configured answers
// the first SASL request with an empty token (its SASL server is null and
// processSasl catches the NullPointerException); the client stops with
// ErrNoChallenge instead of sending requests as nobody.
func TestDigestServerWithoutSASL(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a real ZooKeeper (make test runs it; -short does not)")
	}
	plain, err := sandbox.Start(t.Context(), sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Close() })
	c, ev := connect(t, plain.Servers()[0], &Digest{User: "alice", Password: "alice-secret"}, nil)
	last := ev.wait(t, zk.StateAuthFailed, 1, failWait)
	if !errors.Is(last.Err, ErrNoChallenge) {
		t.Fatalf("event Err = %v, want ErrNoChallenge", last.Err)
	}
	if _, _, err := c.Get("/"); !errors.Is(err, ErrNoChallenge) {
		t.Errorf("request: %v, want ErrNoChallenge", err)
	}
}
