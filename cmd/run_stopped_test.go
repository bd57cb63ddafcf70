//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunLostWhileStopped: zklock run stopped (SIGSTOP: a paused VM, a
// long GC) past its session's timeout while CMD goes on and exits 0;
// resumed, it sees CMD's exit before any news of the loss, and the
// release finds the session gone: the run exits 69 with one line, not
// CMD's 0 (that would say CMD ran under a hold that did not last).
func TestRunLostWhileStopped(t *testing.T) {
	p := testPath(t)
	dir := t.TempDir()
	nodeFile, goFile, pidFile := filepath.Join(dir, "node"), filepath.Join(dir, "go"), filepath.Join(dir, "pid")
	script := `echo $$ > "$PIDFILE"; echo "$ZKLOCK_NODE" > "$NODEFILE"; while [ ! -e "$GO" ]; do sleep 0.02; done; exit 0`
	pr := startBinary(t, []string{"NODEFILE=" + nodeFile, "GO=" + goFile, "PIDFILE=" + pidFile},
		serversFlag(t), "--session-timeout", "2s", "run", p, "--", "sh", "-c", script)
	var node string
	eventually(t, 30*time.Second, "CMD to start and write its node", func() bool {
		b, _ := os.ReadFile(nodeFile)
		node = strings.TrimSpace(string(b))
		return node != ""
	})
	b, _ := os.ReadFile(pidFile)
	cmdPid := strings.TrimSpace(string(b))

	if err := pr.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = pr.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	defer resume()
	c := testConn(t)
	eventually(t, 30*time.Second, "the stopped run's session to expire (its node gone)", func() bool {
		ok, _, err := c.Exists(node)
		return err == nil && !ok
	})
	// CMD finishes while zklock is still stopped: it waits, a zombie,
	// for zklock to reap it.
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "CMD to exit", func() bool {
		stat, err := os.ReadFile("/proc/" + cmdPid + "/stat")
		return err != nil || strings.Contains(string(stat), ") Z ")
	})
	resume()
	code := pr.wait(t, binaryLimit)
	if code != exitLost {
		t.Fatalf("code %d, want %d (lost); stderr %q", code, exitLost, pr.err.String())
	}
	assertOneLineFailure(t, pr.err.String(), code, "lost while sh ran")
	t.Logf("stderr: %s", pr.err.String())
}
