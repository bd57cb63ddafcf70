package cmd

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsoleContext: `zklock --context NAME` with no PATH watches the
// context's roots, shows the context's name in the header, is read-only
// when the context says so, and takes (audited, with the context's name)
// with --write. Driven in tmux with the e2e helpers.
func TestConsoleContext(t *testing.T) {
	bin := buildBinary(t)
	c := testConn(t)
	base := testPath(t)
	lock := base + "/billing"
	hs := testSession(t)
	holdLock(t, hs, lock)
	cfg := writeFile(t, "config.yaml", fmt.Sprintf(
		"contexts:\n  ops-eu:\n    servers: [%s]\n    roots: [%s]\n    read_only: true\n", testCluster(t).ConnectString(), base))
	audit := filepath.Join(t.TempDir(), "audit.log")
	env := e2eEnv(t, "ZKLOCK_CONFIG="+cfg)

	// Read-only: the lock is found below the root, the header names the
	// context, and t does nothing.
	p := startPane(t, 160, 40, env, bin, "--context", "ops-eu", "--audit-log", audit)
	s := p.waitText("ops-eu", lock, fmt.Sprintf("0x%x", hs.ID()))
	if header := strings.SplitN(s, "\n", 2)[0]; !strings.Contains(header, "ops-eu") {
		t.Errorf("header %q does not name the context", header)
	}
	p.keys("t")
	p.settle()
	if kids, _, _ := c.Children(lock); len(kids) != 1 {
		t.Fatalf("read-only context: t changed the queue to %v", kids)
	}
	p.keys("q")
	p.waitText("[exit 0]")

	// --write: t queues the operator behind the holder.
	p = startPane(t, 160, 40, env, bin, "--context", "ops-eu", "--write", "--audit-log", audit)
	p.waitText("ops-eu", lock)
	p.keys("t")
	eventually(t, e2eWait, "the operator's node", func() bool { k, _, _ := c.Children(lock); return len(k) == 2 })
	p.keys("q")
	p.waitText("release and quit")
	p.keys("y")
	p.waitText("[exit 0]")
	if kids, _, _ := c.Children(lock); len(kids) != 1 {
		t.Fatalf("after quit the queue is %v, want the holder only", kids)
	}
	var got []string
	for _, r := range readAudit(t, audit) {
		got = append(got, r.Action+"/"+r.Phase)
		if r.Context != "ops-eu" || r.Path != lock {
			t.Errorf("audit line %+v: want context ops-eu, path %s", r, lock)
		}
	}
	if strings.Join(got, " ") != "take/before take/after release/before release/after" {
		t.Errorf("audit: %v", got)
	}
}
