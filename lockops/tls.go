// TLS links, and what a failed link says about itself.

package lockops

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/zklock/zklock/third_party/zk"
)

// WithTLS makes every link a TLS connection (ZooKeeper's secureClientPort
// speaks the same protocol inside TLS). cfg is cloned per link; when its
// ServerName is empty, the host of each server address is verified, as
// Go's TLS client does by default. The handshake is bounded by the dial's
// timeout (see minHandshake).
func WithTLS(cfg *tls.Config) SessionOption {
	return func(c *sessionConfig) { c.tls = cfg.Clone() }
}

// WithoutHostnameVerification accepts a server certificate for any name,
// as ZooKeeper's own ssl.hostnameVerification=false does: the chain is
// still verified against the trust bundle (RootCAs) and its dates. Only
// with WithTLS.
func WithoutHostnameVerification() SessionOption {
	return func(c *sessionConfig) { c.skipHostname = true }
}

// minHandshake is the least time a TLS dial (TCP, then the handshake) is
// given, whatever the shorter timeout go-zookeeper passes (1 s): a server
// JVM's first handshakes after a start take 0.3 to 2.3 s on a 2-core
// machine.
const minHandshake = 2 * time.Second

// probeTimeout bounds the second look at a server that dropped a link
// (probeTLS, probePlain).
const probeTimeout = 2 * time.Second

// LinkProblem is why a link to one server failed, as far as the client
// can tell.
type LinkProblem int

const (
	// LinkDialFailed: no TCP connection (refused, no route, timed out).
	LinkDialFailed LinkProblem = iota + 1
	// LinkCertExpired: the server's certificate is outside its validity
	// dates (expired, or not yet valid: a clock wrong on one side).
	LinkCertExpired
	// LinkUnknownAuthority: signed by a CA that is not in the trust bundle.
	LinkUnknownAuthority
	// LinkNameMismatch: valid, but not for the name verified (the host
	// dialled, or the server name override).
	LinkNameMismatch
	// LinkCertInvalid: another verification failure.
	LinkCertInvalid
	// LinkClientCertRefused: the server refused the link over the client
	// certificate (none given, or one it does not trust).
	LinkClientCertRefused
	// LinkTLSRefused: the server ended the handshake with another alert
	// (no common protocol version or cipher).
	LinkTLSRefused
	// LinkNotTLS: TLS was asked and the port speaks plain ZooKeeper.
	LinkNotTLS
	// LinkRequiresTLS: plain was asked and the port speaks TLS.
	LinkRequiresTLS
	// LinkHandshakeFailed: the handshake failed without a reason the
	// client can be sure of (closed, reset, timed out).
	LinkHandshakeFailed
	// LinkDropped: the server closed the link before its first reply
	// (a member that is not serving does so too).
	LinkDropped
	// LinkRefused: nothing listens on the port (connection refused).
	LinkRefused
	// LinkUnknownHost: the name does not resolve.
	LinkUnknownHost
)

var problemText = map[LinkProblem]string{
	LinkDialFailed:        "cannot connect",
	LinkCertExpired:       "server certificate expired",
	LinkUnknownAuthority:  "server certificate signed by an unknown authority",
	LinkNameMismatch:      "server certificate is for another name",
	LinkCertInvalid:       "server certificate invalid",
	LinkClientCertRefused: "client certificate refused by the server",
	LinkTLSRefused:        "TLS refused by the server",
	LinkNotTLS:            "the port does not speak TLS",
	LinkRequiresTLS:       "the port requires TLS",
	LinkHandshakeFailed:   "TLS handshake failed",
	LinkDropped:           "connection closed by the server before it answered",
	LinkRefused:           "connection refused",
	LinkUnknownHost:       "unknown host",
}

func (p LinkProblem) String() string {
	if t, ok := problemText[p]; ok {
		return t
	}
	return "link problem"
}

// Definitive reports whether retrying cannot help: a certificate or
// protocol mismatch that stays until someone changes a configuration, a
// refused port or a name that does not resolve. Connect gives up at once
// when every server has a definitive problem (once connected, go-zookeeper
// retries every server whatever the problem).
func (p LinkProblem) Definitive() bool {
	switch p {
	case LinkDialFailed, LinkHandshakeFailed, LinkDropped:
		return false
	}
	return true
}

