package lockops

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"
)

// TestConnectPassesSilentMember: a member that accepts a link and never
// answers the connect request (paused: the kernel still accepts) costs a
// share of the session timeout, then the client tries the next member.
// go-zookeeper as released waited 10 x two thirds of the session timeout
// for that answer (66.7 s at 10 s), past any connect timeout: a `zklock
// run` that met a member gone silent during a leader kill could not reach
// the two live ones within 40 s.
func TestConnectPassesSilentMember(t *testing.T) {
	c := faultEnsemble(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	leader, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	silent := c.Members()[(leader+1)%3]
	if err := silent.Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = silent.Resume() })

	// The live members are held back until the silent one has been
	// dialled, so that the client meets it first whatever its shuffle.
	var mu sync.Mutex
	var dials []string
	d := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		mu.Lock()
		defer mu.Unlock()
		tried := false
		for _, a := range dials {
			tried = tried || a == silent.Addr()
		}
		if addr != silent.Addr() && !tried {
			return nil, errors.New("held back until the silent member is tried")
		}
		dials = append(dials, addr)
		return net.DialTimeout(network, addr, timeout)
	}
	// Well short of the 66.7 s the client once waited on the silent member,
	// well past the 3.3 s share it waits now.
	cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
	defer ccancel()
	s, err := Connect(cctx, c.Servers(), WithSessionTimeout(10*time.Second), WithDialer(d))
	if err != nil {
		t.Fatalf("connect with member %d silent: %v (dials %v)", silent.ID(), err, dials)
	}
	defer s.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(dials) < 2 || dials[0] != silent.Addr() || dials[1] == silent.Addr() {
		t.Fatalf("dials %v: want the silent member %s once, then a live one", dials, silent.Addr())
	}
	if got := s.conn.Server(); got == silent.Addr() {
		t.Fatalf("session on the silent member %s", got)
	}
}
