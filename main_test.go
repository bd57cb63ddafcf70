package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// buildBinary builds zklock once per test binary so that command-line tests
// see exactly what a user runs: exit codes, stderr, no stack traces.
func buildBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zklock-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "zklock")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = &buildError{out: string(out), err: err}
		}
	})
	if binErr != nil {
		t.Fatalf("building zklock: %v", binErr)
	}
	return binPath
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// runBinary runs zklock with args and a bounded time.
func runBinary(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin := buildBinary(t)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("zklock %v did not exit within 30s; stderr: %s", args, e.String())
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

func TestVersion(t *testing.T) {
	out, _, code := runBinary(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "zklock ") {
		t.Fatalf("version: code %d, out %q", code, out)
	}
}

// assertOneLineFailure checks the house rule for bad input: a non-zero exit,
// exactly one line on stderr starting with "zklock: ", no panic trace.
func assertOneLineFailure(t *testing.T, stderr string, code int, want string) {
	t.Helper()
	if code == 0 {
		t.Fatalf("exit code 0, want non-zero; stderr %q", stderr)
	}
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "zklock: ") {
		t.Fatalf("stderr is not one 'zklock: ...' line: %q", stderr)
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Fatalf("stack trace on stderr: %q", stderr)
	}
	if want != "" && !strings.Contains(lines[0], want) {
		t.Fatalf("stderr %q does not mention %q", lines[0], want)
	}
}

func TestUnknownFlag(t *testing.T) {
	_, errOut, code := runBinary(t, nil, "--no-such-flag")
	assertOneLineFailure(t, errOut, code, "unknown flag")
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)
