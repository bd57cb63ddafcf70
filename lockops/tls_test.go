package lockops

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// sharedTLS is a TLS standalone server (client certificates required),
// started by the first TLS test.
var sharedTLS = &sandboxtest.Shared{
	Options: sandbox.Options{TLS: &sandbox.TLSOptions{ClientAuth: sandbox.ClientAuthNeed}},
	Hint:    "lockops TLS tests need a real ZooKeeper",
}

func tlsCluster(t testing.TB) (*sandbox.Cluster, *tls.Config) {
	t.Helper()
	c := sharedTLS.Cluster(t)
	cfg, err := c.TLS().ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	return c, cfg
}

// fastBad bounds a connect that must fail for good: the verdict comes
// from the first failed handshake (or its probe), not from a timeout.
const fastBad = 5 * time.Second

func TestTLSConnectLockAndState(t *testing.T) {
	c, cfg := tlsCluster(t)
	ctx := tctx(t, 30*time.Second)
	s, err := Connect(ctx, c.SecureServers(), WithTLS(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Secure() || !s.HostnameVerified() {
		t.Errorf("Secure %v HostnameVerified %v, want both", s.Secure(), s.HostnameVerified())
	}
	st, ok := s.TLSState()
	if !ok || st.Version < tls.VersionTLS12 || len(st.PeerCertificates) == 0 {
		t.Fatalf("TLSState = %+v, %v", st, ok)
	}
	if got := st.PeerCertificates[0].Subject.CommonName; got != "zklock sandbox server" {
		t.Errorf("peer certificate CN %q", got)
	}
	// A lock over TLS, and the four-letter words through the same kind
	// of link.
	l := NewLock(s, "/tls/lock")
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := s.DialMember(ctx, c.SecureServers()[0])
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte("cons")); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(conn)
	conn.Close()
	if want := fmt.Sprintf("sid=0x%x", s.ID()); !strings.Contains(string(b), want) {
		t.Errorf("cons over TLS does not list the session (%s): %q", want, b)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestTLSChroot(t *testing.T) {
	c, cfg := tlsCluster(t)
	ctx := tctx(t, 30*time.Second)
	s, err := Connect(ctx, c.SecureServers(), WithTLS(cfg), WithChroot("/app"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.conn.Create("/app", nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	l := NewLock(s, "/locks/x")
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	if got := s.Rel(s.Abs("/locks/x")); got != "/locks/x" {
		t.Errorf("Rel(Abs(/locks/x)) = %q", got)
	}
	kids, _, err := s.conn.Children("/app/locks/x")
	if err != nil || len(kids) != 1 {
		t.Fatalf("children of /app/locks/x = %v, %v; want the lock's node", kids, err)
	}
}

// TestTLSLinkProblems connects in every wrong way the client can be
// wrong against a good TLS server, and checks each gives up within
// seconds with the LinkError that names the cause.
func TestTLSLinkProblems(t *testing.T) {
	c, good := tlsCluster(t)
	other := good.Clone()
	otherCA, err := os.ReadFile(c.TLS().OtherCA)
	if err != nil {
		t.Fatal(err)
	}
	other.RootCAs = x509.NewCertPool()
	other.RootCAs.AppendCertsFromPEM(otherCA)
	wrongName := good.Clone()
	wrongName.ServerName = "zk.elsewhere.example"
	later := good.Clone()
	later.Time = func() time.Time { return time.Now().Add(30 * 24 * time.Hour) } // past the server certificate's life
	noCert := good.Clone()
	noCert.Certificates = nil

	cases := []struct {
		name    string
		servers []string
		opts    []SessionOption
		want    LinkProblem
	}{
		{"unknown authority", c.SecureServers(), []SessionOption{WithTLS(other)}, LinkUnknownAuthority},
		{"name mismatch", c.SecureServers(), []SessionOption{WithTLS(wrongName)}, LinkNameMismatch},
		{"expired", c.SecureServers(), []SessionOption{WithTLS(later)}, LinkCertExpired},
		{"no client certificate", c.SecureServers(), []SessionOption{WithTLS(noCert)}, LinkClientCertRefused},
		{"TLS on a plain port", c.Servers(), []SessionOption{WithTLS(good)}, LinkNotTLS},
		{"plain on a TLS port", c.SecureServers(), nil, LinkRequiresTLS},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			start := time.Now()
			s, err := Connect(ctx, tc.servers, tc.opts...)
			if err == nil {
				s.Close()
				t.Fatal("Connect succeeded")
			}
			var le *LinkError
			if !errors.As(err, &le) || le.Problem != tc.want {
				t.Fatalf("Connect: %v; want a LinkError %q", err, tc.want)
			}
			if le.Server != tc.servers[0] {
				t.Errorf("LinkError names %q, want %q", le.Server, tc.servers[0])
			}
			if errors.Is(err, ErrUnreachable) {
				t.Errorf("a definitive failure reads as unreachable: %v", err)
			}
			if el := time.Since(start); el > fastBad {
				t.Errorf("gave up after %v, want within %v", el, fastBad)
			}
			t.Logf("%v after %v", err, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestTLSWithoutHostnameVerification: a certificate for another name is
// accepted, one from an unknown CA is still not.
func TestTLSWithoutHostnameVerification(t *testing.T) {
	c, good := tlsCluster(t)
	ctx := tctx(t, 30*time.Second)
	wrongName := good.Clone()
	wrongName.ServerName = "zk.elsewhere.example"
	s, err := Connect(ctx, c.SecureServers(), WithTLS(wrongName), WithoutHostnameVerification())
	if err != nil {
		t.Fatal(err)
	}
	if s.HostnameVerified() {
		t.Error("HostnameVerified with WithoutHostnameVerification")
	}
	s.Close()

	other := wrongName.Clone()
	other.RootCAs = x509.NewCertPool()
	b, _ := os.ReadFile(c.TLS().OtherCA)
	other.RootCAs.AppendCertsFromPEM(b)
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	_, err = Connect(cctx, c.SecureServers(), WithTLS(other), WithoutHostnameVerification())
	var le *LinkError
	if !errors.As(err, &le) || le.Problem != LinkUnknownAuthority {
		t.Fatalf("unknown CA without hostname verification: %v; want LinkUnknownAuthority", err)
	}
}

func TestNamedHosts(t *testing.T) {
	var h namedHosts
	if err := h.Init([]string{"a:1", "b:2", "c:3"}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := range 3 {
		s, retry := h.Next()
		seen[s] = true
		if retry {
			t.Errorf("retryStart on call %d", i)
		}
	}
	if len(seen) != 3 {
		t.Errorf("a turn gave %v", seen)
	}
	if _, retry := h.Next(); !retry {
		t.Error("no retryStart after a full turn")
	}
	h.Connected()
	for range 2 {
		if _, retry := h.Next(); retry {
			t.Error("retryStart right after Connected")
		}
	}
}

func TestDialProblem(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	unknown := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "zk9.invalid", IsNotFound: true}}
	flaky := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "server misbehaving", Name: "zk9", IsTemporary: true}}
	for _, tt := range []struct {
		err  error
		want LinkProblem
	}{
		{refused, LinkRefused},
		{unknown, LinkUnknownHost},
		{flaky, LinkDialFailed},
		{os.ErrDeadlineExceeded, LinkDialFailed},
	} {
		if got := dialProblem(tt.err); got != tt.want {
			t.Errorf("dialProblem(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
	if !LinkRefused.Definitive() || !LinkUnknownHost.Definitive() || LinkDialFailed.Definitive() {
		t.Error("refused and unknown hosts are told at once; other dial failures are retried")
	}
}
