package lockops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/third_party/zk"
)

// waitState waits (bounded) until the Session reaches want.
func waitState(t testing.TB, s *Session, want SessionState, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		st, _, ch := s.snapshot()
		if st == want {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("session state %s after %v, want %s", s.State(), d, want)
		}
	}
}

func TestConnectUnreachable(t *testing.T) {
	// A port that refuses: said at once, naming the server.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Connect(ctx, []string{"127.0.0.1:1"})
	var le *LinkError
	if !errors.As(err, &le) || le.Problem != LinkRefused || le.Server != "127.0.0.1:1" {
		t.Fatalf("Connect to a closed port: %v, want a LinkError LinkRefused naming it", err)
	}
	// Said at once: by the refusal, not at the deadline (how fast is
	// BenchmarkConnectRefused's).
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Errorf("a refused port was said at the deadline: %v", err)
	}

	// A port that accepts and never answers: ErrUnreachable at the
	// deadline, naming the server.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel = context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	_, err = Connect(ctx, []string{l.Addr().String()})
	if !errors.Is(err, ErrUnreachable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Connect to a silent port: %v, want ErrUnreachable and DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), l.Addr().String()) {
		t.Errorf("error does not name the server: %v", err)
	}
}

// BenchmarkConnectRefused: how long Connect takes to say that a port
// refuses (TestConnectUnreachable asserts it says so before its deadline).
func BenchmarkConnectRefused(b *testing.B) {
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := Connect(ctx, []string{"127.0.0.1:1"})
		cancel()
		var le *LinkError
		if !errors.As(err, &le) || le.Problem != LinkRefused {
			b.Fatalf("Connect to a closed port: %v", err)
		}
	}
}

func TestSessionStatesThroughProxy(t *testing.T) {
	px := newTestProxy(t)
	ctx := tctx(t, 30*time.Second)
	// A short cut: suspended, then the same session back. (go-zookeeper
	// waits a second before it redials a lone server, hence 4 s.)
	s, err := Connect(ctx, []string{px.Addr()}, WithSessionTimeout(4*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, gen := s.ID(), s.Generation()
	if id == 0 || gen != 1 || s.State() != SessionConnected {
		t.Fatalf("after Connect: id 0x%x gen %d state %s", id, gen, s.State())
	}
	if s.Timeout() != 4*time.Second {
		t.Errorf("negotiated timeout %v, want 4s", s.Timeout())
	}
	ch := s.Changed()
	px.Cut()
	waitClosed(t, ch, 3*time.Second, "Changed after a cut")
	waitState(t, s, SessionSuspended, 3*time.Second)
	px.Restore()
	waitState(t, s, SessionConnected, 5*time.Second)
	if s.ID() != id || s.Generation() != gen {
		t.Fatalf("after a short cut: id 0x%x gen %d, want the same session", s.ID(), s.Generation())
	}
	s.Close()
	if s.State() != SessionClosed {
		t.Fatalf("after Close: %s", s.State())
	}

	// A cut past the session timeout: expired (presumed while down), then
	// a new session.
	s, err = Connect(ctx, []string{px.Addr()}, WithSessionTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id, gen = s.ID(), s.Generation()
	if !serverHasSession(t, ctx, id) {
		t.Fatalf("the server's dump does not list the live session 0x%x", id)
	}
	px.Cut()
	waitState(t, s, SessionSuspended, 3*time.Second)
	waitState(t, s, SessionExpired, 3*time.Second)
	// The server must have expired it too, so that it is not reused: its
	// session tracker (dump) no longer lists it.
	eventually(t, 10*time.Second, "the server to expire the session", func() bool { return !serverHasSession(t, ctx, id) })
	px.Restore()
	waitState(t, s, SessionConnected, 10*time.Second)
	if s.ID() == id || s.Generation() != gen+1 {
		t.Fatalf("after a long cut: id 0x%x gen %d, want a new session, generation %d", s.ID(), s.Generation(), gen+1)
	}
}

func TestDigestAuthSurvivesReconnect(t *testing.T) {
	px := newTestProxy(t)
	ctx := tctx(t, 20*time.Second)
	p := lockPath(t)
	s, err := Connect(ctx, []string{px.Addr()}, WithSessionTimeout(4*time.Second), WithDigestAuth("alice", "secret"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acl := zk.DigestACL(zk.PermAll, "alice", "secret")
	if err := NewLock(s, p, WithACL(acl)).makeParents(ctx); err != nil {
		t.Fatal(err)
	}
	anon := connect(t)
	if _, _, err := anon.conn.Get(p); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("anonymous read of a digest-only node: %v, want ErrNoAuth", err)
	}
	px.Cut()
	waitState(t, s, SessionSuspended, 3*time.Second)
	px.Restore()
	waitState(t, s, SessionConnected, 5*time.Second)
	l := NewLock(s, p, WithACL(acl))
	if err := l.Acquire(ctx); err != nil {
		t.Fatalf("acquire after reconnect (credentials re-sent?): %v", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// serverHasSession says whether the server's session tracker (dump, on
// the leader: the sandbox's standalone server) lists session id.
func serverHasSession(t testing.TB, ctx context.Context, id int64) bool {
	t.Helper()
	out, err := fourletter.Ask(ctx, testServers(t)[0], "dump")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(out, fmt.Sprintf("0x%x", id))
}
