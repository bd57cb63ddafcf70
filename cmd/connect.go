package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/ensemble"
	"github.com/zklock/zklock/lockops"
)

// Connecting, as every command does: the one warning, then the session
// (package ensemble).

// connect warns when the servers' names go unverified (warnInsecure) and
// opens a session (connectBounded). Every command that reaches an ensemble
// connects through it once, so the warning is one line per command.
func connect(ctx context.Context, s *config.Settings, extra ...lockops.SessionOption) (*lockops.Session, error) {
	warnInsecure(s)
	start := time.Now()
	sess, err := ensemble.ConnectBounded(ctx, s, extra...)
	if err != nil {
		slog.Debug("connect failed", "servers", s.Servers, "after", time.Since(start), "err", err)
		return nil, err
	}
	slog.Debug("connected", "session", fmt.Sprintf("0x%x", sess.ID()), "after", time.Since(start))
	return sess, nil
}

// warnInsecure prints insecureWarning, if any, on stderr: an operator
// reading only a command's output (a script's log) is told too, not only
// the console's header.
func warnInsecure(s *config.Settings) {
	if w := ensemble.InsecureWarning(s); w != "" {
		warn(errors.New(w))
	}
}
