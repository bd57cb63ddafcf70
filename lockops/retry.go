// One place for retries and for what counts as a lost link.

package lockops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/zklock/zklock/third_party/zk"
)

// do runs one go-zookeeper request bounded by ctx. go-zookeeper has no
// context: a request made while the link is down waits for the reconnect.
// When ctx ends first the request goes on in its goroutine and its result is
// dropped, so only idempotent requests (or ones whose result is handled
// otherwise, see protectedCreate) go through here.
func do[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if ctx.Done() == nil {
		return f()
	}
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// ConnLoss reports whether err from a go-zookeeper request means the link
// failed, so that the request's outcome is unknown or it was never sent
// (retry once the link is back): go-zookeeper's own errors, and the
// network's (a write to a reset connection fails with the bare net error).
// A context's end is not one.
func ConnLoss(err error) bool {
	if err == nil {
		return false
	}
	// A context's end is the caller giving up, not a lost link, though
	// context.DeadlineExceeded is a net.Error too: retrying it would spin.
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) ||
		errors.Is(err, zk.ErrSessionMoved) || errors.Is(err, io.EOF) ||
		errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// retry runs an idempotent request, waiting for the link after each loss.
func retry[T any](ctx context.Context, s *Session, f func() (T, error)) (T, error) {
	for {
		v, err := do(ctx, f)
		if !ConnLoss(err) {
			if errors.Is(err, zk.ErrClosing) {
				err = ErrSessionClosed
			}
			return v, err
		}
		if _, werr := s.waitConnected(ctx); werr != nil {
			return v, werr
		}
	}
}

// ErrBadPath is wrapped by every path ValidPath refuses.
var ErrBadPath = errors.New("invalid path")

// ValidPath applies ZooKeeper's path rules, so that bad paths fail here
// with one clear line rather than as a server error: absolute, no trailing
// slash, no empty, "." or ".." segments, no control characters.
func ValidPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%w: empty", ErrBadPath)
	case p[0] != '/':
		return fmt.Errorf("%w %q: must start with /", ErrBadPath, p)
	case p == "/":
		return nil
	case strings.HasSuffix(p, "/"):
		return fmt.Errorf("%w %q: must not end with /", ErrBadPath, p)
	case !utf8.ValidString(p):
		return fmt.Errorf("%w: not UTF-8", ErrBadPath)
	}
	for _, seg := range strings.Split(p[1:], "/") {
		switch seg {
		case "":
			return fmt.Errorf("%w %q: empty segment", ErrBadPath, p)
		case ".", "..":
			return fmt.Errorf("%w %q: relative segment %q", ErrBadPath, p, seg)
		}
	}
	for _, r := range p {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0xd800 && r <= 0xf8ff) || r == 0xfff0 || r == 0xfffe || r == 0xffff {
			return fmt.Errorf("%w: character %U not allowed", ErrBadPath, r)
		}
	}
	return nil
}
