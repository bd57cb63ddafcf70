package sandbox

import (
	"os/exec"
	"runtime"
	"sync"
)

// Servers must never outlive the process that started them, even when that
// process dies by SIGKILL and runs no cleanup. On Linux the child asks the
// kernel for SIGKILL when its parent goes (Pdeathsig, see procattr_linux.go).
// The kernel's "parent" there is the OS thread that forked, not the process:
// if that thread exits, every server it started is killed at once. The Go
// runtime may end a thread (for instance one whose goroutine locked it and
// returned without unlocking), so forks happen on one goroutine that locks its
// thread and never returns: that thread lives exactly as long as the process.

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

// StartChild starts cmd as the sandbox starts its servers: from the one
// thread that lives as long as the process, asking the kernel to kill the
// child when this process goes (Linux), in a process group of its own so
// that a Ctrl-C at the terminal does not reach it first. Other helper
// processes of tests and benchmarks (sandbox/peers' client drivers) start
// this way too. cmd.SysProcAttr is replaced.
func StartChild(cmd *exec.Cmd) error {
	cmd.SysProcAttr = serverProcAttr()
	return startProcess(cmd)
}
