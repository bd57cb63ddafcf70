package cmd

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zklock/lockops"
)

// TestLsNamesIntoRelease: ls -o name prints the full path of every lock
// node, one a line, in queue order; piped into release --force --yes -,
// every one of them is released (each audited), and the queue is empty.
func TestLsNamesIntoRelease(t *testing.T) {
	p := testPath(t)
	holder := holdLock(t, testSession(t), p)
	waiter := lockops.NewLock(testSession(t), p)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() { _ = waiter.Acquire(ctx) }()
	c := testConn(t)
	eventually(t, 10*time.Second, "two nodes", func() bool { k, _, _ := c.Children(p); return len(k) == 2 })

	out, errOut, code := runBinary(t, nil, serversFlag(t), "ls", "-o", "name", p)
	if code != 0 {
		t.Fatalf("ls -o name: code %d, stderr %q", code, errOut)
	}
	want := p + "/" + holder.Node() + "\n" + p + "/" + waiter.Node() + "\n"
	if out != want {
		t.Fatalf("ls -o name printed %q, want %q", out, want)
	}

	audit := filepath.Join(t.TempDir(), "audit.log")
	rel := exec.Command(buildBinary(t), serversFlag(t), "--audit-log", audit, "release", "--force", "--yes", "-")
	rel.Stdin = strings.NewReader(out)
	if b, err := rel.CombinedOutput(); err != nil {
		t.Fatalf("release --force --yes -: %v: %s", err, b)
	}
	eventually(t, 10*time.Second, "the queue emptied", func() bool { k, _, _ := c.Children(p); return len(k) == 0 })
	if recs := readAudit(t, audit); len(recs) != 4 {
		t.Errorf("audit: %d lines, want 4 (before and after, each node)", len(recs))
	}

	// Without --yes, stdin is not read for node paths.
	if _, e, code := runBinary(t, nil, serversFlag(t), "release", "--force", "-"); code == 0 || !strings.Contains(e, "--yes") {
		t.Errorf("release - without --yes: code %d, stderr %q", code, e)
	}
}

// TestVersionJSONAndTypos: --version, version -o json, and a mistyped
// command named with what it may have meant.
func TestVersionJSONAndTypos(t *testing.T) {
	out, _, code := runBinary(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(out, "zklock ") {
		t.Errorf("--version: code %d, out %q", code, out)
	}
	out, _, code = runBinary(t, nil, "version", "-o", "json")
	var v versionInfo
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Schema != 1 || v.Version == "" || !strings.HasPrefix(v.Go, "go") {
		t.Errorf("version -o json: code %d, out %q", code, out)
	}
	_, errOut, code := runBinary(t, nil, "sesions")
	assertOneLineFailure(t, errOut, code, "did you mean sessions")
}
