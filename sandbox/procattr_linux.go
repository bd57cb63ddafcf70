package sandbox

import "syscall"

// serverProcAttr kills the server with SIGKILL when the thread that started
// it exits (see spawn.go for why that thread lives as long as the process),
// and puts it in its own process group so that a Ctrl-C meant for zklock's
// terminal does not reach the servers before zklock has closed its sessions.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}
