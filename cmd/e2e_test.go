package cmd

// End-to-end tests: the real zklock binary in a real terminal (tmux)
// against a real ZooKeeper, read back from the screen (capture-pane) and
// from ZooKeeper itself. Each test runs its own tmux server on a private
// socket, so a user's tmux is never touched and a failed test leaves
// nothing behind: killing the server hangs up zklock, which cleans up.

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox/peers"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// e2eWait bounds each wait for the screen or ZooKeeper: generous, since
// the machine is shared and a cold JVM or a cold binary can be slow; a
// healthy run takes a fraction of it.
const e2eWait = 20 * time.Second

// pane is one tmux session running one command.
type pane struct {
	t      *testing.T
	socket string
	name   string
}

// startPane runs argv in a new w x h tmux session. env replaces the
// environment of the command (and of the private tmux server). When the
// command ends, the pane prints "[exit N]" and stays, so its last words
// can be read.
func startPane(t *testing.T, w, h int, env []string, argv ...string) *pane {
	t.Helper()
	return startPaneScript(t, w, h, env, `"$@"; echo "[exit $?]"; exec sleep 3600`, argv...)
}

// startPaneScript is startPane with the pane's own shell script, which
// runs argv as "$@".
func startPaneScript(t *testing.T, w, h int, env []string, script string, argv ...string) *pane {
	t.Helper()
	sandboxtest.Need(t) // a pane runs the binary, which starts or reaches a real ZooKeeper
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatalf("tmux is not installed: the end-to-end tests drive zklock in it; install it with `make deps` (Debian/Ubuntu: apt-get install tmux)")
	}
	// A socket of the test's own, removed with its directory.
	p := &pane{t: t, socket: filepath.Join(t.TempDir(), "tmux"), name: "zklock"}
	args := append([]string{"-S", p.socket, "-f", "/dev/null", "new-session", "-d", "-s", p.name,
		"-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "--", "sh", "-c", script, "sh"}, argv...)
	cmd := exec.Command(tmux, args...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() {
		// Hangs up zklock if it still runs: it then stops what it started.
		_ = exec.Command(tmux, "-S", p.socket, "kill-server").Run()
	})
	return p
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// screen is the visible pane as text; escapes keeps colors and attributes.
func (p *pane) screen(escapes bool) string {
	p.t.Helper()
	args := []string{"capture-pane", "-p", "-t", p.name}
	if escapes {
		args = append(args, "-e")
	}
	return p.tmux(args...)
}

// keys sends tmux key names (Enter, Space, Tab, or single characters).
func (p *pane) keys(keys ...string) {
	p.t.Helper()
	p.tmux(append([]string{"send-keys", "-t", p.name}, keys...)...)
}

// typeText sends text literally.
func (p *pane) typeText(s string) {
	p.t.Helper()
	p.tmux("send-keys", "-t", p.name, "-l", s)
}

// waitFor polls the screen until ok holds, failing with the screen after
// e2eWait.
func (p *pane) waitFor(what string, ok func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(e2eWait)
	for {
		s := p.screen(false)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waited %s for %s; the screen shows:\n%s", e2eWait, what, s)
		}
		time.Sleep(100 * time.Millisecond) // polling the screen, not synchronising
	}
}

func (p *pane) waitText(texts ...string) string {
	p.t.Helper()
	return p.waitFor(fmt.Sprintf("%q", texts), func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
}

// settle waits until the console has drawn two more frames (its clock
// moves once a second), so keys sent before it were handled.
func (p *pane) settle() {
	p.t.Helper()
	clockRE := regexp.MustCompile(`\d\d:\d\d:\d\d\s*$`)
	first := clockRE.FindString(strings.SplitN(p.screen(false), "\n", 2)[0])
	seen := 0
	p.waitFor("the console's clock to move twice", func(s string) bool {
		now := clockRE.FindString(strings.SplitN(s, "\n", 2)[0])
		if now != first {
			seen++
			first = now
		}
		return seen >= 2
	})
}

// e2eEnv is a clean environment for zklock: its own home, config, state
// and temporary directories (the audit log and the demo's sandbox land
// there), and the given extra variables.
func e2eEnv(t *testing.T, extra ...string) []string {
	home := t.TempDir()
	tmp := filepath.Join(home, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "TMPDIR=" + tmp, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"), "LANG=C.UTF-8", "TERM=xterm-256color"}
	for _, k := range []string{"PATH", "USER", "LOGNAME", "JAVA_HOME", "ZOOKEEPER_HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env, extra...)
}

// waitHold waits until a peer's request is granted.
func waitHold(t *testing.T, h *peers.Hold) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	if err := h.Wait(ctx); err != nil {
		t.Fatalf("%s client %d on %s: %v", h.Kind(), h.Client(), h.Path(), err)
	}
}

func releaseHold(t *testing.T, h *peers.Hold) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	if err := h.Release(ctx); err != nil {
		t.Fatalf("release by client %d: %v", h.Client(), err)
	}
}

// lockChildren lists path with each child's owner session.
func lockChildren(t *testing.T, conn *zk.Conn, path string) map[string]int64 {
	t.Helper()
	names, _, err := conn.Children(path)
	if err != nil {
		t.Fatalf("list %s: %v", path, err)
	}
	out := map[string]int64{}
	for _, n := range names {
		_, st, err := conn.Get(path + "/" + n)
		if err == nil {
			out[n] = st.EphemeralOwner
		}
	}
	return out
}

// waitZK polls ZooKeeper until ok holds.
func waitZK(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(e2eWait)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", e2eWait, what)
		}
		time.Sleep(50 * time.Millisecond) // polling ZooKeeper
	}
}

