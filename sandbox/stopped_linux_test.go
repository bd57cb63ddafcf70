package sandbox_test

import (
	"testing"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// TestPauseStopsEveryThread: when Pause returns, no thread of the member
// runs. Without the wait, about half of 200 pauses on this machine found a
// JVM thread still running right after kill(2) returned, and TestPauseResume
// once saw a paused member answer "imok".
func TestPauseStopsEveryThread(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{})
	m := c.Members()[0]
	for i := range 20 {
		if err := m.Pause(); err != nil {
			t.Fatal(err)
		}
		if tid, err := sandbox.RunningThread(m.PID()); err != nil || tid != "" {
			t.Fatalf("pause %d: thread %q still running (%v)", i, tid, err)
		}
		if err := m.Resume(); err != nil {
			t.Fatal(err)
		}
	}
}
