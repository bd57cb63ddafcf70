//go:build unix && !linux

package sandbox

import "syscall"

// serverProcAttr puts the server in its own process group. Only Linux can
// tie a child's life to its parent (Pdeathsig); elsewhere Cluster.Close is
// the only guarantee.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