// dialProblem names a failed dial: refused and unknown hosts are told at
// once (the operator's typo or a server that is down), any other failure
// (a timeout, no route) may pass.
func dialProblem(err error) LinkProblem {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return LinkRefused
	case errors.As(err, &dns) && dns.IsNotFound:
		return LinkUnknownHost
	}
	return LinkDialFailed
}

// LinkError says why a link to Server failed. Connect returns one (joined
// with those of the other servers) when every server failed definitively,
// and wraps the last ones seen when it gives up for want of time.
type LinkError struct {
	Server  string
	Problem LinkProblem
	// Cert is the server's leaf certificate, when the handshake got that
	// far (expired, unknown authority, name mismatch).
	Cert *x509.Certificate
	// Name is the name verified (LinkNameMismatch).
	Name string
	// Err is the underlying error.
	Err error
}

func (e *LinkError) Error() string {
	s := fmt.Sprintf("lockops: %s: %s", e.Server, e.Problem)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *LinkError) Unwrap() error { return e.Err }

// classifyTLS reads a handshake (or first read) error of a TLS link.
func classifyTLS(addr, name string, err error) *LinkError {
	le := &LinkError{Server: addr, Problem: LinkHandshakeFailed, Err: err, Name: name}
	var (
		inv    x509.CertificateInvalidError
		unk    x509.UnknownAuthorityError
		host   x509.HostnameError
		verify *tls.CertificateVerificationError
		rec    tls.RecordHeaderError
		op     *net.OpError
	)
	switch {
	case errors.As(err, &inv):
		le.Cert = inv.Cert
		le.Problem = LinkCertInvalid
		if inv.Reason == x509.Expired {
			le.Problem = LinkCertExpired
		}
	case errors.As(err, &unk):
		le.Problem, le.Cert = LinkUnknownAuthority, unk.Cert
	case errors.As(err, &host):
		le.Problem, le.Cert, le.Name = LinkNameMismatch, host.Certificate, host.Host
	case errors.As(err, &verify):
		le.Problem = LinkCertInvalid
		if len(verify.UnverifiedCertificates) > 0 {
			le.Cert = verify.UnverifiedCertificates[0]
		}
	case errors.As(err, &rec):
		// The server wrote something that is not a TLS record.
		le.Problem = LinkNotTLS
	case errors.As(err, &op) && op.Op == "remote error":
		le.Problem = LinkTLSRefused
		if clientCertAlert(op.Err) {
			le.Problem = LinkClientCertRefused
		}
	}
	return le
}

// clientCertAlert reports whether a TLS alert from the server is about
// the client's certificate. Go does not export its alert type; its text
// is stable ("tls: bad certificate").
func clientCertAlert(err error) bool {
	s := err.Error()
	for _, a := range []string{"bad certificate", "certificate required", "unknown certificate authority",
		"certificate unknown", "certificate expired", "certificate revoked", "unsupported certificate", "access denied"} {
		if strings.Contains(s, a) {
			return true
		}
	}
	return false
}

// tlsFor is cfg for one link to addr: the server name to verify, and the
// chain-only verification of WithoutHostnameVerification.
func tlsFor(cfg *tls.Config, addr string, skipHostname bool) *tls.Config {
	c := cfg.Clone()
	if c.ServerName == "" {
		if host, _, err := net.SplitHostPort(addr); err == nil {
			c.ServerName = host
		}
	}
	if skipHostname && !c.InsecureSkipVerify {
		roots := c.RootCAs
		c.InsecureSkipVerify = true
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("lockops: the server sent no certificate")
			}
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, ic := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(ic)
			}
			if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
				// As Go's own verification does: the chain the server
				// sent stays readable (its first is the server's own).
				return &tls.CertificateVerificationError{UnverifiedCertificates: cs.PeerCertificates, Err: err}
			}
			return nil
		}
	}
	return c
}

