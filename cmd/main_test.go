package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/audit"
	"github.com/zklock/zklock/third_party/zk"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// The package's tests share one standalone ZooKeeper (started by the first
// test that needs it, stopped by TestMain) and one zklock binary built
// once, so that command-line tests see exactly what a user runs: exit
// codes, stderr, no stack traces.
var shared = &sandboxtest.Shared{Options: sandbox.Options{Members: 1, TickTime: 100 * time.Millisecond}}

// testCluster is the shared server. Its 100 ms tick allows short sessions.
func testCluster(t testing.TB) *sandbox.Cluster {
	t.Helper()
	return shared.Cluster(t)
}

// testEnvDir holds the state and config directories every zklock run by
// the tests sees, so that no test writes to the user's home.
var testEnvDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zklock-main-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testEnvDir = dir
	for k, v := range map[string]string{
		"XDG_STATE_HOME":  filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"ZKLOCK_CONFIG":   filepath.Join(dir, "config", "zklock", "config.yaml"),
	} {
		os.Setenv(k, v)
	}
	for _, k := range []string{"ZK_SERVERS", "ZK_AUTH", "ZKLOCK_SERVERS", "ZKLOCK_AUTH", "ZKLOCK_CONTEXT", "NO_COLOR"} {
		os.Unsetenv(k)
	}
	code := m.Run()
	shared.Close()
	sharedTLS.Close()
	sharedExpired.Close()
	sharedSASL.Close()
	closeKerberos()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildBinary builds zklock once per test binary.
func buildBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zklock-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "zklock")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/zklock/zklock").CombinedOutput()
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

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binaryLimit bounds every zklock the tests run.
const binaryLimit = 60 * time.Second

// proc is one zklock process started by a test.
type proc struct {
	cmd      *exec.Cmd
	out, err lockedBuffer
	done     chan struct{}
	args     []string
}

// lockedBuffer is written by the process's copier while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startBinary starts zklock; the test's cleanup kills it if still running.
func startBinary(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	p, err := startProc(t, buildBinary(t), env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startProc is startBinary for a goroutine of the test: it reports a
// failure to start instead of ending the test (bin from buildBinary, called
// on the test's goroutine).
func startProc(t *testing.T, bin string, env []string, args ...string) (*proc, error) {
	p := &proc{cmd: exec.Command(bin, args...), done: make(chan struct{}), args: args}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start zklock %v: %w", args, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p, nil
}

// wait waits for the process to exit, at most limit; it returns the exit
// code.
func (p *proc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("zklock %v did not exit within %v; stderr: %s", p.args, limit, p.err.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// runBinary runs zklock with args and a bounded time.
func runBinary(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	p := startBinary(t, env, args...)
	code = p.wait(t, binaryLimit)
	return p.out.String(), p.err.String(), code
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

// --- ZooKeeper helpers ---------------------------------------------------

var pathSeq atomic.Int64

// testPath is a fresh lock parent for one test.
func testPath(t *testing.T) string {
	name := strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())
	return fmt.Sprintf("/t/%s-%d", name, pathSeq.Add(1))
}

// serversFlag is --servers for the shared cluster.
func serversFlag(t testing.TB) string { return "--servers=" + testCluster(t).ConnectString() }

func testConn(t testing.TB) *zk.Conn {
	t.Helper()
	return sandboxtest.Connect(t, testCluster(t).Servers(), 10*time.Second)
}

// testSession is a lock-core session, closed at the end of the test.
func testSession(t testing.TB) *lockops.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := lockops.Connect(ctx, testCluster(t).Servers())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// mkdirs creates p and its parents as persistent nodes.
func mkdirs(t testing.TB, c *zk.Conn, p string, acl []zk.ACL) {
	t.Helper()
	if acl == nil {
		acl = zk.WorldACL(zk.PermAll)
	}
	cur := ""
	for _, seg := range strings.Split(strings.Trim(p, "/"), "/") {
		cur += "/" + seg
		a := zk.WorldACL(zk.PermAll)
		if cur == p {
			a = acl
		}
		if _, err := c.Create(cur, nil, 0, a); err != nil && err != zk.ErrNodeExists {
			t.Fatalf("create %s: %v", cur, err)
		}
	}
}

// createNode makes an ephemeral sequential child of parent named
// prefix+<seq> and returns its name.
func createNode(t testing.TB, c *zk.Conn, parent, prefix, data string) string {
	t.Helper()
	p, err := c.Create(parent+"/"+prefix, []byte(data), zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatalf("create %s/%s: %v", parent, prefix, err)
	}
	return path.Base(p)
}

// Names as the real recipes make them (PRODUCT.md).
const (
	curatorPrefix = "_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-lock-"
	kazooPrefix   = "0123456789abcdef0123456789abcdef__lock__"
)

// holdLock takes a lock through the lock core and releases it at the end.
func holdLock(t *testing.T, s *lockops.Session, p string, opts ...lockops.Option) *lockops.Lock {
	t.Helper()
	l := lockops.NewLock(s, p, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = l.Release(ctx)
	})
	return l
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readAudit reads an audit log's records.
func readAudit(t *testing.T, file string) []audit.Record {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("audit log: %v", err)
	}
	defer f.Close()
	var recs []audit.Record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r audit.Record
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

// writeFile writes a test file and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
