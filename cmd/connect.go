package cmd

import (
	"context"
	"errors"
	"fmt"
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
	return opts
}

// connect warns when the servers' names go unverified (warnInsecure) and
// opens a session (dialSession). Every command that reaches an ensemble
// connects through it once, so the warning is one line per command.
func connect(ctx context.Context, s *config.Settings, extra ...lockops.SessionOption) (*lockops.Session, error) {
	warnInsecure(s)
	return dialSession(ctx, s, extra...)
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

// dialSession opens a session, bounded by the connect timeout: an
// unreachable ensemble is one line naming it, within that time.
// lockops.Connect's own clean-up after the deadline (closing a dial in
// progress) is not waited for: it finishes in the background.
func dialSession(ctx context.Context, s *config.Settings, extra ...lockops.SessionOption) (*lockops.Session, error) {
	cctx, cancel := context.WithTimeout(ctx, s.ConnectTimeout)
	type result struct {
		sess *lockops.Session
		err  error
	}
	res := make(chan result, 1)
	go func() {
		defer cancel()
		sess, err := lockops.Connect(cctx, s.Servers, append(sessionOptions(s), extra...)...)
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
		return fmt.Errorf("%s: not allowed with these credentials (NoAuth; give --auth-file or ZK_AUTH): %w", p, err)
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("%s: no such node: %w", p, err)
	}
	return fmt.Errorf("%s: %w", p, err)
}
