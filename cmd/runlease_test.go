package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox/peers"
	"github.com/zklock/zklock/third_party/zk"
)

var (
	runCuratorLease = regexp.MustCompile(`^_c_[0-9a-f-]{36}-lease-\d{10}$`)
	runKazooLease   = regexp.MustCompile(`^[0-9a-f]{32}$`)
	runLatchNode    = regexp.MustCompile(`^_c_[0-9a-f-]{36}-latch-\d{10}$`)
)

// intervalScript appends its interval to $LOG, holding for $HOLD seconds.
const intervalScript = `echo "S $ID $(date +%s%N)" >> "$LOG"; sleep "$HOLD"; echo "E $ID $(date +%s%N)" >> "$LOG"`

// TestRunLeaseCurator: on a Curator InterProcessSemaphoreV2 with two
// leases, one held by a stock Curator client, `zklock run --limit 2`
// takes the other lease in Curator's protocol: CMD sees its lease node,
// the audit says kind lease; several runs at once never hold more than
// the one lease left (the Curator lease counts), and nothing is left.
func TestRunLeaseCurator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := testPath(t)
	peerProc := peers.StartT(t, peers.Curator, peers.Options{Servers: testCluster(t).Servers(), Sessions: 1})
	peerHold, err := peerProc.Acquire(ctx, 0, p, peers.Semaphore(2))
	if err != nil {
		t.Fatal(err)
	}
	audit := filepath.Join(t.TempDir(), "audit.log")
	out, errOut, code := runBinary(t, nil, serversFlag(t), "--audit-log", audit,
		"run", "--limit", "2", p, "--", "sh", "-c", `echo "$ZKLOCK_NODE"`)
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	node := strings.TrimSpace(out)
	if dir, name := filepath.Split(node); dir != p+"/leases/" || !runCuratorLease.MatchString(name) {
		t.Fatalf("CMD saw ZKLOCK_NODE %q, want a Curator lease under %s/leases", node, p)
	}
	recs := readAudit(t, audit)
	if len(recs) != 2 || recs[0].Kind != "lease" || recs[1].Kind != "lease" || recs[1].Outcome != "exited" || p+"/"+recs[1].Node != node {
		t.Fatalf("audit %+v", recs)
	}

	// Three runs at once: one lease left for them.
	log := filepath.Join(t.TempDir(), "intervals")
	const n = 3
	var procs []*proc
	for i := range n {
		procs = append(procs, startBinary(t, []string{"LOG=" + log, "ID=" + strconv.Itoa(i), "HOLD=0.2"},
			serversFlag(t), "--audit-log", audit, "run", "--quiet", "--limit", "2", p, "--", "sh", "-c", intervalScript))
	}
	for _, pr := range procs {
		if code := pr.wait(t, binaryLimit); code != 0 {
			t.Fatalf("zklock run exited %d: %s", code, pr.err.String())
		}
	}
	ivs := runIntervals(t, log)
	if len(ivs) != n {
		t.Fatalf("%d intervals, want %d", len(ivs), n)
	}
	ivs = append(ivs, peers.Interval{Who: "curator", Start: peerHold.Times().Acquired})
	if most, at := peers.MostAtOnce(ivs); most > 2 {
		t.Fatalf("%d leases held at once, limit 2: %v", most, at)
	}
	c := testConn(t)
	if k, _, _ := c.Children(p + "/leases"); len(k) != 1 || k[0] != peerHold.Node() {
		t.Fatalf("leases %v after the runs, want only Curator's %s", k, peerHold.Node())
	}
	if k, _, _ := c.Children(p + "/locks"); len(k) != 0 {
		t.Fatalf("admission lock %v after the runs", k)
	}
	if err := peerHold.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRunLeaseKazoo: on a stock Kazoo Semaphore, `zklock run` reads the
