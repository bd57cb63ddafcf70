package sandbox

import (
	"fmt"
	"os"
	"time"
)

// stopWait bounds the wait for every thread of a paused process to stop.
const stopWait = 5 * time.Second

// PauseProcess stops p with SIGSTOP, as a long GC pause or a VM stall
// would: its sockets stay open and nothing answers. On Linux it returns
// once every thread of p has stopped, not merely been signalled, so that
// a test that pauses a client to silence it does not see it answer
// (Member.Pause does the same for a server). Tests pause the client
// processes they started (sandbox/peers' drivers) this way.
func PauseProcess(p *os.Process) error {
	if err := pauseProcess(p); err != nil {
		return fmt.Errorf("sandbox: pause pid %d: %w", p.Pid, err)
	}
	if err := waitStopped(p.Pid, stopWait); err != nil {
		return fmt.Errorf("sandbox: pause pid %d: %w", p.Pid, err)
	}
	return nil
}

// ResumeProcess continues a process stopped by PauseProcess (SIGCONT).
func ResumeProcess(p *os.Process) error {
	if err := resumeProcess(p); err != nil {
		return fmt.Errorf("sandbox: resume pid %d: %w", p.Pid, err)
	}
	return nil
}
