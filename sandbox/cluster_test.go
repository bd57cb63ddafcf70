package sandbox_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zklock/zklock/third_party/zk"
)

// syncBuffer is a bytes.Buffer safe to read while the servers write to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestStandaloneRoundTrip(t *testing.T) {
	var out syncBuffer
	start := time.Now()
	c := sandboxtest.Start(t, sandbox.Options{Stdout: &out})
	t.Logf("standalone ready in %v (target under 5 s)", time.Since(start).Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if got := len(c.Servers()); got != 1 {
		t.Fatalf("Servers() = %v, want one", c.Servers())
	}
	if c.ConnectString() != c.Servers()[0] || !strings.HasPrefix(c.ConnectString(), "127.0.0.1:") {
		t.Errorf("ConnectString() = %q, Servers() = %v", c.ConnectString(), c.Servers())
	}
	if i, err := c.Leader(ctx); err != nil || i != 0 {
		t.Errorf("Leader() = %d, %v; want 0", i, err)
	}
	if err := c.WaitReady(ctx); err != nil {
		t.Errorf("WaitReady: %v", err)
	}
	srvr, err := fourletter.Ask(ctx, c.Servers()[0], "srvr")
	if err != nil || fourletter.ParseSrvr(srvr).Mode != "standalone" {
		t.Errorf("srvr = %q, %v; want Mode: standalone", srvr, err)
	}
	// Every four-letter word is allowed, not only srvr.
	if wchc, err := fourletter.Ask(ctx, c.Servers()[0], "wchc"); err != nil {
		t.Errorf("wchc = %q, %v", wchc, err)
	}

	conn := sandboxtest.Connect(t, c.Servers(), 10*time.Second)
	if _, err := conn.Create("/sandbox", []byte("round trip"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create: %v", err)
	}
	data, _, err := conn.Get("/sandbox")
	if err != nil || string(data) != "round trip" {
		t.Fatalf("get = %q, %v", data, err)
	}
	if !strings.Contains(c.LogTail(200), "binding to port") {
		t.Errorf("log does not show the server starting:\n%s", c.LogTail(20))
	}
	if copied := out.String(); !strings.Contains(copied, "zk1| ") || !strings.Contains(copied, "binding to port") {
		t.Errorf("Options.Stdout did not get the labelled log; got %d bytes", len(copied))
	}
}

func TestStartCancelled(t *testing.T) {
	sandboxtest.Need(t)
	parent := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel()
	_, err := sandbox.Start(ctx, sandbox.Options{Dir: parent})
	if !errors.Is(err, sandbox.ErrNotReady) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start with a 150ms context = %v, want ErrNotReady and DeadlineExceeded", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left in %s: %v", parent, entries)
	}
	if left := javaProcessesIn(t, parent); len(left) > 0 {
		t.Errorf("servers left running: %v", left)
	}
}

