package sasl

import (
	"errors"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// kerberosZK is the package's Kerberos realm and the ZooKeeper whose
// server is zookeeper/localhost in it (required SASL).
var kerberosZK = &sandboxtest.Kerberos{Hint: "Kerberos sandbox"}

// kerberos returns the shared realm and the server as localhost:port.
func kerberos(t *testing.T) (*sandbox.KDC, string) { return kerberosZK.Start(t) }

// closeKerberos ends the shared realm and server (TestMain).
func closeKerberos() { kerberosZK.Close() }

func gssapiAs(t *testing.T, k *sandbox.KDC, name string) *GSSAPI {
	t.Helper()
	g, err := NewGSSAPI(GSSAPIOptions{Principal: name, Keytab: k.Keytab(name), Krb5Conf: k.Krb5Conf()})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGSSAPIAgainstServer authenticates as alice by Kerberos and uses a
// node only sasl:alice@REALM may read; bob is refused it.
func TestGSSAPIAgainstServer(t *testing.T) {
	k, addr := kerberos(t)
	c, ev := connectNamed(t, addr, gssapiAs(t, k, "alice"), nil)
	ev.wait(t, zk.StateSaslAuthenticated, 1, 20*time.Second)
	path := "/gssapi-" + t.Name()
	acl := []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: k.Principal("alice")}}
	if _, err := c.Create(path, []byte("x"), 0, acl); err != nil {
		t.Fatalf("create as alice: %v", err)
	}
	if _, _, err := c.Get(path); err != nil {
		t.Fatalf("get as alice: %v", err)
	}
	bob, bev := connectNamed(t, addr, gssapiAs(t, k, "bob"), nil)
	bev.wait(t, zk.StateSaslAuthenticated, 1, 20*time.Second)
	if _, _, err := bob.Get(path); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("get as bob: %v, want ErrNoAuth", err)
	}
}

// TestGSSAPIAfterReconnect cuts the link under a Kerberos session: the
// new connection must authenticate again (a new AP-REQ) before anything
// else, or alice's node turns unreadable.
func TestGSSAPIAfterReconnect(t *testing.T) {
	k, addr := kerberos(t)
	proxy, err := sandbox.NewProxy(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	_, port, _ := net.SplitHostPort(proxy.Addr())
	c, ev := connectNamed(t, "localhost:"+port, gssapiAs(t, k, "alice"), nil)
	ev.wait(t, zk.StateSaslAuthenticated, 1, 20*time.Second)
	path := "/gssapi-" + t.Name()
	if _, err := c.Create(path, []byte("x"), 0, []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: k.Principal("alice")}}); err != nil {
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

// TestGSSAPIFailures: each Kerberos failure ends the connection with its
// sentinel, not a reconnect loop.
func TestGSSAPIFailures(t *testing.T) {
	k, addr := kerberos(t)
	_, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	tests := []struct {
		name string
		addr string
		mech func(t *testing.T) zk.SASLMechanism
		want error
	}{
		{"unknown service", addr, func(t *testing.T) zk.SASLMechanism {
			g, err := NewGSSAPI(GSSAPIOptions{Principal: "alice", Keytab: k.Keytab("alice"), Krb5Conf: k.Krb5Conf(), Service: "nosuch"})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}, ErrServicePrincipal},
		{"a server principal the realm lacks", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)), func(t *testing.T) zk.SASLMechanism {
			g, err := NewGSSAPI(GSSAPIOptions{Principal: "alice", Keytab: k.Keytab("alice"), Krb5Conf: k.Krb5Conf(), ServerPrincipal: "zookeeper/nosuch.example.com"})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}, ErrServicePrincipal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ev := connectNamed(t, tt.addr, tt.mech(t), nil)
			last := ev.wait(t, zk.StateAuthFailed, 1, failWait)
			if !errors.Is(last.Err, tt.want) || !errors.Is(last.Err, zk.ErrSASL) {
				t.Fatalf("event Err = %v, want %v", last.Err, tt.want)
			}
			if _, _, err := c.Get("/"); !errors.Is(err, tt.want) {
				t.Errorf("request: %v, want %v", err, tt.want)
			}
		})
	}
}

// connectNamed is connect with the server names kept as given (no DNS
// step), as lockops connects: the service principal is named after the
// host given, so localhost must stay localhost.
func connectNamed(t *testing.T, addr string, mech zk.SASLMechanism, _ zk.Dialer) (*zk.Conn, *events) {
	t.Helper()
	ev := newEvents()
	c, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false), zk.WithHostProvider(&givenHosts{}),
		zk.WithEventCallback(ev.add), zk.WithLogger(nopLogger{}), zk.WithSASL(mech))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, ev
}

// givenHosts is a zk.HostProvider that hands out the servers as given.
type givenHosts struct {
	mu      sync.Mutex
	servers []string
	next    int
}

func (h *givenHosts) Init(servers []string) error {
	h.servers = servers
	return nil
}

func (h *givenHosts) Len() int { return len(h.servers) }

func (h *givenHosts) Next() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.servers[h.next%len(h.servers)]
	h.next++
	return s, h.next%len(h.servers) == 0
}

func (h *givenHosts) Connected() {}