// lineWith is the first screen line containing s.
func lineWith(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

var colorSGR = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// colorEscapes returns the SGR sequences of s that set a color.
func colorEscapes(s string) []string {
	var found []string
	for _, m := range colorSGR.FindAllString(s, -1) {
		params := strings.Split(strings.TrimSuffix(strings.TrimPrefix(m, "\x1b["), "m"), ";")
		for _, p := range params {
			n, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0])
			if err == nil && (n >= 30 && n <= 49 || n >= 90 && n <= 107) {
				found = append(found, strconv.Quote(m))
				break
			}
		}
	}
	return found
}

// TestE2EConsole drives the console against real Curator clients: the
// queue on screen, force-release, take, the handoff to the operator, quit.
func TestE2EConsole(t *testing.T) {
	bin := buildBinary(t)
	cluster := testCluster(t)
	servers := cluster.Servers()
	conn := sandboxtest.Connect(t, servers, 10*time.Second)
	const lock = "/e2e/console/job"
	curator := peers.StartT(t, peers.Curator, peers.Options{Servers: servers, Sessions: 3})
	holder, err := curator.Request(0, lock, peers.Mutex)
	if err != nil {
		t.Fatal(err)
	}
	waitHold(t, holder)
	var waiters []*peers.Hold
	for c := 1; c <= 2; c++ {
		h, err := curator.Request(c, lock, peers.Mutex)
		if err != nil {
			t.Fatal(err)
		}
		waiters = append(waiters, h)
		waitZK(t, "a waiter's node", func() bool { return len(lockChildren(t, conn, lock)) == c+1 })
	}
	hs, w1s, w2s := model.SessionHex(curator.Session(0)), model.SessionHex(curator.Session(1)), model.SessionHex(curator.Session(2))

	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	p := startPane(t, 160, 48, e2eEnv(t), bin, "--servers", cluster.ConnectString(), "--audit-log", audit, lock)

	// The holder's session and each waiter's appear, the holder as HOLDER,
	// each waiter watching the one before it.
	s := p.waitText(hs, w1s, w2s, "watches #")
	if l := lineWith(s, hs); !strings.Contains(l, "HOLDER") {
		t.Fatalf("holder's row is not marked HOLDER: %q\n%s", l, s)
	}
	if c := colorEscapes(p.screen(true)); len(c) == 0 {
		t.Error("the default theme drew no colors (the NO_COLOR check would prove nothing)")
	}

	// f on the holder, confirmed by its sequence number: its node goes and
	// the first waiter takes over, on screen.
	hn, ok := ordering.ParseName(holder.Node())
	if !ok {
		t.Fatalf("holder's node %q", holder.Node())
	}
	p.keys("Tab", "f")
	p.waitText("FORCE-RELEASE", fmt.Sprintf("Type the sequence number %d", hn.Seq))
	p.typeText(strconv.Itoa(int(hn.Seq)))
	p.keys("Enter")
	waitZK(t, "the holder's node to be deleted", func() bool {
		_, ok := lockChildren(t, conn, lock)[holder.Node()]
		return !ok
	})
	waitHold(t, waiters[0])
	p.waitFor("the first waiter as HOLDER", func(s string) bool {
		return strings.Contains(lineWith(s, w1s), "HOLDER") && !strings.Contains(s, hs)
	})

	// t queues the operator: a new node, owned by none of the clients.
	before := lockChildren(t, conn, lock)
	p.keys("t")
	var own string
	waitZK(t, "the operator's node", func() bool {
		for n, owner := range lockChildren(t, conn, lock) {
			if _, old := before[n]; !old && owner != curator.Session(1) && owner != curator.Session(2) {
				own = n
				return true
			}
		}
		return false
	})
	p.waitText("waiting at 3", "◀ YOU")

	// The others release: the operator holds.
	releaseHold(t, waiters[0])
	waitHold(t, waiters[1])
	releaseHold(t, waiters[1])
	p.waitText("HOLDING since")
	waitZK(t, "the operator's node alone", func() bool {
		c := lockChildren(t, conn, lock)
		_, ok := c[own]
		return ok && len(c) == 1
	})

	// q asks while holding; yes releases and quits.
	p.keys("q")
	p.waitText("release and quit")
	p.keys("y")
	p.waitText("[exit 0]")
	if c := lockChildren(t, conn, lock); len(c) != 0 {
		t.Fatalf("after quit the queue still holds %v (the operator's was %s)", c, own)
	}
	if b, err := os.ReadFile(audit); err != nil || !strings.Contains(string(b), "force") || !strings.Contains(string(b), own) {
		t.Errorf("audit log %s lacks the force-release or the take (%v):\n%s", audit, err, b)
	}
}

