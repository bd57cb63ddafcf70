package lockrun

// The child and the signals: waiting unless signalled, supervising CMD
// under the hold, releasing it after.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/zklock/zklock/holds"
	"github.com/zklock/zklock/lockops"
)

// acquireUnlessSignalled waits for the lock, bounded by timeout (0: no
// bound), and gives up on a signal; it returns the signal that ended the
// wait, if any.
func acquireUnlessSignalled(ctx context.Context, l *holds.Hold, timeout time.Duration, sigs <-chan os.Signal) (os.Signal, error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	if timeout > 0 {
		var c2 context.CancelFunc
		actx, c2 = context.WithTimeout(actx, timeout)
		defer c2()
	}
	res := make(chan error, 1)
	go func() { res <- l.Acquire(actx) }()
	select {
	case err := <-res:
		return nil, err
	case sig := <-sigs:
		cancel()
		// Acquire deletes the node before it returns.
		<-res
		return sig, context.Canceled
	}
}

// superviseChild waits for the command, passing signals on and stopping it
// if the lock is lost. It returns the code to exit with (the command's, or
// 128+signal as shells do) and the loss, if any, saying how the command
// was stopped.
func superviseChild(child *exec.Cmd, l *holds.Hold, sigs <-chan os.Signal, grace time.Duration) (int, error) {
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	lost := l.Done()
	var (
		lostErr error
		kill    <-chan time.Time
		killed  bool
	)
	for {
		select {
		case <-exited:
			if lostErr != nil {
				how := "SIGTERM"
				if killed {
					how = fmt.Sprintf("SIGTERM, then SIGKILL after %s", grace)
				}
				lostErr = fmt.Errorf("%w; sent %s", lostErr, how)
			}
			return childExitCode(child.ProcessState), lostErr
		case sig := <-sigs:
			if sig == syscall.SIGINT && keyboardSignalsChild() {
				continue // Ctrl-C: CMD has had it from the terminal
			}
			_ = child.Process.Signal(sig)
		case <-lost:
			lost = nil
			lostErr = l.Err()
			if lostErr == nil {
				lostErr = errors.New("released")
			}
			_ = child.Process.Signal(syscall.SIGTERM)
			t := time.NewTimer(grace)
			defer t.Stop()
			kill = t.C
		case <-kill:
			kill, killed = nil, true
			_ = child.Process.Kill()
		}
	}
}

// childExitCode is the command's exit code, or 128+N when signal N ended
// it.
func childExitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// release lets go of the hold after CMD, bounded by releaseTimeout; a
// hold already gone is no error.
func release(l *holds.Hold) error {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := l.Release(ctx); err != nil && !errors.Is(err, lockops.ErrNotHeld) {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}