// dialTLS dials addr with d and completes a TLS handshake, both within
// timeout (at least minHandshake).
func dialTLS(d zk.Dialer, cfg *tls.Config, skipHostname bool, network, addr string, timeout time.Duration) (*tls.Conn, error) {
	timeout = max(timeout, minHandshake)
	deadline := time.Now().Add(timeout)
	raw, err := d(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	c := tlsFor(cfg, addr, skipHostname)
	tc := tls.Client(raw, c)
	_ = raw.SetDeadline(deadline)
	if err := tc.Handshake(); err != nil {
		raw.Close()
		return nil, classifyTLS(addr, c.ServerName, err)
	}
	_ = raw.SetDeadline(time.Time{})
	return tc, nil
}

// Dial opens one link to addr as a Session made with opts would (only
// WithTLS and WithoutHostnameVerification matter), bounded by ctx, without
// a session: for a server's four-letter words when no session is at hand.
// A failed TLS handshake returns a *LinkError.
func Dial(ctx context.Context, addr string, opts ...SessionOption) (net.Conn, error) {
	var cfg sessionConfig
	for _, o := range opts {
		o(&cfg)
	}
	b := newLinkBoard(cfg)
	defer b.cancel()
	return dialCtx(ctx, b.base(nil), addr)
}

func dialCtx(ctx context.Context, d zk.Dialer, addr string) (net.Conn, error) {
	timeout := minHandshake
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := d("tcp", addr, timeout)
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.c, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// linkBoard watches a Session's links until its first session: what
// failed on each server, and whether every server failed for good. It
// takes a second look at a server that dropped a link before any reply
// (does the port speak the other protocol?), once per server.
type linkBoard struct {
	tls          *tls.Config // nil: plain
	skipHostname bool
	ctx          context.Context // ends with the Session
	cancel       context.CancelFunc

	mu      sync.Mutex
	done    bool // the first session came: stop watching
	last    map[string]*LinkError
	probed  map[string]bool
	changed chan struct{}
	state   *tls.ConnectionState
}

func newLinkBoard(cfg sessionConfig) *linkBoard {
	ctx, cancel := context.WithCancel(context.Background())
	return &linkBoard{tls: cfg.tls, skipHostname: cfg.skipHostname, ctx: ctx, cancel: cancel,
		last: map[string]*LinkError{}, probed: map[string]bool{}, changed: make(chan struct{})}
}

// base is the Session's transport without the board: plain d, or TLS over
// it.
func (b *linkBoard) base(d zk.Dialer) zk.Dialer {
	if d == nil {
		d = net.DialTimeout
	}
	if b.tls == nil {
		return d
	}
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		tc, err := dialTLS(d, b.tls, b.skipHostname, network, addr, timeout)
		if err != nil {
			return nil, err
		}
		return tc, nil
	}
}

// dialer is base, recording each link's outcome on the board.
func (b *linkBoard) dialer(d zk.Dialer) zk.Dialer {
	base := b.base(d)
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c, err := base(network, addr, timeout)
		if err != nil {
			var le *LinkError
			if !errors.As(err, &le) {
				le = &LinkError{Server: addr, Problem: dialProblem(err), Err: err}
			}
			b.record(le)
			return nil, err
		}
		if tc, ok := c.(*tls.Conn); ok {
			st := tc.ConnectionState()
			b.mu.Lock()
			b.state = &st
			b.mu.Unlock()
		}
		return &firstReadConn{Conn: c, board: b, addr: addr}, nil
	}
}

// firstReadConn tells the board how a link's first read went.
type firstReadConn struct {
	net.Conn
	board *linkBoard
	addr  string
	once  sync.Once
}

func (c *firstReadConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 || err != nil {
		c.once.Do(func() { c.board.firstRead(c.addr, n, err) })
	}
	return n, err
}

func (b *linkBoard) firstRead(addr string, n int, err error) {
	if n > 0 {
		b.clear(addr)
		return
	}
	if b.tls != nil {
		// TLS 1.3 refuses a client certificate after the handshake: the
		// alert is the first thing read.
		if le := classifyTLS(addr, "", err); le.Problem == LinkClientCertRefused || le.Problem == LinkTLSRefused {
			b.record(le)
			return
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		b.record(&LinkError{Server: addr, Problem: LinkDropped, Err: err})
	}
}

func (b *linkBoard) clear(addr string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.last, addr)
}

func (b *linkBoard) record(le *LinkError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.last[le.Server] = le
	close(b.changed)
	b.changed = make(chan struct{})
	if b.probed[le.Server] {
		return
	}
	switch {
	case le.Problem == LinkDropped && b.tls == nil:
		b.probed[le.Server] = true
		go b.probe(le.Server, LinkRequiresTLS, probeTLS)
	case le.Problem == LinkHandshakeFailed:
		b.probed[le.Server] = true
		go b.probe(le.Server, LinkNotTLS, probePlain)
	}
}

