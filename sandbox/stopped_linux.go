package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// waitStopped returns once every thread of pid is stopped. SIGSTOP is
// delivered asynchronously: kill(2) returns while a JVM thread that is on a
// CPU may still answer a request, and a test that pauses a member to make it
// silent must not see it answer.
func waitStopped(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		running, err := runningThread(pid)
		if err != nil || running == "" {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("thread %s still running %v after SIGSTOP", running, timeout)
		}
		time.Sleep(time.Millisecond)
	}
}

// runningThread names a thread of pid that is not stopped, or "" when all
// are. A process that has gone is not running.
func runningThread(pid int) (string, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil {
		return "", err
	}
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread exited
		}
		// "tid (comm) S ...": comm may hold anything, the state follows the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) {
			continue
		}
		switch b[i+2] {
		case 'T', 't', 'Z', 'X':
		default:
			return filepath.Base(filepath.Dir(f)), nil
		}
	}
	return "", nil
}
