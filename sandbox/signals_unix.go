//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

func pauseProcess(p *os.Process) error     { return p.Signal(syscall.SIGSTOP) }
func resumeProcess(p *os.Process) error    { return p.Signal(syscall.SIGCONT) }
func terminateProcess(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