// limit from the parent's data: with the one lease taken, --timeout
// passes (exit 3, nothing left behind), a --limit that differs is refused
// in one line, and once the lease is free zklock takes it in Kazoo's
// style while the stock client waits.
func TestRunLeaseKazoo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := testPath(t)
	peerProc := peers.StartT(t, peers.Kazoo, peers.Options{Servers: testCluster(t).Servers(), Sessions: 1})
	h, err := peerProc.Acquire(ctx, 0, p, peers.Semaphore(1))
	if err != nil {
		t.Fatal(err)
	}
	c := testConn(t)
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.log")
	_, errOut, code := runBinary(t, nil, serversFlag(t), "--audit-log", audit,
		"run", "--quiet", "--timeout", "1s", p, "--", "echo", "must-not-run")
	if code != exitNotAcquired {
		t.Fatalf("code %d, want %d; stderr %q", code, exitNotAcquired, errOut)
	}
	assertOneLineFailure(t, errOut, code, "not acquired within 1s")
	if k, _, _ := c.Children(p); len(k) != 1 || k[0] != h.Node() {
		t.Fatalf("leases %v after the timeout, want Kazoo's %s", k, h.Node())
	}
	if k, _, _ := c.Children(p + "-__lock__"); len(k) != 0 {
		t.Fatalf("Kazoo's lock %v after the timeout", k)
	}
	_, errOut, code = runBinary(t, nil, serversFlag(t), "--audit-log", audit,
		"run", "--limit", "2", p, "--", "echo", "must-not-run")
	assertOneLineFailure(t, errOut, code, "max_leases 1")
	t.Logf("stderr: %s", errOut)

	if err := h.Release(ctx); err != nil {
		t.Fatal(err)
	}
	nodeFile, stop := filepath.Join(dir, "node"), filepath.Join(dir, "stop")
	pr := startBinary(t, []string{"NODEFILE=" + nodeFile, "STOP=" + stop}, serversFlag(t), "--audit-log", audit,
		"run", p, "--", "sh", "-c", `echo "$ZKLOCK_NODE" > "$NODEFILE"; while [ ! -e "$STOP" ]; do sleep 0.05; done`)
	var node string
	eventually(t, 30*time.Second, "CMD to start", func() bool {
		b, _ := os.ReadFile(nodeFile)
		node = strings.TrimSpace(string(b))
		return node != ""
	})
	if d, name := filepath.Split(node); d != p+"/" || !runKazooLease.MatchString(name) {
		t.Fatalf("ZKLOCK_NODE %q: want a Kazoo lease under %s", node, p)
	}
	waiter, err := peerProc.Request(0, p, peers.Semaphore(1))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "Kazoo waiting", func() bool { k, _, _ := c.Children(p + "-__lock__"); return len(k) == 1 })
	if waiter.Held() {
		t.Fatal("Kazoo took a second lease of one")
	}
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := pr.wait(t, binaryLimit); code != 0 {
		t.Fatalf("code %d: %s", code, pr.err.String())
	}
	if err := waiter.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRunLeaseLimit: the limit from --limit, else the context's
// semaphores:, else refused in one line that says how to give it; a lock
// kind on a semaphore and --limit on a lock are refused; a read-only
// context refuses before anything.
func TestRunLeaseLimit(t *testing.T) {
	p := testPath(t)
	audit := filepath.Join(t.TempDir(), "audit.log")
	_, errOut, code := runBinary(t, nil, serversFlag(t), "--audit-log", audit,
		"run", "--kind", "lease", p, "--", "echo", "must-not-run")
	assertOneLineFailure(t, errOut, code, "give it with --limit N, or under semaphores: in the context config")
	t.Logf("stderr: %s", errOut)
	if ok, _, _ := testConn(t).Exists(p + "/leases"); ok {
		t.Fatal("a refused run left leases/")
	}
	cfg := writeFile(t, "config.yaml", fmt.Sprintf("contexts:\n  prod:\n    servers: [%s]\n    semaphores:\n      %s: 1\n  ro:\n    servers: [%s]\n    read_only: true\n",
		testCluster(t).ConnectString(), p, testCluster(t).ConnectString()))
	env := []string{"ZKLOCK_CONFIG=" + cfg}
	out, errOut, code := runBinary(t, env, "--context", "prod", "--audit-log", audit,
		"run", "--kind", "lease", p, "--", "sh", "-c", `echo "$ZKLOCK_NODE"`)
	if code != 0 || !strings.HasPrefix(strings.TrimSpace(out), p+"/leases/_c_") {
		t.Fatalf("with the context's limit: code %d, out %q, stderr %q", code, out, errOut)
	}
	// Now the parent is a semaphore: found without --kind.
	if _, e, c := runBinary(t, env, "--context", "prod", "--audit-log", audit, "run", p, "--", "true"); c != 0 {
		t.Fatalf("run on a semaphore: code %d, stderr %q", c, e)
	}
	_, errOut, code = runBinary(t, env, "--context", "prod", "--audit-log", audit, "run", "--kind", "mutex", p, "--", "true")
	assertOneLineFailure(t, errOut, code, "is a semaphore")
	_, errOut, code = runBinary(t, nil, serversFlag(t), "--audit-log", audit, "run", "--kind", "mutex", "--limit", "2", testPath(t), "--", "true")
	assertOneLineFailure(t, errOut, code, "--limit is a semaphore's")
	// --limit alone on an empty parent: a lease of a new semaphore.
	fresh := testPath(t) + "-fresh"
	if out, e, c := runBinary(t, nil, serversFlag(t), "--audit-log", audit, "run", "--limit", "2", fresh, "--", "sh", "-c", `echo "$ZKLOCK_NODE"`); c != 0 || !strings.HasPrefix(out, fresh+"/leases/_c_") {
		t.Fatalf("--limit on an empty parent: code %d, out %q, stderr %q", c, out, e)
	}
	// --limit on a lock queue: no semaphore, one line.
	q := testPath(t) + "-queue"
	holdLock(t, testSession(t), q)
	_, errOut, code = runBinary(t, nil, serversFlag(t), "--audit-log", audit, "run", "--limit", "2", q, "--", "true")
	assertOneLineFailure(t, errOut, code, "not a semaphore")
	t.Logf("stderr: %s", errOut)
	_, errOut, code = runBinary(t, env, "--context", "ro", "run", "--limit", "2", p, "--", "true")
	assertOneLineFailure(t, errOut, code, "pass --write")
	_, errOut, code = runBinary(t, nil, serversFlag(t), "run", "--kind", "slot", p, "--", "true")
	assertOneLineFailure(t, errOut, code, "want mutex, read, write, lease or election")
}

