package zk

import "syscall"

// zklock patch: serverProcAttr has the kernel kill the test server when the
// thread that started it exits (see startTestZK).
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
