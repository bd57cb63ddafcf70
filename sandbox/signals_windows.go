//go:build windows

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

// Windows has no SIGSTOP or SIGTERM: pausing is unsupported and stopping
// kills. The package builds so that zklock builds; its servers are meant for
// Linux and macOS.

func pauseProcess(*os.Process) error       { return errors.ErrUnsupported }
func resumeProcess(*os.Process) error      { return errors.ErrUnsupported }
func terminateProcess(p *os.Process) error { return p.Kill() }
func serverProcAttr() *syscall.SysProcAttr { return nil }
