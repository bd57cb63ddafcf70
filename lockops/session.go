package lockops

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zklock/zklock/third_party/zk"
)

// DefaultSessionTimeout is what Connect asks the ensemble for. Ten seconds
// (Kazoo's default) frees the lock of a crashed holder within ten seconds
// yet rides out a GC pause or a leader election on a healthy ensemble. The
// server clamps it to [2, 20] x its tickTime.
const DefaultSessionTimeout = 10 * time.Second

var (
	// ErrUnreachable: no member of the ensemble gave a session before the
	// caller's context ended.
	ErrUnreachable = errors.New("lockops: ensemble unreachable")
	// ErrSessionClosed: the Session was closed by its owner.
	ErrSessionClosed = errors.New("lockops: session closed")
	// ErrSessionExpired: the ZooKeeper session ended (the server expired
	// it, or the link was down for longer than the session timeout), and
	// every ephemeral node it owned is gone or about to go.
	ErrSessionExpired = errors.New("lockops: session expired")
)

// SessionState is the Session's view of its link and session (model.ConnState is the Watcher's, with its own states).
type SessionState int

const (
	// SessionConnecting: no session yet (before the first one).
	SessionConnecting SessionState = iota
	// SessionConnected: linked to a member with a live session.
	SessionConnected
	// SessionSuspended: the link is down; the session may still live on the
	// server, so ephemeral nodes and watches may survive a reconnect.
	SessionSuspended
	// SessionExpired: the session is gone (the server said so), or is
	// presumed gone: no reply for nine tenths of the session timeout, so
	// the server may have expired it by now (see leaseMeter). go-zookeeper then makes a new session by
	// itself; Generation tells them apart. A presumed expiry can be
	// followed by the same session coming back (SessionConnected, same
	// Generation) if the server had not expired it after all.
	SessionExpired
	// SessionClosed: Close was called.
	SessionClosed
)

func (c SessionState) String() string {
	switch c {
	case SessionConnecting:
		return "connecting"
	case SessionConnected:
		return "connected"
	case SessionSuspended:
		return "suspended"
	case SessionExpired:
		return "expired"
	case SessionClosed:
		return "closed"
	}
	return "unknown"
}

type sessionConfig struct {
	timeout  time.Duration
	chroot   string
	authUser string
	authPass string
	auth     bool
	dialer   zk.Dialer
	logger   zk.Logger
	// tls, when set, makes every link TLS (tls.go).
	tls          *tls.Config
	skipHostname bool
	// sasl, when set, authenticates every connection (sasl.go).
	sasl zk.SASLMechanism
}

// SessionOption configures Connect.
type SessionOption func(*sessionConfig)

// WithSessionTimeout sets the session timeout asked of the ensemble.
func WithSessionTimeout(d time.Duration) SessionOption {
	return func(c *sessionConfig) { c.timeout = d }
}

// WithChroot roots every path of the Session under p. go-zookeeper has no
// chroot of its own, so Session.Abs and Session.Rel apply it; everything in
// this package passes user paths through Abs.
func WithChroot(p string) SessionOption {
	return func(c *sessionConfig) { c.chroot = p }
}

// WithDigestAuth adds digest credentials right after the session is made.
// go-zookeeper re-sends them on every reconnect and on every new session.
func WithDigestAuth(user, password string) SessionOption {
	return func(c *sessionConfig) { c.authUser, c.authPass, c.auth = user, password, true }
}

// WithDialer replaces the TCP dialer (tests cut links with it).
func WithDialer(d zk.Dialer) SessionOption {
	return func(c *sessionConfig) { c.dialer = d }
}

// WithLogger receives go-zookeeper's log lines. By default they are
// discarded: the console draws on the terminal and must not be scribbled on.
func WithLogger(l zk.Logger) SessionOption {
	return func(c *sessionConfig) { c.logger = l }
}

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}