// TestE2EReadOnlyAndNoColor: against real Kazoo clients, --read-only
// offers no action key and does nothing on them; NO_COLOR draws no color.
func TestE2EReadOnlyAndNoColor(t *testing.T) {
	bin := buildBinary(t)
	cluster := testCluster(t)
	servers := cluster.Servers()
	conn := sandboxtest.Connect(t, servers, 10*time.Second)
	const lock = "/e2e/read-only/job"
	kazoo := peers.StartT(t, peers.Kazoo, peers.Options{Servers: servers, Sessions: 2})
	holder, err := kazoo.Request(0, lock, peers.Mutex)
	if err != nil {
		t.Fatal(err)
	}
	waitHold(t, holder)
	if _, err := kazoo.Request(1, lock, peers.Mutex); err != nil {
		t.Fatal(err)
	}
	waitZK(t, "the waiter's node", func() bool { return len(lockChildren(t, conn, lock)) == 2 })

	p := startPane(t, 160, 48, e2eEnv(t, "NO_COLOR=1"), bin, "--read-only", "--servers", cluster.ConnectString(), lock)
	s := p.waitText(model.SessionHex(kazoo.Session(0)), model.SessionHex(kazoo.Session(1)), "kazoo")
	footer := lineWith(s, "q quit")
	for _, hidden := range []string{"t take", "force-release", "revoke", "release mine"} {
		if strings.Contains(footer, hidden) {
			t.Errorf("read-only footer offers %q: %s", hidden, footer)
		}
	}
	if c := colorEscapes(p.screen(true)); len(c) > 0 {
		t.Errorf("NO_COLOR=1: the pane has color escapes %v", c[:min(len(c), 5)])
	}
	before := lockChildren(t, conn, lock)
	p.keys("t", "Tab", "f", "R")
	p.settle()
	if s := p.screen(false); strings.Contains(s, "FORCE-RELEASE") || strings.Contains(s, "REVOKE") {
		t.Fatalf("read-only: a dialog opened:\n%s", s)
	}
	if after := lockChildren(t, conn, lock); len(after) != len(before) {
		t.Fatalf("read-only: the queue changed from %v to %v", before, after)
	}
	p.keys("q")
	p.waitText("[exit 0]")
}

