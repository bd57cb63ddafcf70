package main

import (
	"os/exec"
	"syscall"
)

// stopWithParent asks the kernel to send CMD SIGTERM if zklock dies
// (SIGKILL, OOM killer): the lock then goes with zklock's session, and CMD
// must not go on believing it runs alone. (The signal follows the thread
// that started CMD; Go's threads outlive their goroutines unless locked,
// which run never does.)
func stopWithParent(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
