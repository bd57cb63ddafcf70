package lockrun

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// stopWithParent asks the kernel to send CMD SIGTERM if zklock dies
// (SIGKILL, OOM killer): the lock then goes with zklock's session, and CMD
// must not go on believing it runs alone. (The signal follows the thread
// that started CMD; Go's threads outlive their goroutines unless locked,
// which run never does.)
func stopWithParent(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// keyboardSignalsChild says whether a SIGINT zklock receives most likely
// came from the terminal's Ctrl-C, which the kernel delivers to the whole
// foreground process group, CMD included: standard input is a terminal
// whose foreground group is zklock's (CMD shares it). Passing that SIGINT
// on would give CMD two. sudo follows the same rule.
func keyboardSignalsChild() bool {
	fg, err := unix.IoctlGetInt(int(os.Stdin.Fd()), unix.TIOCGPGRP)
	return err == nil && fg == syscall.Getpgrp()
}