func TestEnsembleLeaderFailover(t *testing.T) {
	start := time.Now()
	c := sandboxtest.Start(t, sandbox.Options{Members: 3, TickTime: 100 * time.Millisecond})
	t.Logf("3-member ensemble ready in %v", time.Since(start).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	if got := strings.Count(c.ConnectString(), ","); got != 2 {
		t.Fatalf("ConnectString() = %q, want three members", c.ConnectString())
	}
	leader, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A session of seconds with a 100 ms tick needs maxSessionTimeout above
	// ZooKeeper's default of 20 ticks.
	conn := sandboxtest.Connect(t, c.Servers(), 4*time.Second)
	if got := conn.SessionID(); got == 0 {
		t.Fatal("no session id")
	}
	if _, err := conn.Create("/before", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create before failover: %v", err)
	}

	old := c.Members()[leader]
	killed := time.Now()
	if err := old.Kill(); err != nil {
		t.Fatal(err)
	}
	if old.Running() {
		t.Fatal("killed leader still running")
	}
	next, err := c.Leader(ctx)
	if err != nil {
		t.Fatalf("no new leader: %v", err)
	}
	if next == leader {
		t.Fatalf("Leader() = %d after killing member %d", next, leader)
	}
	t.Logf("new leader %d elected %v after killing %d", next, time.Since(killed).Round(time.Millisecond), leader)

	// The client, which knows all three members, reconnects on its own.
	for {
		_, err := conn.Create("/after", nil, 0, zk.WorldACL(zk.PermAll))
		if err == nil || errors.Is(err, zk.ErrNodeExists) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("client did not recover after failover: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Logf("client writes again %v after the kill", time.Since(killed).Round(time.Millisecond))

	// The old leader comes back, same ports and data, as a follower.
	if err := old.Restart(ctx); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if mode, err := sandbox.MemberMode(ctx, old.Addr()); err != nil || mode != "follower" {
		t.Errorf("restarted member mode = %q, %v; want follower", mode, err)
	}
	if !strings.Contains(old.LogTail(1000), "--- sandbox: ") {
		t.Errorf("log has no restart marker")
	}

	pids := memberPIDs(c)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertGone(t, pids, c.Dir())
}

func TestPauseResume(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{})
	m := c.Members()[0]
	if err := m.Pause(); err != nil {
		t.Fatal(err)
	}
	if !m.Paused() || !m.Running() {
		t.Errorf("Paused() = %v, Running() = %v after Pause", m.Paused(), m.Running())
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	reply, err := fourletter.Ask(ctx, m.Addr(), "ruok")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("paused member answered %q, %v; want the context's deadline to end the ask", reply, err)
	}
	if err := m.Resume(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := c.WaitReady(ctx); err != nil {
		t.Fatalf("after Resume: %v", err)
	}
	if reply, err := fourletter.Ask(ctx, m.Addr(), "ruok"); err != nil || reply != "imok" {
		t.Fatalf("after Resume ruok = %q, %v", reply, err)
	}
	// Stop after Pause must not wait for the grace: the member is resumed to
	// handle its SIGTERM.
	if err := m.Pause(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	if err := m.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if m.Running() {
		t.Fatal("running after Stop")
	}
	t.Logf("paused member stopped in %v", time.Since(stopped).Round(time.Millisecond))
	if err := m.Pause(); !errors.Is(err, sandbox.ErrNotRunning) {
		t.Errorf("Pause on a stopped member = %v, want ErrNotRunning", err)
	}
	if _, err := c.Leader(ctx); !errors.Is(err, sandbox.ErrNoLeader) {
		t.Errorf("Leader with no member running = %v, want ErrNoLeader", err)
	}
}

func TestProxyCutRestore(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{})
	p, err := sandbox.NewProxy(c.Servers()[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })

	states := make(chan zk.State, 256)
	conn := sandboxtest.ConnectCallback(t, []string{p.Addr()}, 20*time.Second, func(ev zk.Event) {
		if ev.Type == zk.EventSession {
			select {
			case states <- ev.State:
			default: // the test fails on a missed state rather than block the client
			}
		}
	})
	session := conn.SessionID()

	p.Cut()
	cut := time.Now()
	waitState(t, states, zk.StateDisconnected, 10*time.Second)
	t.Logf("client saw the cut after %v", time.Since(cut).Round(time.Millisecond))
	p.Restore()
	restored := time.Now()
	waitState(t, states, zk.StateHasSession, 15*time.Second)
	t.Logf("client had its session back %v after Restore", time.Since(restored).Round(time.Millisecond))
	if got := conn.SessionID(); got != session {
		t.Errorf("session after restore = %#x, want %#x", got, session)
	}
	if _, err := conn.Create("/through-proxy", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Errorf("create after restore: %v", err)
	}
}

func waitState(t *testing.T, states <-chan zk.State, want zk.State, d time.Duration) {
	t.Helper()
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	var seen []string
	for {
		select {
		case s := <-states:
			if s == want {
				return
			}
			seen = append(seen, s.String())
		case <-timeout.C:
			t.Fatalf("no %v within %v; saw %v", want, d, seen)
		}
	}
}

func TestCloseLeavesNothing(t *testing.T) {
	sandboxtest.Need(t)
	parent := t.TempDir()
	c, err := sandbox.Start(t.Context(), sandbox.Options{Dir: parent})
	if err != nil {
		t.Fatal(err)
	}
	pids := memberPIDs(c)
	if len(pids) != 1 || pids[0] == 0 {
		t.Fatalf("PIDs = %v", pids)
	}
	if len(javaProcessesIn(t, c.Dir())) != 1 {
		t.Errorf("did not find the server in /proc by its directory (test is blind)")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	assertGone(t, pids, c.Dir())
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left in %s: %v", parent, entries)
	}
	if err := c.Members()[0].Restart(t.Context()); !errors.Is(err, sandbox.ErrClosed) {
		t.Errorf("Restart after Close = %v, want ErrClosed", err)
	}
}

func memberPIDs(c *sandbox.Cluster) []int {
	var pids []int
	for _, m := range c.Members() {
		pids = append(pids, m.PID())
	}
	return pids
}

// assertGone checks that no process of pids is alive and that nothing runs
// from dir or is left in it.
func assertGone(t *testing.T, pids []int, dir string) {
	t.Helper()
	for _, pid := range pids {
		if pid != 0 && !processGone(pid) {
			t.Errorf("process %d still alive", pid)
		}
	}
	if left := javaProcessesIn(t, dir); len(left) > 0 {
		t.Errorf("java processes still running from %s: %v", dir, left)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there (%v)", dir, err)
	}
}

// processGone reports whether pid no longer runs. A zombie counts as gone:
// after its parent's death it waits for an init that may never reap it.
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return runtime.GOOS == "linux" // no /proc entry on Linux: gone
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// javaProcessesIn lists the pids of live java processes whose command line
// mentions dir (every member's zoo.cfg lives there).
func javaProcessesIn(t *testing.T, dir string) []int {
	t.Helper()
	if runtime.GOOS != "linux" {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var found []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte("java")) || !bytes.Contains(cmdline, []byte(dir)) {
			continue
		}
		if !processGone(pid) {
			found = append(found, pid)
		}
	}
	return found
}

func TestStartBrokenConfig(t *testing.T) {
	sandboxtest.Need(t)
	parent := t.TempDir()
	// Said by the server's exit, long before the deadline: not
	// ErrNotReady at it.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	_, err := sandbox.Start(ctx, sandbox.Options{Dir: parent, ExtraConfig: []string{"tickTime=notanumber"}})
	took := time.Since(start)
	if !errors.Is(err, sandbox.ErrExited) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start with a broken config = %v, want ErrExited", err)
	}
	if !strings.Contains(err.Error(), "notanumber") || !strings.Contains(err.Error(), "--- last lines of") {
		t.Errorf("error does not carry the log lines:\n%v", err)
	}
	t.Logf("broken config reported in %v:\n%v", took.Round(time.Millisecond), err)
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left in %s: %v", parent, entries)
	}
}

