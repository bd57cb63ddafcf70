//go:build unix && !linux

package peers

import "syscall"

// procAttr puts the driver in its own process group. Only Linux ties a
// child's life to its parent (Pdeathsig); elsewhere the driver exits at the
// end of its input, when its parent is gone.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
