package cmd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zklock/zklock/audit"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockrun"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox/peers"
)

// TestRunExitCodeAndEnv: CMD's exit code is zklock's, CMD sees ZKLOCK_PATH
// and ZKLOCK_NODE, the lock is released afterwards, and the audit log has
// a line before and after.
func TestRunExitCodeAndEnv(t *testing.T) {
	p := testPath(t)
	auditFile := filepath.Join(t.TempDir(), "audit.log")
	out, errOut, code := runBinary(t, nil, serversFlag(t), "--audit-log", auditFile,
		"run", "--note", "nightly", p, "--", "sh", "-c", `echo "$ZKLOCK_PATH $ZKLOCK_NODE"; exit 7`)
	if code != 7 {
		t.Fatalf("exit code %d, want 7; stderr %q", code, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr %q, want nothing", errOut)
	}
	fields := strings.Fields(out)
	if len(fields) != 2 || fields[0] != p || !strings.HasPrefix(fields[1], p+"/_c_") || !strings.Contains(fields[1], "-lock-") {
		t.Fatalf("CMD saw %q, want %q and a Curator-style node under it", out, p)
	}
	if kids, _, err := testConn(t).Children(p); err != nil || len(kids) != 0 {
		t.Fatalf("after run the lock parent holds %v (%v)", kids, err)
	}
	recs := readAudit(t, auditFile)
	if len(recs) != 2 {
		t.Fatalf("audit: %d lines, want 2: %+v", len(recs), recs)
	}
	b, a := recs[0], recs[1]
	if b.Action != "run" || b.Phase != audit.PhaseBefore || b.Path != p || !slices.Equal(b.Command, []string{"sh", "-c", `echo "$ZKLOCK_PATH $ZKLOCK_NODE"; exit 7`}) {
		t.Errorf("audit before: %+v", b)
	}
	if a.Phase != audit.PhaseAfter || a.Outcome != "exited" || a.ExitCode == nil || *a.ExitCode != 7 || p+"/"+a.Node != fields[1] {
		t.Errorf("audit after: %+v", a)
	}
	for _, r := range recs {
		if r.User == "" || r.Host == "" || r.Time == "" || r.Servers == "" || r.Session == "" {
			t.Errorf("audit line lacks who/where: %+v", r)
		}
	}

	// Exit code 0 passes through as 0, and a signal death as 128+N.
	if _, e, c := runBinary(t, nil, serversFlag(t), "--audit-log", auditFile, "run", p, "--", "true"); c != 0 {
		t.Errorf("run true: code %d, stderr %q", c, e)
	}
	if _, e, c := runBinary(t, nil, serversFlag(t), "--audit-log", auditFile, "run", p, "--", "sh", "-c", "kill -KILL $$"); c != 128+9 {
		t.Errorf("run of a killed command: code %d, want 137; stderr %q", c, e)
	}
}

// TestRunMutualExclusion: several concurrent `zklock run` processes on one
// path; each CMD appends its interval to a file; no two intervals overlap.
func TestRunMutualExclusion(t *testing.T) {
	p := testPath(t)
	log := filepath.Join(t.TempDir(), "intervals")
	const n = 5
	script := `echo "S $ID $(date +%s%N)" >> "$LOG"; sleep 0.2; echo "E $ID $(date +%s%N)" >> "$LOG"`
	var procs []*proc
	for i := range n {
		procs = append(procs, startBinary(t, []string{"LOG=" + log, "ID=" + strconv.Itoa(i)},
			serversFlag(t), "--audit-log", filepath.Join(t.TempDir(), "audit"), "run", p, "--", "sh", "-c", script))
	}
	for _, pr := range procs {
		if code := pr.wait(t, binaryLimit); code != 0 {
			t.Fatalf("zklock run exited %d: %s", code, pr.err.String())
		}
	}
	checkNoOverlap(t, log, n)
}

// checkNoOverlap reads the intervals the commands wrote and fails if two
// overlap or any is missing.
func checkNoOverlap(t *testing.T, file string, want int) {
	t.Helper()
	ivs := runIntervals(t, file)
	if len(ivs) != want {
		t.Fatalf("%d intervals, want %d", len(ivs), want)
	}
	if ov := peers.Overlaps(ivs); len(ov) > 0 {
		t.Fatalf("critical sections overlap: %v and %v", ov[0][0], ov[0][1])
	}
}

// TestRunTimeout: --timeout passes while another client holds: exit 3, one
// line naming the holder, and no node of ours left behind.
func TestRunTimeout(t *testing.T) {
	p := testPath(t)
	holder := holdLock(t, testSession(t), p, lockops.WithNote("held-by-test"))
	start := time.Now()
	_, errOut, code := runBinary(t, nil, serversFlag(t), "--audit-log", filepath.Join(t.TempDir(), "a"),
		"run", "--quiet", "--timeout", "1s", p, "--", "sh", "-c", "echo must-not-run; exit 9")
	if code != exitNotAcquired {
		t.Fatalf("code %d, want %d; stderr %q", code, exitNotAcquired, errOut)
	}
	assertOneLineFailure(t, errOut, code, "not acquired within 1s")
	t.Logf("stderr: %s", errOut)
	if !strings.Contains(errOut, holder.Node()) || !strings.Contains(errOut, "held-by-test") {
		t.Errorf("the message does not name the holder %s: %q", holder.Node(), errOut)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v for a 1s timeout", took)
	}
	if kids, _, _ := testConn(t).Children(p); len(kids) != 1 {
		t.Fatalf("after the timeout the queue is %v, want only the holder", kids)
	}
}

// TestRunLostLock: the lock is force-released from another client while
// CMD runs: CMD gets SIGTERM (and SIGKILL after --grace if it ignores
// it), zklock exits 4 with one line.
func TestRunLostLock(t *testing.T) {
	for _, tc := range []struct {
		name, trap string
	}{
		{"honours SIGTERM", `trap 'echo got-term >> "$MARK"; exit 0' TERM`},
		{"ignores SIGTERM", `trap '' TERM`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := testPath(t)
			dir := t.TempDir()
			nodeFile, mark := filepath.Join(dir, "node"), filepath.Join(dir, "mark")
			script := tc.trap + `; echo "$ZKLOCK_NODE" > "$NODEFILE"; while :; do sleep 0.05; done`
			start := time.Now()
			pr := startBinary(t, []string{"NODEFILE=" + nodeFile, "MARK=" + mark},
				serversFlag(t), "--audit-log", filepath.Join(dir, "audit"), "run", "--grace", "500ms", p, "--", "sh", "-c", script)
			var node string
			eventually(t, 30*time.Second, "CMD to start and write its node", func() bool {
				b, _ := os.ReadFile(nodeFile)
				node = strings.TrimSpace(string(b))
				return node != ""
			})
			c := testConn(t)
			_, st, err := c.Exists(node)
			if err != nil || st == nil {
				t.Fatalf("exists %s: %v", node, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := lockops.ForceRelease(ctx, testSession(t), node, st.EphemeralOwner); err != nil {
				t.Fatal(err)
			}
			code := pr.wait(t, binaryLimit)
			if code != exitLost {
				t.Fatalf("code %d, want %d; stderr %q", code, exitLost, pr.err.String())
			}
			assertOneLineFailure(t, pr.err.String(), code, "lost")
			t.Logf("stderr: %s", pr.err.String())
			if strings.HasPrefix(tc.name, "honours") {
				if b, _ := os.ReadFile(mark); !strings.Contains(string(b), "got-term") {
					t.Errorf("CMD did not get SIGTERM (mark %q)", b)
				}
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

// TestRunRefusesMixedQueue: a parent holding Curator and Kazoo nodes (they
// cannot see each other) is refused with a clear line, and nothing runs.
func TestRunRefusesMixedQueue(t *testing.T) {
	p := testPath(t)
	c := testConn(t)
	mkdirs(t, c, p, nil)
	createNode(t, c, p, curatorPrefix, "java-service")
	createNode(t, c, p, kazooPrefix, "python-job")
	out, errOut, code := runBinary(t, nil, serversFlag(t), "--audit-log", filepath.Join(t.TempDir(), "a"),
		"run", "--timeout", "5s", p, "--", "echo", "must-not-run")
	assertOneLineFailure(t, errOut, code, "refusing to join "+p)
	t.Logf("stderr: %s", errOut)
	for _, want := range []string{"mixes lock recipes", "--allow-mixed"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	if strings.Contains(out, "must-not-run") {
		t.Fatal("CMD ran on a mixed queue")
	}
	if kids, _, _ := c.Children(p); len(kids) != 2 {
		t.Fatalf("queue %v, want the two nodes only", kids)
	}
}

// TestRunForwardsSignals: SIGTERM to zklock reaches CMD, whose exit code
// (here from its trap) is zklock's; the lock is released.
func TestRunForwardsSignals(t *testing.T) {
	p := testPath(t)
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	pr := startBinary(t, []string{"READY=" + ready}, serversFlag(t), "--audit-log", filepath.Join(dir, "a"),
		"run", p, "--", "sh", "-c", `trap 'exit 42' TERM; touch "$READY"; while :; do sleep 0.05; done`)
	eventually(t, 30*time.Second, "CMD to start", func() bool { _, err := os.Stat(ready); return err == nil })
	if err := pr.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := pr.wait(t, binaryLimit); code != 42 {
		t.Fatalf("code %d, want 42 (from CMD's trap); stderr %q", code, pr.err.String())
	}
	if kids, _, _ := testConn(t).Children(p); len(kids) != 0 {
		t.Fatalf("after the signal the queue holds %v", kids)
	}
}

// TestRunWaitsThenRuns: a queued run waits for the holder and runs once it
// lets go.
func TestRunWaitsThenRuns(t *testing.T) {
	p := testPath(t)
	s := testSession(t)
	l := lockops.NewLock(s, p)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := l.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	pr := startBinary(t, nil, serversFlag(t), "--audit-log", filepath.Join(t.TempDir(), "a"), "run", p, "--", "echo", "ran")
	c := testConn(t)
	eventually(t, 30*time.Second, "zklock to queue", func() bool { k, _, _ := c.Children(p); return len(k) == 2 })
	if strings.Contains(pr.out.String(), "ran") {
		t.Fatal("CMD ran while another client held the lock")
	}
	// While queued, run says where it is and who holds the lock (stderr
	// is not a terminal here: one line per change).
	holder := model.NodeRef(l.Node(), 24)
	want := "zklock: waiting for " + p + ": 2nd in line, watching " + holder + "; held by " + holder + " (session " + model.SessionHex(s.ID())
	eventually(t, 10*time.Second, "the wait reported", func() bool { return strings.Contains(pr.err.String(), want) })
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if code := pr.wait(t, binaryLimit); code != 0 || strings.TrimSpace(pr.out.String()) != "ran" {
		t.Fatalf("code %d, out %q, err %q", code, pr.out.String(), pr.err.String())
	}
	// Quiet once held: the report is the only thing on stderr.
	for _, line := range strings.Split(strings.TrimSpace(pr.err.String()), "\n") {
		if !strings.HasPrefix(line, "zklock: waiting for "+p) {
			t.Errorf("stderr line %q after the wait", line)
		}
	}

	// --quiet says nothing.
	l2 := holdLock(t, s, p)
	pr = startBinary(t, nil, serversFlag(t), "--audit-log", filepath.Join(t.TempDir(), "a"), "run", "--quiet", p, "--", "true")
	eventually(t, 30*time.Second, "zklock to queue", func() bool { k, _, _ := c.Children(p); return len(k) == 2 })
	time.Sleep(2 * lockrun.QuietWait) // what it would have said by now, it says now or never
	if err := l2.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if code := pr.wait(t, binaryLimit); code != 0 || pr.err.String() != "" {
		t.Fatalf("--quiet: code %d, stderr %q", code, pr.err.String())
	}
}

// TestRunKilledStopsCMD: if zklock itself is killed (its lock then goes
// with its session), CMD is sent SIGTERM rather than running on unlocked.
func TestRunKilledStopsCMD(t *testing.T) {
	p := testPath(t)
	dir := t.TempDir()
	ready, mark := filepath.Join(dir, "ready"), filepath.Join(dir, "mark")
	pr := startBinary(t, []string{"READY=" + ready, "MARK=" + mark}, serversFlag(t), "--audit-log", filepath.Join(dir, "a"),
		"run", p, "--", "sh", "-c", `trap 'echo got-term > "$MARK"; exit 0' TERM; touch "$READY"; while :; do sleep 0.05; done`)
	eventually(t, 30*time.Second, "CMD to start", func() bool { _, err := os.Stat(ready); return err == nil })
	if err := pr.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	pr.wait(t, binaryLimit)
	eventually(t, 10*time.Second, "CMD to get SIGTERM after zklock died", func() bool {
		b, _ := os.ReadFile(mark)
		return strings.Contains(string(b), "got-term")
	})
}

// TestRunCtrlCReachesCMDOnce: on a terminal, Ctrl-C goes to the whole
// foreground process group, CMD included; zklock must not pass on a second
// SIGINT (terraform, for one, takes a second interrupt as "exit now"). CMD
// here records the sender of every SIGINT for a second after the first
// (sigwaitinfo: the kernel's is the keypress, a process's is a kill) and
// exits 42; the lock is released. The pane's shell ignores SIGINT so that
// it outlives the keypress; zklock and CMD still get it.
func TestRunCtrlCReachesCMDOnce(t *testing.T) {
	bin := buildBinary(t)
	p := testPath(t)
	dir := t.TempDir()
	ready, mark := filepath.Join(dir, "ready"), filepath.Join(dir, "ints")
	env := e2eEnv(t, "READY="+ready, "MARK="+mark)
	pane := startPaneScript(t, 100, 20, env, `trap '' INT; "$@"; echo "[exit $?]"; exec sleep 3600`,
		bin, serversFlag(t), "--audit-log", filepath.Join(dir, "a"), "run", p, "--", "python3", "-c", sigintRecorder)
	eventually(t, e2eWait, "CMD to start", func() bool { _, err := os.Stat(ready); return err == nil })
	pane.keys("C-c")
	pane.waitText("[exit 42]")
	got, err := os.ReadFile(mark)
	if err != nil {
		t.Fatal(err)
	}
	senders := strings.Fields(string(got))
	if len(senders) == 0 || senders[0] != "kernel" {
		t.Fatalf("CMD saw SIGINT from %v, want the keypress (kernel) first", senders)
	}
	if len(senders) != 1 {
		t.Fatalf("CMD got SIGINT from %v for one Ctrl-C: zklock passed on a second", senders)
	}
	if kids, _, _ := testConn(t).Children(p); len(kids) != 0 {
		t.Fatalf("after Ctrl-C the queue holds %v", kids)
	}
}

// sigintRecorder writes "kernel" or "pid:N" to $MARK for each SIGINT it
// gets, from the first until a second later, then exits 42.
const sigintRecorder = `
import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
open(os.environ["READY"], "w").close()
out = []
info = signal.sigwaitinfo([signal.SIGINT])
while info is not None:
    out.append("kernel" if info.si_code == 0x80 else "pid:%d" % info.si_pid)
    info = signal.sigtimedwait([signal.SIGINT], 1.0)
with open(os.environ["MARK"], "w") as f:
    f.write("\n".join(out) + "\n")
sys.exit(42)
`

// TestRunUsageRefusedBeforeConnecting: a run without -- (CMD's own flags
// would be read as zklock's), with nothing after it, or with two paths is
// one usage line and exit 64, before any connection: the servers named
// are a closed port, which a connection attempt would report instead.
func TestRunUsageRefusedBeforeConnecting(t *testing.T) {
	dead := closedPort(t)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no --", []string{"/locks/x", "echo", "hi"}, "put -- between the lock path and the command"},
		{"nothing after --", []string{"/locks/x", "--"}, "no command after --"},
		{"two paths", []string{"/locks/x", "/locks/y", "--", "true"}, "one lock path before --"},
		{"nothing at all", nil, "no lock path and no command"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--servers", dead, "--connect-timeout", "30s", "run"}, tt.args...)
			_, stderr, code := runBinary(t, nil, args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "usage: zklock run") {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
			if strings.Contains(stderr, "cannot reach") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("not one usage line before connecting: %q", stderr)
			}
		})
	}
}
