package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"time"
)

// defaultFourLetterTimeout bounds a four-letter word when the caller's
// context has no deadline: a paused (SIGSTOP) server accepts the TCP
// connection in the kernel and then never answers, so an unbounded read
// would hang forever.
const defaultFourLetterTimeout = 10 * time.Second

// maxFourLetterReply caps what FourLetter reads; `cons` or `wchc` with
// thousands of sessions run to a few MB, which is fine, but a wrong address
// that streams forever must not fill memory.
const maxFourLetterReply = 64 << 20

// FourLetter sends a ZooKeeper four-letter word (ruok, srvr, mntr, cons,
// wchc...) to addr and returns the whole reply. The exchange is bounded by
// ctx's deadline (10 s when ctx has none) and stops at once when ctx is
// cancelled.
func FourLetter(ctx context.Context, addr, cmd string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultFourLetterTimeout)
		defer cancel()
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fourLetterError(ctx, addr, cmd, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if err := conn.SetDeadline(deadline); err != nil {
		return "", fourLetterError(ctx, addr, cmd, err)
	}
	// Cancellation without a deadline change must also end the read.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", fourLetterError(ctx, addr, cmd, err)
	}
	// The server closes the connection after its reply.
	reply, err := io.ReadAll(io.LimitReader(conn, maxFourLetterReply))
	if err != nil {
		return string(reply), fourLetterError(ctx, addr, cmd, err)
	}
	return string(reply), nil
}

// fourLetterError makes a timeout errors.Is(context.DeadlineExceeded): the
// connection's deadline is ctx's, and it may fire a moment before ctx's own
// timer does.
func fourLetterError(ctx context.Context, addr, cmd string, err error) error {
	var ne net.Error
	switch {
	case ctx.Err() != nil && !errors.Is(err, ctx.Err()):
		err = fmt.Errorf("%w (%w)", ctx.Err(), err)
	case ctx.Err() == nil && errors.As(err, &ne) && ne.Timeout():
		err = fmt.Errorf("%w (%w)", context.DeadlineExceeded, err)
	}
	return fmt.Errorf("sandbox: %s %s: %w", cmd, addr, err)
}

var modeLine = regexp.MustCompile(`(?m)^Mode: *([a-z]+)`)

// serverMode returns the Mode line of a `srvr` reply ("leader", "follower",
// "standalone", "observer"), or "" when the server is not serving yet
// ("This ZooKeeper instance is not currently serving requests").
func serverMode(srvr string) string {
	if m := modeLine.FindStringSubmatch(srvr); m != nil {
		return m[1]
	}
	return ""
}

// serving reports whether a mode means the member answers clients.
func serving(mode string) bool {
	switch mode {
	case "leader", "follower", "standalone", "observer":
		return true
	}
	return false
}

// memberMode asks one member for its mode with a short bound, so that a
// paused member costs one poll interval, not the caller's whole deadline.
func memberMode(ctx context.Context, addr string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	reply, err := FourLetter(ctx, addr, "srvr")
	if err != nil {
		return "", err
	}
	return serverMode(reply), nil
}