func TestStartPortInUse(t *testing.T) {
	sandboxtest.Need(t)
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	heldPort := held.Addr().(*net.TCPAddr).Port

	t.Run("retried on new ports", func(t *testing.T) {
		picks := 0
		opts := sandbox.WithPickPorts(sandbox.Options{Dir: t.TempDir()}, func(n int) ([]int, error) {
			picks++
			if picks == 1 {
				return []int{heldPort}, nil
			}
			return sandbox.FreePorts(n)
		})
		start := time.Now()
		c, err := sandbox.Start(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		t.Logf("started on the second pick after %v", time.Since(start).Round(time.Millisecond))
		if picks != 2 || c.Servers()[0] == held.Addr().String() {
			t.Errorf("picks = %d, servers = %v (held %d)", picks, c.Servers(), heldPort)
		}
	})
	t.Run("held twice", func(t *testing.T) {
		parent := t.TempDir()
		opts := sandbox.WithPickPorts(sandbox.Options{Dir: parent}, func(int) ([]int, error) { return []int{heldPort}, nil })
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		start := time.Now()
		_, err := sandbox.Start(ctx, opts)
		took := time.Since(start)
		if !errors.Is(err, sandbox.ErrPortInUse) || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Start on a held port = %v, want ErrPortInUse", err)
		}
		if !strings.Contains(err.Error(), "Address already in use") {
			t.Errorf("error does not carry the log lines:\n%v", err)
		}
		t.Logf("held port reported in %v", took.Round(time.Millisecond))
		if entries, _ := os.ReadDir(parent); len(entries) != 0 {
			t.Errorf("left in %s: %v", parent, entries)
		}
	})
}

func TestStartBadOptions(t *testing.T) {
	sandboxtest.Need(t)
	for _, o := range []sandbox.Options{{Members: -1}, {TickTime: time.Microsecond}, {TickTime: time.Second, MaxSessionTimeout: time.Second}} {
		if _, err := sandbox.Start(t.Context(), o); !errors.Is(err, sandbox.ErrOptions) {
			t.Errorf("Start(%+v) = %v, want ErrOptions", o, err)
		}
	}
}

// helperEnv makes the test binary, run again as a child, start a server and
// wait to be killed.
const helperEnv = "SANDBOX_TEST_HOLD_DIR"

func TestHelperHoldServer(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		return // only meaningful as the child of TestServerDiesWithItsParent
	}
	c, err := sandbox.Start(context.Background(), sandbox.Options{Dir: dir})
	if err != nil {
		fmt.Printf("ERROR %v\n", strings.ReplaceAll(err.Error(), "\n", " | "))
		os.Exit(1)
	}
	fmt.Printf("PID %d\n", c.Members()[0].PID())
	select {} // until killed
}

// TestServerDiesWithItsParent kills (SIGKILL, no cleanup at all) a process
// that started a server and checks that the server goes too.
func TestServerDiesWithItsParent(t *testing.T) {
	sandboxtest.Need(t)
	if runtime.GOOS != "linux" {
		t.Skip("Pdeathsig is Linux only; elsewhere Close is the guarantee")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldServer$", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	lines := make(chan string, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "PID ") || strings.HasPrefix(sc.Text(), "ERROR ") {
				lines <- sc.Text()
				return
			}
		}
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(60 * time.Second):
		t.Fatal("child did not start a server in 60 s")
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(line, "PID "))
	if err != nil {
		t.Fatalf("child: %s", line)
	}
	if processGone(pid) {
		t.Fatalf("server %d not running before the kill", pid)
	}
	killed := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("server %d outlived its parent by 10 s", pid)
		}
		time.Sleep(20 * time.Millisecond) // polling the kernel; nothing to wait on
	}
	t.Logf("server gone %v after its parent", time.Since(killed).Round(time.Millisecond))
}
