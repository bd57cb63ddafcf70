package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/lockops"
)

// sessionOptions turns the settings into lockops' options: timeout,
// chroot, TLS, digest credentials.
func sessionOptions(s *config.Settings) []lockops.SessionOption {
	opts := []lockops.SessionOption{lockops.WithSessionTimeout(s.SessionTimeout)}
	if s.Chroot != "" {
		opts = append(opts, lockops.WithChroot(s.Chroot))
	}
	if s.TLS != nil {
		opts = append(opts, lockops.WithTLS(s.TLS.Config))
		if s.TLS.SkipHostnameVerify {
			opts = append(opts, lockops.WithoutHostnameVerification())
		}
	}
	if s.Auth != nil {
		opts = append(opts, lockops.WithDigestAuth(s.Auth.User, s.Auth.Password))
	}
	if s.SASL != nil {
		opts = append(opts, lockops.WithSASL(s.SASL.Mech))
	}
	return opts
}

// connect warns when the servers' names go unverified (warnInsecure) and
// opens a session (connectBounded). Every command that reaches an ensemble
// connects through it once, so the warning is one line per command.
func connect(ctx context.Context, s *config.Settings, extra ...lockops.SessionOption) (*lockops.Session, error) {
	warnInsecure(s)
	start := time.Now()
	sess, err := connectBounded(ctx, s, extra...)
	if err != nil {
		slog.Debug("connect failed", "servers", s.Servers, "after", time.Since(start), "err", err)
		return nil, err
	}
	slog.Debug("connected", "session", fmt.Sprintf("0x%x", sess.ID()), "after", time.Since(start))
	return sess, nil
}

// connectBounded is connect without its stderr warning and its log
// lines: the console (whose screen a stderr line would cut; its header
// says it) and doctor (one warning for the whole ensemble) call it.
func connectBounded(ctx context.Context, s *config.Settings, extra ...lockops.SessionOption) (*lockops.Session, error) {
	auth := ""
	if s.Auth != nil {
		auth = s.Auth.User // the user, never the password
	}
	slog.Debug("connecting", "servers", s.Servers, "context", s.ContextName, "chroot", s.Chroot,
		"tls", s.TLS != nil, "auth_user", auth, "sasl", saslLog(s), "session_timeout", s.SessionTimeout, "connect_timeout", s.ConnectTimeout)
	// The client's log first: a caller's WithLogger still wins.
	opts := append([]lockops.SessionOption{lockops.WithLogger(zkLogger())}, sessionOptions(s)...)
	opts = append(opts, extra...)
	cctx, cancel := context.WithTimeout(ctx, s.ConnectTimeout)
	type result struct {
		sess *lockops.Session
		err  error
	}
	res := make(chan result, 1)
	go func() {
		defer cancel()
		sess, err := lockops.Connect(cctx, s.Servers, opts...)
		res <- result{sess, err}
	}()
	var r result
	select {
	case r = <-res:
	case <-cctx.Done():
		select {
		case r = <-res:
		case <-time.After(connectGrace):
			go func() {
				if late := <-res; late.sess != nil {
					late.sess.Close()
				}
			}()
			r.err = lockops.ErrUnreachable
		}
	}
	if r.err == nil {
		return r.sess, nil
	}
	if errors.Is(r.err, lockops.ErrUnreachable) {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connecting to %s: %w", strings.Join(s.Servers, ","), ctx.Err())
		}
		// The last failure seen on each server, when it hints at a
		// cause (a handshake cut short, a link dropped unanswered).
		return nil, fmt.Errorf("cannot reach ZooKeeper at %s within %s (--connect-timeout)%s%s",
			strings.Join(s.Servers, ","), s.ConnectTimeout, linkHints(s, r.err), contextHint(s))
	}
	if les := linkErrors(r.err); len(les) > 0 {
		return nil, fmt.Errorf("%w", &linkFailure{msg: linkMessage(s, les) + contextHint(s), err: r.err})
	}
	return nil, r.err
}

// connectGrace is how long connect lets lockops.Connect say why it failed
// after the deadline before saying "unreachable" itself.
const connectGrace = 100 * time.Millisecond

func contextHint(s *config.Settings) string {
	if s.ContextName == "" {
		return ""
	}
	return fmt.Sprintf(" [context %s]", s.ContextName)
}

// zkErr rewords the server errors an operator meets, keeping the chain
// for errors.Is.
func zkErr(p string, err error) error {
	switch {
	case errors.Is(err, zk.ErrNoAuth):
		return fmt.Errorf("%s: not allowed with these credentials (NoAuth; %s): %w", p, noAuthFix, err)
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("%s: no such node: %w", p, err)
	}
	return fmt.Errorf("%s: %w", p, err)
}

// insecureWarning is the line a command prints on stderr when TLS does not
// verify the servers' names; "" when it does, or over plain TCP.
func insecureWarning(s *config.Settings) string {
	if s.TLS == nil || !s.TLS.SkipHostnameVerify {
		return ""
	}
	return "warning: TLS without hostname verification (--tls-insecure-skip-verify, or the context's insecure_skip_verify): " +
		"any certificate the CAs signed is accepted for these servers, whatever name it is for"
}

// warnInsecure prints insecureWarning, if any, on stderr: an operator
// reading only a command's output (a script's log) is told too, not only
// the console's header.
func warnInsecure(s *config.Settings) {
	if w := insecureWarning(s); w != "" {
		warn(errors.New(w))
	}
}
