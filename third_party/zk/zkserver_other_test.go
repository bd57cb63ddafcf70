//go:build !linux

package zk

import "syscall"

// zklock patch: serverProcAttr: only Linux ties a child's life to its
// parent; elsewhere TestMain's kill is the only guarantee.
func serverProcAttr() *syscall.SysProcAttr {
	return nil
}
