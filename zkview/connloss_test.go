package zkview

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/zklock/zklock/third_party/zk"
)

// TestConnLoss: a listing that fails because the link failed keeps the
// path's last reading (stale) and re-reads at the reconnection; anything
// else is an error on the path. A clean-clone CI run cut the Watcher's
// link while it re-listed after a reconnection: go-zookeeper returned the
// bare write error, the path turned to "Cannot read" and the console lost
// the queue it had shown a moment before.
func TestConnLoss(t *testing.T) {
	reset := &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.ECONNRESET)}
	for _, tc := range []struct {
		err  error
		loss bool
	}{
		{reset, true},
		{fmt.Errorf("reading /x: %w", reset), true},
		{io.EOF, true},
		{os.ErrDeadlineExceeded, true},
		{zk.ErrConnectionClosed, true},
		{zk.ErrNoServer, true},
		{zk.ErrSessionExpired, true},
		{zk.ErrSessionMoved, true},
		{zk.ErrNoNode, false},
		{zk.ErrNoAuth, false},
		{zk.ErrBadArguments, false},
		{context.Canceled, false},
		{context.DeadlineExceeded, false},
		{nil, false},
	} {
		if got := connLoss(tc.err); got != tc.loss {
			t.Errorf("connLoss(%v) = %v, want %v", tc.err, got, tc.loss)
		}
	}
}