// Session owns one go-zookeeper connection. It is the only consumer of the
// connection's events and turns them into a SessionState that waiters read
// after Changed() closes, so no change is ever dropped (go-zookeeper's own
// event channel drops events when nobody reads it fast enough).
type Session struct {
	conn    *zk.Conn
	servers []string
	cfg     sessionConfig
	links   *linkBoard    // why links failed, until the first session
	loopEnd chan struct{} // closed when go-zookeeper's event channel closes

	mu       sync.Mutex
	state    SessionState
	id       int64
	gen      uint64
	changed  chan struct{}
	leaseT   *time.Timer // checks the lease (leaseMeter) at its deadline
	lease    *leaseMeter
	hints    map[string]joinAs
	closeErr error
	authErr  error // the *zk.SASLError that ended the connection (sasl.go)

	pipelined atomic.Int64 // listings that came with their create (tests read it)
}

// Connect dials the ensemble and waits for a session, bounded by ctx. When
// ctx ends first it closes the connection and returns an error wrapping
// ErrUnreachable (and ctx.Err()) that names the servers, with the last
// *LinkError seen on each. When every server has failed for good (see
// LinkProblem.Definitive: a certificate rejected, the other protocol on
// the port) it gives up at once with those *LinkErrors, without
// ErrUnreachable.
func Connect(ctx context.Context, servers []string, opts ...SessionOption) (*Session, error) {
	cfg := sessionConfig{timeout: DefaultSessionTimeout, logger: discardLogger{}}
	for _, o := range opts {
		o(&cfg)
	}
	if len(servers) == 0 {
		return nil, fmt.Errorf("lockops: connect: empty server list")
	}
	if cfg.skipHostname && cfg.tls == nil {
		return nil, fmt.Errorf("lockops: connect: WithoutHostnameVerification without WithTLS")
	}
	if cfg.chroot != "" {
		if err := ValidPath(cfg.chroot); err != nil {
			return nil, fmt.Errorf("lockops: chroot: %w", err)
		}
		if cfg.chroot == "/" {
			cfg.chroot = ""
		}
	}
	s := &Session{
		servers: append([]string(nil), servers...),
		cfg:     cfg,
		changed: make(chan struct{}),
		loopEnd: make(chan struct{}),
		hints:   map[string]joinAs{},
		lease:   newLeaseMeter(),
		links:   newLinkBoard(cfg),
	}
	// Hold mu across zk.Connect: its loop may call onEvent before Connect
	// returns, and onEvent needs s.conn.
	s.mu.Lock()
	conn, events, err := zk.Connect(servers, cfg.timeout,
		zk.WithLogger(cfg.logger), zk.WithLogInfo(false),
		zk.WithEventCallback(s.onEvent), zk.WithDialer(s.lease.dialer(s.links.dialer(cfg.dialer))),
		zk.WithHostProvider(&namedHosts{}), zk.WithSASL(cfg.sasl))
	if err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("lockops: connect %s: %w", strings.Join(servers, ","), err)
	}
	s.conn = conn
	s.leaseT = time.AfterFunc(s.cfg.timeout/10, s.checkLease)
	s.mu.Unlock()
	go func() {
		// Drained only so that go-zookeeper never blocks on it; state comes
		// from the callback, which sees every event.
		for range events {
		}
		s.setClosed()
		close(s.loopEnd)
	}()

	if err := s.waitFirstSession(ctx); err != nil {
		// Closed in the background: go-zookeeper stuck in a handshake with
		// a silent server takes seconds to let go, and the caller's
		// deadline has passed already. No session exists to clean up.
		go s.Close()
		return nil, fmt.Errorf("lockops: connect %s: %w", strings.Join(servers, ","), err)
	}
	if cfg.auth {
		cred := []byte(cfg.authUser + ":" + cfg.authPass)
		if _, err := do(ctx, func() (struct{}, error) { return struct{}{}, conn.AddAuth("digest", cred) }); err != nil {
			s.Close()
			return nil, fmt.Errorf("lockops: digest auth as %q: %w", cfg.authUser, err)
		}
	}
	return s, nil
}

