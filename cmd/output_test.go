package cmd

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/sessions"
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

// TestOutputFlag: every command that prints data takes -o; an unknown
// format, or --json beside another -o, is one line and exit 64, said
// before connecting (the servers named are a closed port: that refusal
// would come after). --json is -o json: the same object, with its
// schema version.
func TestOutputFlag(t *testing.T) {
	dead := "--servers=" + closedPort(t)
	for _, tc := range []struct {
		args    []string // the command, then its other arguments
		formats string
	}{
		{[]string{"ls", "/x"}, "text, json or name"},
		{[]string{"sessions", "/x"}, "text or json"},
		{[]string{"watch", "/x"}, "text or json"},
		{[]string{"doctor"}, "text or json"},
		{[]string{"version"}, "text or json"},
	} {
		name, rest := tc.args[0], tc.args[1:]
		_, errOut, code := runBinary(t, nil, append([]string{dead, name, "-o", "yaml"}, rest...)...)
		assertOneLineFailure(t, errOut, code, name+`: -o "yaml": want `+tc.formats)
		if code != exitUsage {
			t.Errorf("%s -o yaml: exit %d, want %d", name, code, exitUsage)
		}
		_, errOut, code = runBinary(t, nil, append([]string{dead, name, "--json", "-o", "text"}, rest...)...)
		assertOneLineFailure(t, errOut, code, name+`: --json and -o "text": give one`)
		if code != exitUsage {
			t.Errorf("%s --json -o text: exit %d, want %d", name, code, exitUsage)
		}
	}

	p := testPath(t)
	holder := holdLock(t, testSession(t), p)
	for _, flags := range [][]string{{"-o", "json"}, {"--json"}, {"--json", "-o", "json"}} {
		out, errOut, code := runBinary(t, nil, append(append([]string{serversFlag(t), "sessions"}, flags...), p)...)
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &raw); err != nil || code != 0 {
			t.Fatalf("sessions %v: code %d, stderr %q, %v\n%s", flags, code, errOut, err, out)
		}
		if got := slices.Sorted(maps.Keys(raw)); !slices.Equal(got, []string{"at", "deadlocks", "schema", "sessions"}) {
			t.Errorf("sessions %v: fields %v", flags, got)
		}
		var ss []sessions.JSONSession
		if err := json.Unmarshal(raw["sessions"], &ss); err != nil || string(raw["schema"]) != "1" ||
			len(ss) != 1 || len(ss[0].Holds) != 1 || ss[0].Holds[0].Node != holder.Node() {
			t.Errorf("sessions %v: schema %s, sessions %s (%v)", flags, raw["schema"], raw["sessions"], err)
		}
	}
	out, errOut, code := runBinary(t, nil, serversFlag(t), "ls", "-o", "json", p)
	var paths []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &paths); err != nil || code != 0 || len(paths) != 1 || string(paths[0]["schema"]) != "1" {
		t.Errorf("ls -o json: code %d, stderr %q, %v\n%s", code, errOut, err, out)
	}
}
