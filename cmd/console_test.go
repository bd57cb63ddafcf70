package cmd

import (
	"fmt"
	"io"
	"net"
	"os"
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

// TestConsoleConnecting: the console draws at once, saying whom it
// connects to and for how long; a server that accepts and never answers
// ends it at --connect-timeout, and a refused one at once, each with the
// one line and the exit code the command gave before it drew anything.
func TestConsoleConnecting(t *testing.T) {
	bin := buildBinary(t)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			// Read and drop: the connect request is never answered.
			go func() { defer c.Close(); _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	addr := silent.Addr().String()
	p := startPane(t, 100, 30, e2eEnv(t), bin, "--servers", addr, "--connect-timeout", "4s", "--read-only", "/locks/job")
	s := p.waitText("connecting to "+addr+"… (", "giving up after 4s")
	if header := strings.SplitN(s, "\n", 2)[0]; !strings.Contains(header, "connecting to "+addr) {
		t.Errorf("header %q does not say whom it connects to", header)
	}
	p.waitText("(2s)", "2s so far")
	s = p.waitText("[exit 1]")
	if want := "zklock: cannot reach ZooKeeper at " + addr + " within 4s"; !strings.Contains(s, want) {
		t.Errorf("after the timeout the pane lacks %q:\n%s", want, s)
	}
	if strings.Contains(s, "connecting to") {
		t.Errorf("the console's screen was left behind:\n%s", s)
	}

	// A refused port ends it at once, not at the 10 minutes given.
	dead := closedPort(t)
	p = startPane(t, 100, 30, e2eEnv(t), bin, "--servers", dead, "--connect-timeout", "10m", "--read-only", "/locks/job")
	s = p.waitText("[exit 1]")
	if want := "zklock: connection refused by " + dead; !strings.Contains(s, want) {
		t.Errorf("the pane lacks %q:\n%s", want, s)
	}
}

// TestConsoleNeedsTerminal: the console refuses to start when stdout is
// not a terminal, with one line and exit 1, before connecting (the
// server named never sees a connection); --log-file still gets its lines.
func TestConsoleNeedsTerminal(t *testing.T) {
	addr, accepted := countingListener(t)
	logFile := filepath.Join(t.TempDir(), "debug.log")
	stdout, stderr, code := runBinary(t, nil, "--servers", addr, "--log-file", logFile, "--read-only", "/locks/job")
	assertOneLineFailure(t, stderr, code, "the console needs a terminal on stdout")
	if code != exitFailure || stdout != "" {
		t.Errorf("code %d (want %d), stdout %q", code, exitFailure, stdout)
	}
	if n := accepted(); n != 0 {
		t.Errorf("the console connected %d times before refusing", n)
	}
	if b, err := os.ReadFile(logFile); err != nil || !strings.Contains(string(b), "level=DEBUG msg=start") {
		t.Errorf("--log-file: %q, %v", b, err)
	}
}
