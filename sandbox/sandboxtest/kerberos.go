package sandboxtest

import (
	"context"
	"net"
	"sync"
	"testing"

	"github.com/zklock/zklock/sandbox"
)

// Kerberos is a package's throwaway Kerberos realm (principals alice,
// bob and the service zookeeper/localhost) and a standalone ZooKeeper
// that requires SASL and is that service: started by the first GSSAPI
// test that asks, stopped by Close from TestMain, a failed start failing
// every test that asks (as Shared).
type Kerberos struct {
	// Hint opens the failure message: what needs the realm.
	Hint string

	once sync.Once
	kdc  *sandbox.KDC
	c    *sandbox.Cluster
	err  error

	ensOnce sync.Once
	ens     *sandbox.Cluster
	ensErr  error
}

// Start returns the realm and the server as localhost:port (the host of
// its service principal), starting them on first use.
func (k *Kerberos) Start(t testing.TB) (*sandbox.KDC, string) {
	t.Helper()
	Need(t)
	k.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startWait)
		defer cancel()
		k.kdc, k.err = sandbox.StartKDC(ctx, sandbox.KDCOptions{
			Principals: []string{"zookeeper/localhost", "alice", "bob"}})
		if k.err == nil {
			k.c, k.err = sandbox.Start(ctx, sandbox.Options{SASL: k.kdc.ZooKeeperSASL("zookeeper/localhost")})
		}
	})
	if k.err != nil {
		t.Fatalf("%s: %v", k.Hint, k.err)
	}
	return k.kdc, Localhost(t, k.c.Servers()[0])
}

// Ensemble returns the realm and a 3-member ensemble of the same
// service (every member holds zookeeper/localhost's keytab, as members
// behind one name do), started on first use: for elections under
// GSSAPI. Its servers are given as localhost:port.
func (k *Kerberos) Ensemble(t testing.TB) (*sandbox.KDC, *sandbox.Cluster, []string) {
	t.Helper()
	kdc, _ := k.Start(t)
	k.ensOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startWait)
		defer cancel()
		k.ens, k.ensErr = sandbox.Start(ctx, sandbox.Options{Members: 3, SASL: kdc.ZooKeeperSASL("zookeeper/localhost")})
	})
	if k.ensErr != nil {
		t.Fatalf("%s (a 3-member Kerberos ensemble): %v", k.Hint, k.ensErr)
	}
	var servers []string
	for _, s := range k.ens.Servers() {
		servers = append(servers, Localhost(t, s))
	}
	return kdc, k.ens, servers
}

// Close ends the servers and the realm, if they were started.
func (k *Kerberos) Close() {
	if k.ens != nil {
		k.ens.Close()
	}
	if k.c != nil {
		k.c.Close()
	}
	if k.kdc != nil {
		k.kdc.Close()
	}
}

// Localhost renames a loopback host:port to localhost:port, the name a
// Kerberos service principal carries.
func Localhost(t testing.TB, addr string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("localhost", port)
}
