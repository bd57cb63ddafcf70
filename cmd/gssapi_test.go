package cmd

import (
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/sasl"
	"github.com/zklock/zklock/third_party/zk"
)

// kerberos is the package's Kerberos realm and its ZooKeeper, for every
// GSSAPI test.
var kerberos = &sandboxtest.Kerberos{Hint: "cmd GSSAPI tests need a Kerberos KDC and ZooKeeper"}

// kerberosZK returns the realm and the server as localhost:port.
func kerberosZK(t *testing.T) (*sandbox.KDC, string) { return kerberos.Start(t) }

// closeKerberos ends the realm and its server (TestMain).
func closeKerberos() { kerberos.Close() }

// gssapiFlags are the flags that make zklock authenticate as name.
func gssapiFlags(k *sandbox.KDC, server, name string) []string {
	return []string{"--servers=" + server, "--sasl", "GSSAPI", "--sasl-keytab", k.Keytab(name),
		"--sasl-principal", name, "--krb5-conf", k.Krb5Conf()}
}

// gssapiConn is a go-zookeeper connection authenticated as name, with
// the server's name kept as given (no DNS step), as lockops connects.
func gssapiConn(t *testing.T, k *sandbox.KDC, server, name string) *zk.Conn {
	t.Helper()
	g, err := sasl.NewGSSAPI(sasl.GSSAPIOptions{Principal: name, Keytab: k.Keytab(name), Krb5Conf: k.Krb5Conf()})
	if err != nil {
		t.Fatal(err)
	}
	authed := make(chan struct{})
	var once sync.Once
	c, _, err := zk.Connect([]string{server}, 10*time.Second, zk.WithLogInfo(false), zk.WithHostProvider(&givenHosts{}),
		zk.WithSASL(g), zk.WithEventCallback(func(ev zk.Event) {
			if ev.State == zk.StateSaslAuthenticated {
				once.Do(func() { close(authed) })
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	select {
	case <-authed:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: no SASL GSSAPI session within 20s", name)
	}
	return c
}

// givenHosts is a zk.HostProvider that keeps the servers as given.
type givenHosts struct {
	mu      sync.Mutex
	servers []string
	next    int
}

func (h *givenHosts) Init(servers []string) error { h.servers = servers; return nil }
func (h *givenHosts) Len() int                    { return len(h.servers) }
func (h *givenHosts) Connected()                  {}
func (h *givenHosts) Next() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.servers[h.next%len(h.servers)]
	h.next++
	return s, h.next%len(h.servers) == 0
}

// TestGSSAPILs: on a parent only sasl:alice@REALM may use, zklock as alice
// (Kerberos, keytab) lists the queue; as bob it is refused with NoAuth.
func TestGSSAPILs(t *testing.T) {
	k, server := kerberosZK(t)
	alice := gssapiConn(t, k, server, "alice")
	p := testPath(t)
	mkdirs(t, alice, p, []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: k.Principal("alice")}})
	node, err := alice.CreateProtectedEphemeralSequential(p+"/lock-", nil, []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: k.Principal("alice")}})
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runBinary(t, nil, append(gssapiFlags(k, server, "alice"), "ls", "--json", p)...)
	if code != 0 {
		t.Fatalf("ls as alice: code %d, stderr %q", code, errOut)
	}
	if jp := lsJSON(t, out)[0]; len(jp.Queue) != 1 || p+"/"+jp.Queue[0].Node != node {
		t.Fatalf("ls as alice: %+v, want the one node %s", jp, node)
	}
	_, errOut, code = runBinary(t, nil, append(gssapiFlags(k, server, "bob"), "ls", "--json", p)...)
	assertOneLineFailure(t, errOut, code, "NoAuth")
}

