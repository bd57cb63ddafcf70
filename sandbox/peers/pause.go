package peers

import (
	"fmt"

	"github.com/zklock/zklock/sandbox"
)

// Pause stops the driver process with SIGSTOP, every client in it at once,
// as a long GC pause of the JVM or a stalled VM would: its sessions send
// no pings, so the servers expire them after their timeout while the
// clients, frozen, still believe they hold. It returns once every thread
// has stopped (Linux). Resume lets it go on.
func (p *Proc) Pause() error {
	if err := sandbox.PauseProcess(p.process); err != nil {
		return fmt.Errorf("peers: %s driver: %w", p.kind, err)
	}
	return nil
}

// Resume continues a paused driver (SIGCONT). Its clients then learn, each
// by its own library's means, that their sessions are gone.
func (p *Proc) Resume() error {
	if err := sandbox.ResumeProcess(p.process); err != nil {
		return fmt.Errorf("peers: %s driver: %w", p.kind, err)
	}
	return nil
}
