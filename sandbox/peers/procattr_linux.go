package peers

import "syscall"

// procAttr kills the driver when the thread that started it exits (see
// spawn.go), and puts it in its own process group so that a Ctrl-C meant
// for a benchmark's terminal does not reach the drivers before their
// sessions are closed.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
