package cmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
)

// TestWaitReporterTerminal: on a terminal the line is redrawn in place
// (carriage return, erase) with the elapsed wait, and erased at Stop, so
// CMD's output starts on a clean line.
func TestWaitReporterTerminal(t *testing.T) {
	var out lockedBuffer
	r := newWaitReporter(&out, true, "/locks/x", func(context.Context) string { return "#3 (session 0x1)" })
	r.Start(context.Background())
	r.Progress(lockops.Progress{State: lockops.LockQueued, Position: 2, Watching: "lock-0000000003"})
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "held by #3") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	r.Progress(lockops.Progress{State: lockops.LockHolding, Position: 1})
	r.Stop()
	got := out.String()
	if !strings.HasPrefix(got, "\r\x1b[Kzklock: waiting for /locks/x: 2nd in line, watching #3; held by #3 (session 0x1); waited ") {
		t.Fatalf("terminal output %q", got)
	}
	if !strings.HasSuffix(got, "\r\x1b[K") || strings.Contains(got, "\n") {
		t.Errorf("the line is not erased at the end, or a newline was written: %q", got)
	}
}

// TestWaitReporterQuickHold: a lock held within quietWait is not reported.
func TestWaitReporterQuickHold(t *testing.T) {
	var out lockedBuffer
	r := newWaitReporter(&out, false, "/locks/x", nil)
	r.Start(context.Background())
	r.Progress(lockops.Progress{State: lockops.LockQueued, Position: 1})
	r.Progress(lockops.Progress{State: lockops.LockHolding, Position: 1})
	r.Stop()
	if out.String() != "" {
		t.Errorf("a quick hold was reported: %q", out.String())
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}
