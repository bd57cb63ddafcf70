package ensemble

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"strings"
	"time"

	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/lockops"
)

// sessionOptions turns the settings into lockops' options: timeout,
// chroot, TLS, digest credentials.
func SessionOptions(s *config.Settings) []lockops.SessionOption {
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

// connectBounded is connect without its stderr warning and its log
// lines: the console (whose screen a stderr line would cut; its header
// says it) and doctor (one warning for the whole ensemble) call it.
func ConnectBounded(ctx context.Context, s *config.Settings, extra ...lockops.SessionOption) (*lockops.Session, error) {
	auth := ""
	if s.Auth != nil {
		auth = s.Auth.User // the user, never the password
	}
	slog.Debug("connecting", "servers", s.Servers, "context", s.ContextName, "chroot", s.Chroot,
		"tls", s.TLS != nil, "auth_user", auth, "sasl", SASLLog(s), "session_timeout", s.SessionTimeout, "connect_timeout", s.ConnectTimeout)
	// The client's log first: a caller's WithLogger still wins.
	opts := append([]lockops.SessionOption{lockops.WithLogger(ZKLogger())}, SessionOptions(s)...)
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
			strings.Join(s.Servers, ","), s.ConnectTimeout, LinkHints(s, r.err), ContextHint(s))
	}
	if les := LinkErrors(r.err); len(les) > 0 {
		return nil, fmt.Errorf("%w", &LinkFailure{msg: LinkMessage(s, les) + ContextHint(s), err: r.err})
	}
	return nil, r.err
}

// connectGrace is how long connect lets lockops.Connect say why it failed
// after the deadline before saying "unreachable" itself.
const connectGrace = 100 * time.Millisecond

func ContextHint(s *config.Settings) string {
	if s.ContextName == "" {
		return ""
	}
	return fmt.Sprintf(" [context %s]", s.ContextName)
}

// zkErr rewords the server errors an operator meets, keeping the chain
// for errors.Is.
func PathErr(p string, err error) error {
	switch {
	case errors.Is(err, zk.ErrNoAuth):
		return fmt.Errorf("%s: not allowed with these credentials (NoAuth; %s): %w", p, NoAuthFix, err)
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("%s: no such node: %w", p, err)
	}
	return fmt.Errorf("%s: %w", p, err)
}

// insecureWarning is the line a command prints on stderr when TLS does not
// verify the servers' names; "" when it does, or over plain TCP.
func InsecureWarning(s *config.Settings) string {
	if s.TLS == nil || !s.TLS.SkipHostnameVerify {
		return ""
	}
	return "warning: TLS without hostname verification (--tls-insecure-skip-verify, or the context's insecure_skip_verify): " +
		"any certificate the CAs signed is accepted for these servers, whatever name it is for"
}

// zkLogger is go-zookeeper's logger: its lines as debug records of the
// default logger, marked as the client's.
func ZKLogger() *log.Logger {
	return slog.NewLogLogger(slog.Default().Handler().WithAttrs([]slog.Attr{slog.String("from", "zk")}), slog.LevelDebug)
}