// TestE2EDemo runs `zklock demo` as a presenter would: handoffs within
// seconds, the presenter's keys, and nothing left behind on quit.
func TestE2EDemo(t *testing.T) {
	bin := buildBinary(t)
	env := e2eEnv(t)
	var tmp string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			tmp = v
		}
	}
	p := startPane(t, 160, 48, env, bin, "demo")

	started := time.Now()
	s := p.waitText("zklock demo", "/demo/locks/billing", "handoff  /demo/locks/billing")
	t.Logf("first billing handoff on screen %s after start", time.Since(started).Round(100*time.Millisecond))
	// The holder of billing changes on screen, while a queue of five or
	// more waits for it.
	// The holder's column may hold words (an identity cut short with
	// " …": "tax-calc@worker-2 …"); the queue's right-aligned count
	// follows it after two spaces or more.
	billingRE := regexp.MustCompile(`billing\s+(\S+(?: \S+)*?)\s{2,}(\d+)\s`)
	first := billingRE.FindStringSubmatch(lineWith(s, " billing "))
	if first == nil {
		t.Fatalf("no holder of billing in the lock list:\n%s", s)
	}
	holders := map[string]bool{first[1]: true}
	s = p.waitFor("two more holders of billing and a queue of 5", func(s string) bool {
		m := billingRE.FindStringSubmatch(lineWith(s, " billing "))
		if m == nil {
			return false
		}
		holders[m[1]] = true
		depth, _ := strconv.Atoi(m[2])
		return len(holders) >= 3 && depth >= 5
	})
	t.Logf("billing had holders %v by %s", slices.Sorted(maps.Keys(holders)), time.Since(started).Round(100*time.Millisecond))
	for _, want := range []string{"orders", "reports", "▸ narration", "p pause", "space step", "x kill holder", "S split", "watches #"} {
		if !strings.Contains(s, want) {
			t.Errorf("demo screen lacks %q", want)
		}
	}
	keepCapture(t, "demo-capture.txt", s)
	// Beside the locks, the semaphore full (its limit from the demo) and
	// the election.
	p.waitText("render-slots", "holders 3/3", "duler-leader")

	// The presenter's keys.
	p.keys("p")
	p.waitText("PAUSED", "contenders paused")
	p.keys("Space")
	p.waitText("step: ")
	p.keys("x")
	p.waitText("killed ", "without a release")
	p.keys("p")
	p.waitFor("the pause to end", func(s string) bool { return !strings.Contains(s, "PAUSED") })
	p.keys("S")
	s = p.waitText("SPLIT HOLDERS", "believe")
	keepCapture(t, "demo-capture-split.txt", s)

	// Quit: the server and its directory go.
	p.keys("q")
	s = p.waitText("[exit 0]")
	dirRE := regexp.MustCompile(`removed (\S+)`)
	m := dirRE.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("the demo did not say it removed its data:\n%s", s)
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("the sandbox directory %s is still there (%v)", m[1], err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("the demo left %v in its TMPDIR", left)
	}
	if pids := processesMentioning(m[1]); len(pids) > 0 {
		t.Errorf("processes still running from %s: %v", m[1], pids)
	}
}

// keepCapture writes a screen to $ZKLOCK_E2E_CAPTURE/name when that
// variable names a directory, for a person to look at.
func keepCapture(t *testing.T, name, screen string) {
	dir := os.Getenv("ZKLOCK_E2E_CAPTURE")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(screen), 0o644); err != nil {
		t.Logf("could not keep the capture: %v", err)
	}
}

// processesMentioning lists the pids whose command line contains s.
func processesMentioning(s string) []int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}