// onEvent runs on go-zookeeper's goroutines for every event; it must not
// block, so it only records the state and wakes waiters.
func (s *Session) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == SessionClosed {
		return
	}
	switch ev.State {
	case zk.StateHasSession, zk.StateSaslAuthenticated:
		// Back in the same session too: the patched go-zookeeper reads the
		// last zxid for its SetWatches atomically, so our requests may go
		// out before it (they once had to wait 20 ms behind it: PATCHES.md).
		if id := s.conn.SessionID(); id != s.id {
			s.id = id
			s.gen++
		}
		if ev.State == zk.StateHasSession && s.cfg.sasl != nil {
			return // connected once authenticated again (sasl.go)
		}
		s.setLocked(SessionConnected)
	case zk.StateAuthFailed:
		s.authErr = ev.Err // the connection ends next: setClosed
	case zk.StateExpired:
		s.setLocked(SessionExpired)
	case zk.StateDisconnected, zk.StateConnecting, zk.StateConnected:
		// zk.StateConnected is TCP only, not yet a session.
		if s.state == SessionConnected {
			s.setLocked(SessionSuspended)
		}
	}
}

// checkLease runs at the lease's deadline (see leaseMeter) and declares
// the session expired if no reply renewed it meanwhile: the server may
// have expired it by now. go-zookeeper learns of expiry only when it
// reconnects, and notices a silent link two thirds of a timeout late; by
// then the server may have deleted our ephemeral nodes and let another
// client take the lock: a holder must stop believing it holds first.
func (s *Session) checkLease() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == SessionClosed {
		return
	}
	next := time.Until(s.lease.deadline(s.cfg.timeout))
	if next <= 0 && (s.state == SessionConnected || s.state == SessionSuspended) {
		s.setLocked(SessionExpired)
	}
	// Idle states (no session yet, expired) wait for a new session, whose
	// connect response renews the lease: look again a little later.
	s.leaseT.Reset(max(next, s.timeoutLocked()/10))
}

func (s *Session) setLocked(st SessionState) {
	if s.state == st {
		return
	}
	s.state = st
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Session) setClosed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leaseT != nil {
		s.leaseT.Stop()
	}
	s.setLocked(SessionClosed)
}

// ID is the current session id (0 before the first session).
func (s *Session) ID() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// Generation counts sessions: 1 for the first, +1 each time go-zookeeper
// replaces an expired session. A lock taken in one generation is lost in
// the next.
func (s *Session) Generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// State is the current SessionState.
func (s *Session) State() SessionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// snapshot returns state, generation and the channel closed at the next
// change, read together so that no change falls between them.
func (s *Session) snapshot() (SessionState, uint64, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.gen, s.changed
}

// Changed is closed at the next state change; read State() after it. It is
// a broadcast: any number of goroutines may wait on it.
func (s *Session) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// Server is the member currently (or last) connected to.
func (s *Session) Server() string { return s.conn.Server() }

// Servers is the server list given to Connect.
func (s *Session) Servers() []string { return append([]string(nil), s.servers...) }

// Timeout is the session timeout the server granted (asked for, before
// the first session).
func (s *Session) Timeout() time.Duration { return s.timeoutLocked() }

// timeoutLocked needs no lock (atomic); named so that it may be called
// with s.mu held.
func (s *Session) timeoutLocked() time.Duration {
	if t := s.lease.negotiated.Load(); t > 0 {
		return time.Duration(t)
	}
	return s.cfg.timeout
}

// Abs turns a path as the user sees it into the server's path (chroot
// applied).
func (s *Session) Abs(p string) string {
	if s.cfg.chroot == "" {
		return p
	}
	if p == "/" {
		return s.cfg.chroot
	}
	return s.cfg.chroot + p
}

// Rel is the inverse of Abs; a path outside the chroot is returned as is.
func (s *Session) Rel(p string) string {
	c := s.cfg.chroot
	if c == "" {
		return p
	}
	if p == c {
		return "/"
	}
	if strings.HasPrefix(p, c+"/") {
		return p[len(c):]
	}
	return p
}

// Close ends the session (its ephemeral nodes go at once) and waits a
// little for go-zookeeper's goroutines to stop.
func (s *Session) Close() {
	s.links.stop()
	s.links.cancel()
	s.setClosed()
	s.conn.Close()
	select {
	case <-s.loopEnd:
	case <-time.After(2 * time.Second):
	}
}

