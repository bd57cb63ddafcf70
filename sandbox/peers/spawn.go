package peers

import (
	"os/exec"
	"runtime"
	"sync"
)

// A driver must not outlive the test or benchmark that started it, even one
// killed by SIGKILL: on Linux it asks the kernel for SIGKILL when its parent
// goes (procattr_linux.go). The kernel's "parent" there is the OS thread
// that forked, and the Go runtime may end threads, so forks happen on one
// goroutine that locks its thread and never returns (as in package sandbox,
// whose spawner is not exported). The drivers also exit at the end of their
// input, which covers the other systems.

type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	spawnOnce sync.Once
	spawnCh   chan spawnRequest
)

// startProcess starts cmd from the spawner thread.
func startProcess(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnCh = make(chan spawnRequest)
		go spawner(spawnCh)
	})
	req := spawnRequest{cmd: cmd, done: make(chan error, 1)}
	spawnCh <- req
	return <-req.done
}

func spawner(reqs <-chan spawnRequest) {
	runtime.LockOSThread()
	// Never unlocked and never returns: see the comment at the top.
	for req := range reqs {
		req.done <- req.cmd.Start()
	}
}