// probe confirms a suspicion about addr (true: it is so) and records it.
func (b *linkBoard) probe(addr string, p LinkProblem, check func(context.Context, string) (bool, error)) {
	ctx, cancel := context.WithTimeout(b.ctx, probeTimeout)
	defer cancel()
	yes, err := check(ctx, addr)
	if !yes {
		return
	}
	b.mu.Lock()
	prev := b.last[addr]
	b.mu.Unlock()
	le := &LinkError{Server: addr, Problem: p, Err: err}
	if prev != nil && prev.Err != nil {
		le.Err = errors.Join(prev.Err, err)
	}
	b.record(le)
}

// probeTLS: does addr complete (or refuse with an alert) a TLS handshake?
// Nothing is verified: only the protocol is in question.
func probeTLS(ctx context.Context, addr string) (bool, error) {
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		c.Close()
		return true, errors.New("a TLS handshake with it succeeds")
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" {
		return true, fmt.Errorf("it answers a TLS handshake (%w)", err)
	}
	return false, nil
}

// probePlain: does addr answer a plain four-letter word? A plain
// ZooKeeper port answers srvr with text (its reply, or that srvr is not
// allowed); a TLS port waits for the rest of a record header.
func probePlain(ctx context.Context, addr string) (bool, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false, nil
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	}
	if _, err := io.WriteString(c, "srvr"); err != nil {
		return false, nil
	}
	buf := make([]byte, 64)
	n, _ := io.ReadAtLeast(c, buf, 8)
	reply := string(buf[:n])
	if strings.HasPrefix(reply, "Zookeeper version") || strings.Contains(reply, "srvr is not") || strings.HasPrefix(reply, "This ZooKeeper") {
		return true, errors.New("it answers a plain four-letter word")
	}
	return false, nil
}

// verdict is the error to give up with when every server failed for good,
// nil otherwise.
func (b *linkBoard) verdict(servers []string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	for _, addr := range servers {
		le := b.last[addr]
		if le == nil || !le.Problem.Definitive() {
			return nil
		}
		errs = append(errs, le)
	}
	return errors.Join(errs...)
}

// problems are the last failures recorded, in server order.
func (b *linkBoard) problems(servers []string) []error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	for _, addr := range servers {
		if le := b.last[addr]; le != nil {
			errs = append(errs, le)
		}
	}
	return errs
}

func (b *linkBoard) watch() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

// stop ends the watching: the first session came, or the Session closed.
func (b *linkBoard) stop() {
	b.mu.Lock()
	b.done = true
	b.mu.Unlock()
}

func (b *linkBoard) lastState() (tls.ConnectionState, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == nil {
		return tls.ConnectionState{}, false
	}
	return *b.state, true
}

// namedHosts is go-zookeeper's HostProvider without its DNS step: each
// server is dialled by the name the user gave. go-zookeeper's default
// provider resolves names to addresses once, at start, so a TLS link
// would verify the certificate against an IP address instead of the name
// in it (most certificates name hosts, not addresses), and a failed link
// could not be told by the name the user knows. The dial resolves the name
// each time instead, which also follows a member's DNS change. Order and
// retry semantics are go-zookeeper's: shuffled once, round robin,
// retryStart after a full turn without a connection.
type namedHosts struct {
	mu         sync.Mutex
	servers    []string
	curr, last int
}

func (h *namedHosts) Init(servers []string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(servers) == 0 {
		return errors.New("lockops: no servers")
	}
	h.servers = append([]string(nil), servers...)
	rand.Shuffle(len(h.servers), func(i, j int) { h.servers[i], h.servers[j] = h.servers[j], h.servers[i] })
	h.curr, h.last = -1, -1
	return nil
}

func (h *namedHosts) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers)
}

func (h *namedHosts) Next() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.curr = (h.curr + 1) % len(h.servers)
	retryStart := h.curr == h.last
	if h.last == -1 {
		h.last = 0
	}
	return h.servers[h.curr], retryStart
}

func (h *namedHosts) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = h.curr
}