// TestRunElection: on a Curator LeaderLatch election `zklock run` joins
// as a participant: CMD starts only once the stock leader steps down,
// another stock participant does not lead while CMD runs, and leads once
// it exits; the audit says kind election.
func TestRunElection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := testPath(t)
	peerProc := peers.StartT(t, peers.Curator, peers.Options{Servers: testCluster(t).Servers(), Sessions: 2})
	leader, err := peerProc.Acquire(ctx, 0, p, peers.Latch)
	if err != nil {
		t.Fatal(err)
	}
	c := testConn(t)
	dir := t.TempDir()
	audit := filepath.Join(dir, "audit.log")
	nodeFile, stop := filepath.Join(dir, "node"), filepath.Join(dir, "stop")
	pr := startBinary(t, []string{"NODEFILE=" + nodeFile, "STOP=" + stop}, serversFlag(t), "--audit-log", audit,
		"run", p, "--", "sh", "-c", `echo "$ZKLOCK_NODE" > "$NODEFILE"; while [ ! -e "$STOP" ]; do sleep 0.05; done`)
	eventually(t, 30*time.Second, "zklock's participant", func() bool { k, _, _ := c.Children(p); return len(k) == 2 })
	next, err := peerProc.Request(1, p, peers.Latch)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "three participants", func() bool { k, _, _ := c.Children(p); return len(k) == 3 })
	if _, err := os.Stat(nodeFile); err == nil {
		t.Fatal("CMD runs while Curator's participant leads")
	}
	if err := leader.Release(ctx); err != nil {
		t.Fatal(err)
	}
	var node string
	eventually(t, 30*time.Second, "CMD to start as leader", func() bool {
		b, _ := os.ReadFile(nodeFile)
		node = strings.TrimSpace(string(b))
		return node != ""
	})
	if d, name := filepath.Split(node); d != p+"/" || !runLatchNode.MatchString(name) {
		t.Fatalf("ZKLOCK_NODE %q: want a latch participant under %s", node, p)
	}
	if next.Held() {
		t.Fatal("Curator's second participant leads while zklock does")
	}
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := pr.wait(t, binaryLimit); code != 0 {
		t.Fatalf("code %d: %s", code, pr.err.String())
	}
	if err := next.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := next.Release(ctx); err != nil {
		t.Fatal(err)
	}
	recs := readAudit(t, audit)
	if len(recs) != 2 || recs[1].Kind != "election" || p+"/"+recs[1].Node != node {
		t.Fatalf("audit %+v", recs)
	}
}

// TestRunLeaseLimitAgainstDeduced: on a Curator semaphore whose clients
// show their limit (two leases hold, a third waits beyond them), a
// --limit above it is refused in one line that says the limit they
// show, before anything is created; one below it is taken with a
// one-line warning.
func TestRunLeaseLimitAgainstDeduced(t *testing.T) {
	p := testPath(t)
	c := testConn(t)
	mkdirs(t, c, p+"/leases", zk.WorldACL(zk.PermAll))
	mkdirs(t, c, p+"/locks", zk.WorldACL(zk.PermAll))
	// One session plays the clients: two leases held, and the admitted
	// contender (the lock's holder) with a third lease, waiting.
	const id = "0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f"
	for _, n := range []string{p + "/leases/_c_" + id + "-lease-", p + "/leases/_c_" + id + "-lease-", p + "/locks/_c_" + id + "-lock-", p + "/leases/_c_" + id + "-lease-"} {
		if _, err := c.Create(n, nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	audit := filepath.Join(t.TempDir(), "audit.log")
	_, errOut, code := runBinary(t, nil, serversFlag(t), "--audit-log", audit, "run", "--limit", "3", p, "--", "echo", "must-not-run")
	assertOneLineFailure(t, errOut, code, "--limit 3 is above the limit of semaphore "+p+": its clients let 2 hold at once")
	t.Logf("stderr: %s", errOut)
	if kids, _, err := c.Children(p + "/locks"); err != nil || len(kids) != 1 {
		t.Fatalf("a refused run touched the admission lock: %v %v", kids, err)
	}
	_, errOut, code = runBinary(t, nil, serversFlag(t), "--audit-log", audit, "run", "--quiet", "--timeout", "300ms", "--limit", "1", p, "--", "echo", "must-not-run")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != exitNotAcquired || !strings.HasPrefix(lines[0], "zklock: warning: --limit 1 is below the limit of semaphore "+p+" that its clients show (2)") {
		t.Fatalf("--limit below the clients': code %d, stderr %q", code, errOut)
	}
}
