//go:build !linux

package lockrun

import "os/exec"

// stopWithParent has no portable equivalent outside Linux: if zklock is
// killed there, CMD runs on without the lock (README: run).
func stopWithParent(*exec.Cmd) {}

// keyboardSignalsChild: outside Linux every SIGINT is passed on.
func keyboardSignalsChild() bool { return false }