// TestGSSAPIRefusals: each Kerberos failure is one line naming the cause
// and the fix, and zklock stops at once instead of retrying until
// --connect-timeout (the time is logged; speed is not asserted).
func TestGSSAPIRefusals(t *testing.T) {
	k, server := kerberosZK(t)
	down, err := sandbox.StartKDC(t.Context(), sandbox.KDCOptions{Realm: "DOWN.TEST", Principals: []string{"alice"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { down.Close() })
	if err := down.Stop(); err != nil {
		t.Fatal(err)
	}
	plain := sandboxtest.Localhost(t, testCluster(t).Servers()[0])
	alice := gssapiFlags(k, server, "alice")
	missing := filepath.Join(t.TempDir(), "nope.keytab")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing keytab", []string{"--servers=" + server, "--sasl", "GSSAPI", "--sasl-keytab", missing, "--sasl-principal", "alice", "--krb5-conf", k.Krb5Conf()},
			"keytab " + missing},
		{"principal not in the keytab", []string{"--servers=" + server, "--sasl", "GSSAPI", "--sasl-keytab", k.Keytab("alice"), "--sasl-principal", "carol", "--krb5-conf", k.Krb5Conf()},
			"has no key for carol@" + k.Realm()},
		{"wrong service", append(alice, "--sasl-service", "nosuch"), "no such service principal: ticket for nosuch/localhost"},
		{"a server principal the realm lacks", append(gssapiFlags(k, "127.0.0.1:"+strings.Split(server, ":")[1], "alice"), "--sasl-server-principal", "zookeeper/elsewhere.example.com"),
			"no such service principal: ticket for zookeeper/elsewhere.example.com@" + k.Realm()},
		{"KDC down", []string{"--servers=" + server, "--sasl", "GSSAPI", "--sasl-keytab", down.Keytab("alice"), "--sasl-principal", "alice", "--krb5-conf", down.Krb5Conf()},
			"no Kerberos KDC answered"},
		{"server without SASL", gssapiFlags(k, plain, "alice"), "SASL is not configured on it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, errOut, code := runBinary(t, nil, append(tt.args, "--connect-timeout", "30s", "ls", "/")...)
			t.Logf("failed in %v: %s", time.Since(start), strings.TrimSpace(errOut))
			assertOneLineFailure(t, errOut, code, tt.want)
		})
	}
}

// TestGSSAPIDoctor: doctor says which mechanism it used, as whom, and what
// the server answered, accepted or refused.
func TestGSSAPIDoctor(t *testing.T) {
	k, server := kerberosZK(t)
	out, errOut, code := runBinary(t, nil, append(gssapiFlags(k, server, "alice"), "doctor", "-o", "json")...)
	if code != 0 {
		t.Fatalf("doctor: code %d, stderr %q\n%s", code, errOut, out)
	}
	r := doctorJSON(t, out)
	if r.SASL == nil || r.SASL.Mechanism != "GSSAPI" || r.SASL.Identity != k.Principal("alice") {
		t.Fatalf("doctor's sasl: %+v", r.SASL)
	}
	if len(r.Members) != 1 || r.Members[0].SASL != "accepted" || r.Members[0].SASLPrincipal != k.Principal("zookeeper/localhost") {
		t.Fatalf("doctor's member: %+v", r.Members)
	}
	text, _, _ := runBinary(t, nil, append(gssapiFlags(k, server, "alice"), "doctor")...)
	if want := "SASL        GSSAPI as " + k.Principal("alice") + " to " + k.Principal("zookeeper/localhost") + ": accepted"; !strings.Contains(text, want) {
		t.Errorf("doctor text lacks %q:\n%s", want, text)
	}

	out, _, _ = runBinary(t, nil, append(gssapiFlags(k, server, "alice"), "--sasl-service", "nosuch", "doctor", "-o", "json")...)
	r = doctorJSON(t, out)
	if m := r.Members[0]; !strings.HasPrefix(m.SASL, "refused: ") || !strings.Contains(m.SASL, "no such service principal") || m.Usable ||
		m.SASLPrincipal != k.Principal("nosuch/localhost") {
		t.Fatalf("doctor with a wrong service: %+v", m)
	}

	// Through 127.0.0.1, the principal is the canonical host's.
	_, port, _ := net.SplitHostPort(server)
	out, _, _ = runBinary(t, nil, append(gssapiFlags(k, "127.0.0.1:"+port, "alice"), "doctor", "-o", "json")...)
	if m := doctorJSON(t, out).Members[0]; m.SASL != "accepted" || m.SASLPrincipal != k.Principal("zookeeper/localhost") {
		t.Fatalf("doctor through 127.0.0.1: %+v", m)
	}
}
