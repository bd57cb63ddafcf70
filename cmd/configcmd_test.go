package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCommandsRoundTrip: set-context makes a context that
// get-contexts lists, use-context makes current, current-context names,
// view shows under the file's path, and that a command with no
// --servers then connects to (the real ensemble); --config beats
// ZKLOCK_CONFIG; an unknown context is one line and exit 1.
func TestConfigCommandsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "conf", "zklock.yaml")
	decoy := filepath.Join(dir, "decoy.yaml") // ZKLOCK_CONFIG, which --config beats
	env := []string{"ZKLOCK_CONFIG=" + decoy}
	zkl := func(args ...string) (string, string, int) {
		t.Helper()
		return runBinary(t, env, append([]string{"--config", file}, args...)...)
	}
	mustRun := func(args ...string) string {
		t.Helper()
		out, errOut, code := zkl(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errOut)
		}
		return out
	}

	out := mustRun("config", "set-context", "lab", "--servers", testCluster(t).ConnectString(), "--read-only", "--root", "/t")
	if !strings.Contains(out, `Context "lab" created in `+file) {
		t.Errorf("set-context: %q", out)
	}
	mustRun("config", "set-context", "prod", "--servers", "zk1:2181,zk2/app", "--auth-file", "/etc/zk/prod.auth")
	if out = mustRun("config", "set-context", "prod", "--theme", "mono"); !strings.Contains(out, `Context "prod" modified`) {
		t.Errorf("set-context again: %q", out)
	}
	assertMode(t, file, 0o600)
	if _, err := os.Stat(decoy); err == nil {
		t.Errorf("ZKLOCK_CONFIG written despite --config")
	}

	if _, errOut, code := zkl("config", "current-context"); code != exitFailure || !strings.Contains(errOut, "no current context") {
		t.Errorf("current-context before use-context: exit %d, %q", code, errOut)
	}
	_, errOut, code := zkl("config", "use-context", "nope")
	assertOneLineFailure(t, errOut, code, `no context "nope" in `+file+" (have: lab, prod)")
	if code != exitFailure {
		t.Errorf("use-context nope: exit %d", code)
	}
	mustRun("config", "use-context", "lab")
	if out = mustRun("config", "current-context"); out != "lab\n" {
		t.Errorf("current-context: %q", out)
	}

	var rows []contextRow
	if err := json.Unmarshal([]byte(mustRun("config", "get-contexts", "-o", "json")), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("get-contexts -o json: %v %+v", err, rows)
	}
	if r := rows[1]; r.Name != "prod" || r.Current || strings.Join(r.Servers, ",") != "zk1:2181,zk2:2181" || r.Chroot != "/app" || r.AuthFile != "/etc/zk/prod.auth" {
		t.Errorf("prod: %+v", r)
	}
	if r := rows[0]; r.Name != "lab" || !r.Current || !r.ReadOnly {
		t.Errorf("lab: %+v", r)
	}
	text := mustRun("config", "get-contexts")
	if lines := strings.Split(strings.TrimSpace(text), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[1], "*") || !strings.Contains(lines[1], "lab") {
		t.Errorf("get-contexts:\n%s", text)
	}
	if out = mustRun("config", "get-contexts", "-o", "name"); out != "lab\nprod\n" {
		t.Errorf("get-contexts -o name: %q", out)
	}
	view := mustRun("config", "view")
	if !strings.HasPrefix(view, "# "+file+"\n") || !strings.Contains(view, "current_context: lab") || !strings.Contains(view, "auth_file: /etc/zk/prod.auth") {
		t.Errorf("view:\n%s", view)
	}

	// The current context is what a command with no --servers reaches.
	p := testPath(t)
	holder := holdLock(t, testSession(t), p)
	out, errOut, code = zkl("ls", "-o", "name", p)
	if code != 0 || !strings.Contains(out, holder.Node()) {
		t.Errorf("ls through the current context: exit %d, stderr %q, out %q", code, errOut, out)
	}
}

// TestDebugLog: --log-file gets the debug log of a one-shot command
// (its start, where it connects, the session), --verbose puts it on
// stderr too, and without --verbose stderr stays empty.
func TestDebugLog(t *testing.T) {
	p := testPath(t)
	holdLock(t, testSession(t), p)
	logFile := filepath.Join(t.TempDir(), "debug.log")
	_, errOut, code := runBinary(t, nil, serversFlag(t), "ls", "--log-file", logFile, p)
	if code != 0 || errOut != "" {
		t.Fatalf("ls --log-file: exit %d, stderr %q", code, errOut)
	}
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"level=DEBUG msg=start command=\"zklock ls\"", "msg=connecting", "msg=connected session=0x"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("log file lacks %q:\n%s", want, b)
		}
	}
	assertMode(t, logFile, 0o600)

	_, errOut, code = runBinary(t, nil, serversFlag(t), "sessions", "-v", p)
	if code != 0 || !strings.Contains(errOut, "msg=connected session=0x") || !strings.Contains(errOut, `command="zklock sessions"`) {
		t.Errorf("sessions -v: exit %d, stderr %q", code, errOut)
	}
	// --verbose with a failure: the debug lines, then the one error line.
	_, errOut, code = runBinary(t, nil, "--servers", closedPort(t), "run", "--verbose", p, "--", "true")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != exitFailure || len(lines) < 2 || !strings.Contains(errOut, "msg=\"connect failed\"") || !strings.HasPrefix(lines[len(lines)-1], "zklock: ") {
		t.Errorf("run --verbose, refused: exit %d, stderr %q", code, errOut)
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != want {
		t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), want)
	}
}