// closedErr is why the Session closed: the authentication failure that
// ended it, or ErrSessionClosed.
func (s *Session) closedErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.authErr != nil {
		return fmt.Errorf("%w: %w", ErrSessionClosed, s.authErr)
	}
	return ErrSessionClosed
}

// waitFirstSession waits for the first session. It gives up early when
// every server failed for good (a *LinkError each: a certificate the
// client rejects, the other protocol on the port), and otherwise when ctx
// ends, with ErrUnreachable and the last failure seen on each server.
func (s *Session) waitFirstSession(ctx context.Context) error {
	defer s.links.stop()
	for {
		st, _, ch := s.snapshot()
		switch st {
		case SessionConnected:
			return nil
		case SessionClosed:
			return s.closedErr()
		}
		if err := s.links.verdict(s.servers); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return errors.Join(append([]error{fmt.Errorf("%w (%w)", ErrUnreachable, err)}, s.links.problems(s.servers)...)...)
		}
		select {
		case <-ctx.Done():
		case <-ch:
		case <-s.links.watch():
		}
	}
}

// waitConnected blocks until the session is connected and returns its
// generation.
func (s *Session) waitConnected(ctx context.Context) (uint64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		st, gen, ch := s.snapshot()
		switch st {
		case SessionConnected:
			return gen, nil
		case SessionClosed:
			return 0, ErrSessionClosed
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-ch:
		}
	}
}

// joinHint remembers how to join a lock parent's queue as last seen, so
// that a Lock's next create needs no extra listing.
func (s *Session) joinHint(abs string) (joinAs, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.hints[abs]
	return j, ok
}

func (s *Session) setJoinHint(abs string, j joinAs) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hints[abs] = j
}

// The lease: how long the server surely keeps the session alive.
//
// The server expires a session one session timeout after it last heard
// from the client (a request or a ping), rounded up to its tick. A client
// holding a lock must stop believing it holds before that, or two clients
// hold at once. go-zookeeper tells neither when it last heard from the
// server nor the timeout the server negotiated, only learns of expiry when
// it reconnects, and notices a silent link two thirds of a timeout late:
// timing from its Disconnected event is unsafe. So the Session reads both
// off the wire: every connection it dials is wrapped, the connect response
// gives the negotiated timeout, and the arrival of every reply (a packet
// that is not a watch notification: the server touched the session when
// it got the request) renews the lease. With no reply for nine tenths of
// the timeout (pings go every third of it, so only a dead or silent link
// or a stalled server gets there) the session is presumed expired, link
// down or not; the last tenth covers the reply's trip and the server's
// processing.

// readBuffer is the metered connection's read buffer. go-zookeeper reads
// every packet in two reads (the length, then the body), each a system
// call on a bare connection; through the buffer one call usually brings
// the whole packet, often several. That is most of a lock client's CPU on
// a small machine, which it shares with the server.
const readBuffer = 16 << 10

// Links (tls.go): TLS or plain, as WithTLS set them.

// DialMember opens a link to addr as the Session's own are made (TLS with
// its settings, or plain TCP), bounded by ctx: for the four-letter words,
// which a TLS member serves on its secure port too. A failed TLS handshake
// returns a *LinkError.
func (s *Session) DialMember(ctx context.Context, addr string) (net.Conn, error) {
	// Not through WithDialer's dialer: that one is for the Session's own
	// links (tests cut and count them).
	return dialCtx(ctx, s.links.base(nil), addr)
}

// Secure reports whether the Session's links are TLS.
func (s *Session) Secure() bool { return s.cfg.tls != nil }

// HostnameVerified reports whether a TLS Session checks the server's
// name (false with WithoutHostnameVerification, or a tls.Config that
// skips all verification).
func (s *Session) HostnameVerified() bool {
	return s.cfg.tls != nil && !s.cfg.skipHostname && !s.cfg.tls.InsecureSkipVerify
}

// TLSState is the handshake state of the Session's latest TLS link; ok is
// false for a plain Session or before the first link.
func (s *Session) TLSState() (state tls.ConnectionState, ok bool) {
	return s.links.lastState()
}
