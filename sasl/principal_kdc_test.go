package sasl

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/zklock/zklock/third_party/zk"
)

// TestGSSAPIServerNames: against the realm's server, whose principal is
// zookeeper/localhost, a connect string of 127.0.0.1 or localhost
// authenticates with the host canonicalized (the Java client's default),
// as does a principal named outright; a principal the realm lacks is
// refused at once.
func TestGSSAPIServerNames(t *testing.T) {
	k, addr := kerberos(t)
	_, port, _ := net.SplitHostPort(addr)
	ip := net.JoinHostPort("127.0.0.1", port)
	with := func(o GSSAPIOptions) *GSSAPI {
		o.Principal, o.Keytab, o.Krb5Conf = "alice", k.Keytab("alice"), k.Krb5Conf()
		g, err := NewGSSAPI(o)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	tests := []struct {
		name   string
		server string
		o      GSSAPIOptions
		spn    string
	}{
		{"an address, canonicalized", ip, GSSAPIOptions{}, "zookeeper/localhost"},
		{"a short name, canonicalized", addr, GSSAPIOptions{}, "zookeeper/localhost"},
		// The Java client names an address written by its reverse name even
		// with canonicalization off (InetSocketAddress.getHostName).
		{"an address, not canonicalized", ip, GSSAPIOptions{HostAsWritten: true}, "zookeeper/localhost"},
		{"the principal named, with its realm", ip, GSSAPIOptions{ServerPrincipal: k.Principal("zookeeper/localhost")}, "zookeeper/localhost"},
		{"the principal named, without a realm", ip, GSSAPIOptions{ServerPrincipal: "zookeeper/localhost", HostAsWritten: true}, "zookeeper/localhost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := with(tt.o)
			remote := &net.TCPAddr{IP: net.ParseIP("127.0.0.1")}
			if got := g.ServicePrincipal(t.Context(), tt.server, remote); got != tt.spn {
				t.Errorf("ServicePrincipal(%s) = %q, want %q", tt.server, got, tt.spn)
			}
			c, ev := connectNamed(t, tt.server, g, nil)
			ev.wait(t, zk.StateSaslAuthenticated, 1, 20*time.Second)
			if _, _, err := c.Get("/"); err != nil {
				t.Fatalf("get as alice through %s: %v", tt.server, err)
			}
		})
	}
	t.Run("a principal the realm lacks", func(t *testing.T) {
		start := time.Now()
		_, ev := connectNamed(t, ip, with(GSSAPIOptions{ServerPrincipal: "zookeeper/elsewhere.example.com@" + k.Realm()}), nil)
		last := ev.wait(t, zk.StateAuthFailed, 1, failWait)
		if !errors.Is(last.Err, ErrServicePrincipal) {
			t.Fatalf("event Err = %v, want ErrServicePrincipal", last.Err)
		}
		t.Logf("refused in %v: %v", time.Since(start), last.Err)
	})
}

// TestGSSAPIHostName: the machine's own host name, when it is a name of
// loopback (as /etc/hosts often makes it), is canonicalized to loopback's
// canonical name and authenticates; written as it is, the principal
// names it, which the realm lacks.
func TestGSSAPIHostName(t *testing.T) {
	k, addr := kerberos(t)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := net.DefaultResolver.LookupHost(t.Context(), host)
	if err != nil || len(addrs) == 0 || !net.ParseIP(addrs[0]).IsLoopback() || host == "localhost" {
		t.Skipf("this machine's name %q is not another name of loopback (%v, %v)", host, addrs, err)
	}
	_, port, _ := net.SplitHostPort(addr)
	server := net.JoinHostPort(host, port)
	g := gssapiAs(t, k, "alice")
	c, ev := connectNamed(t, server, g, nil)
	ev.wait(t, zk.StateSaslAuthenticated, 1, 20*time.Second)
	if _, _, err := c.Get("/"); err != nil {
		t.Fatalf("get through %s: %v", server, err)
	}
	asWritten, err := NewGSSAPI(GSSAPIOptions{Principal: "alice", Keytab: k.Keytab("alice"), Krb5Conf: k.Krb5Conf(), HostAsWritten: true})
	if err != nil {
		t.Fatal(err)
	}
	_, ev = connectNamed(t, server, asWritten, nil)
	if last := ev.wait(t, zk.StateAuthFailed, 1, failWait); !errors.Is(last.Err, ErrServicePrincipal) {
		t.Fatalf("as written: %v, want ErrServicePrincipal", last.Err)
	}
}

// TestLoopbackCanonicalName: the sandbox realm's server principal is
// zookeeper/localhost (sandboxtest.Kerberos), which the GSSAPI tests reach
// through 127.0.0.1 only if that is loopback's canonical name here, as
// the Java client would find it (its first /etc/hosts name).
func TestLoopbackCanonicalName(t *testing.T) {
	if got := serverHost(t.Context(), net.DefaultResolver, "127.0.0.1:2181", nil, true); got != "localhost" {
		t.Fatalf("127.0.0.1 canonicalizes to %q on this machine; the sandbox's service principal zookeeper/localhost would not match", got)
	}
}
