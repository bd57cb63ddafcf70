package sandbox_test

import (
	"os/exec"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox"
)

// TestPauseProcess: a process paused by PauseProcess has no running
// thread when it returns, and runs again after ResumeProcess (a
// multi-threaded JVM driver is paused the same way by peers.Proc.Pause).
func TestPauseProcess(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := sandbox.StartChild(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for i := range 5 {
		if err := sandbox.PauseProcess(cmd.Process); err != nil {
			t.Fatal(err)
		}
		if tid, err := sandbox.RunningThread(cmd.Process.Pid); err != nil || tid != "" {
			t.Fatalf("pause %d: thread %q still running (%v)", i, tid, err)
		}
		if err := sandbox.ResumeProcess(cmd.Process); err != nil {
			t.Fatal(err)
		}
		// A busy loop runs (R) once resumed; a stopped one would stay T.
		eventuallyRunning(t, cmd.Process.Pid)
	}
}

// eventuallyRunning waits until some thread of pid is not stopped.
func eventuallyRunning(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if tid, err := sandbox.RunningThread(pid); err != nil || tid != "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still stopped 10s after ResumeProcess", pid)
		}
		time.Sleep(time.Millisecond)
	}
}
