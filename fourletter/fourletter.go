// Package fourletter speaks ZooKeeper's four-letter words (ruok, srvr,
// mntr, cons, wchc, wchp...): Ask sends one word over plain TCP, TLS, or
// a link the caller dials, bounded by a context and a reply cap; the
// Parse functions read the replies zklock uses (parse.go: who is
// connected and what it watches; health.go: each connection's last
// response, timeout and packets, and dump's expiry buckets).
//
// It is the one four-letter-word client of zklock: zkview's server view,
// `zklock doctor`, sandbox's readiness probes and the tests all call it.
// So that every one of them may, it imports nothing from zklock (sandbox
// sits beneath lockops and zkview); TLS the way a lockops.Session makes
// it comes in through WithDial.
package fourletter

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// DefaultTimeout bounds an exchange whose context has no deadline: a
// paused (SIGSTOP) server accepts the TCP connection in the kernel and
// then never answers, so an unbounded read would hang forever.
const DefaultTimeout = 10 * time.Second

// DefaultMaxReply caps a reply: `cons` or `wchc` with 10,000 sessions
// run to a few MB, which is fine, but a wrong address that streams
// forever must not fill memory.
const DefaultMaxReply = 64 << 20

// The causes an *Error carries besides the network's and the context's.
// They read as the end of an *Error's message, which already names the
// package, the word and the server.
var (
	// ErrRefused is the cause when the server does not allow the word
	// (it is not in 4lw.commands.whitelist).
	ErrRefused = errors.New("not allowed (4lw.commands.whitelist)")
	// ErrReplyTooLong is the cause when the reply runs past the cap; Ask
	// returns the part within the cap with it.
	ErrReplyTooLong = errors.New("reply longer than the cap")
)

// refusal is what a server answers a word it does not allow:
// "wchc is not executed because it is not in the whitelist."
const refusal = "is not executed because it is not in the whitelist"

// Error is a failed exchange: which word, which server, and why (Err:
// ErrRefused, ErrReplyTooLong, the dial's, the network's or, on timeout
// or cancel, the context's error joined with the network's).
type Error struct {
	Word, Addr string
	Err        error
}

func (e *Error) Error() string { return "fourletter: " + e.Word + " " + e.Addr + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

type config struct {
	dial     func(ctx context.Context, addr string) (net.Conn, error)
	tls      *tls.Config
	maxReply int64
}

// Option changes how Ask reaches the server or reads its reply.
type Option func(*config)

// WithDial makes Ask open its link with dial instead of a plain TCP
// dial: lockops.Session.DialMember or lockops.Dial, so that a TLS member
// is asked inside TLS with the session's settings (a TLS member serves the
// four-letter words on its secure port too). dial must honour ctx.
func WithDial(dial func(ctx context.Context, addr string) (net.Conn, error)) Option {
	return func(c *config) { c.dial = dial }
}

// WithTLS makes Ask run a TLS client with cfg over its link (cfg's
// ServerName defaults to addr's host, as with tls.Dial).
func WithTLS(cfg *tls.Config) Option {
	return func(c *config) { c.tls = cfg }
}

// WithMaxReply caps the reply at n bytes instead of DefaultMaxReply: a
// caller that only needs to tell an answer from a refusal reads less.
func WithMaxReply(n int64) Option {
	return func(c *config) { c.maxReply = n }
}

// Ask sends word to the server at addr and returns its whole reply (the
// server closes the link after it). The exchange is bounded by ctx's
// deadline (DefaultTimeout when ctx has none) and ends at once when ctx is
// cancelled; a timeout or a cancel is errors.Is the context's error. On
// error, the reply is what was read before it (a refusal's text with
// ErrRefused, the capped part with ErrReplyTooLong). A reply may be empty
// with no error: the server closed without answering.
func Ask(ctx context.Context, addr, word string, opts ...Option) (string, error) {
	cfg := config{maxReply: DefaultMaxReply}
	for _, o := range opts {
		o(&cfg)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	fail := func(reply []byte, err error) (string, error) {
		return string(reply), &Error{Word: word, Addr: addr, Err: contextCause(ctx, err)}
	}
	conn, err := dial(ctx, cfg, addr)
	if err != nil {
		return fail(nil, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if err := conn.SetDeadline(deadline); err != nil {
		return fail(nil, err)
	}
	// Cancellation without a deadline change must also end the read.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	if _, err := io.WriteString(conn, word); err != nil {
		return fail(nil, err)
	}
	reply, err := io.ReadAll(io.LimitReader(conn, cfg.maxReply+1))
	switch {
	case strings.Contains(string(reply), refusal):
		return fail(reply, ErrRefused)
	case err != nil:
		return fail(reply, err)
	case int64(len(reply)) > cfg.maxReply:
		return fail(reply[:cfg.maxReply], ErrReplyTooLong)
	}
	return string(reply), nil
}

// dial opens the link: the caller's dial or plain TCP, then TLS over it
// when asked.
func dial(ctx context.Context, cfg config, addr string) (net.Conn, error) {
	var conn net.Conn
	var err error
	if cfg.dial != nil {
		conn, err = cfg.dial(ctx, addr)
	} else {
		var d net.Dialer
		conn, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil || cfg.tls == nil {
		return conn, err
	}
	tc := cfg.tls
	if tc.ServerName == "" {
		tc = tc.Clone()
		tc.ServerName, _, _ = net.SplitHostPort(addr)
	}
	c := tls.Client(conn, tc)
	if err := c.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// contextCause makes a timeout errors.Is(context.DeadlineExceeded): the
// link's deadline is ctx's, and it may fire a moment before ctx's own
// timer does.
func contextCause(ctx context.Context, err error) error {
	var ne net.Error
	switch {
	case ctx.Err() != nil && !errors.Is(err, ctx.Err()):
		return fmt.Errorf("%w (%w)", ctx.Err(), err)
	case ctx.Err() == nil && errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%w (%w)", context.DeadlineExceeded, err)
	}
	return err
}
