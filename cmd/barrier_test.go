package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
)

// barrierLine is a path of ls --json as TestLsSingleBarriers compares it:
// type, exists, the facts, then each node as role:session:identity (the
// session only for a waiter, whose id the test learns from its driver).
func barrierLine(p model.JSONPath) string {
	parts := []string{p.Type, fmt.Sprintf("exists=%v", p.Exists)}
	if p.Set != nil {
		parts = append(parts, fmt.Sprintf("set=%v", *p.Set))
	}
	if p.Waiters != nil {
		parts = append(parts, fmt.Sprintf("waiters=%d", *p.Waiters))
	}
	var nodes []string
	for _, n := range p.Queue {
		switch n.Role {
		case model.PartBarrier:
			nodes = append(nodes, fmt.Sprintf("barrier(%s,%s,%s)", n.Recipe, n.Data, n.Session))
		case model.PartWaiter:
			nodes = append(nodes, fmt.Sprintf("waiter(%s,%s,%s,%s)", n.Recipe, n.Session, n.Identity, n.Watches))
		default:
			nodes = append(nodes, n.Role+"("+n.Data+")")
		}
	}
	slices.Sort(nodes)
	return strings.Join(append(parts, nodes...), " ")
}

// TestLsSingleBarriers: a Curator DistributedBarrier and a Kazoo Barrier,
// set and waited on by the stock libraries (one JVM, one interpreter),
// named in the context's barriers: — `ls --json --root` shows each set,
// its node, and its waiters as the servers' watches show them (by
// session; the Kazoo waiter named by its Party membership), and open once
// the libraries remove them and the waiters pass; a named path that does
// not exist is open too. Without the name they are no barrier, nor is the
// look-alike (a DataWatch on an empty node) under the same root. The
// context's elections: makes a real Kazoo Election (a Kazoo Lock with an
// identifier on the wire, which nothing else tells) an election.
func TestLsSingleBarriers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	servers := testCluster(t).ConnectString()
	base := testPath(t)
	mkdirs(t, testConn(t), base, nil)
	curator := startDriver(t, "Curator driver", javaDriver(t, ctx, "BarrierDriver", servers, base))
	kazoo := startDriver(t, "Kazoo driver", exec.CommandContext(ctx, "/usr/bin/python3", "testdata/recipes/barrier_kazoo.py", servers, base))
	cw := strings.Fields(curator.expect(t, "sessions "))[1:]
	kw := strings.Fields(kazoo.expect(t, "sessions "))[1]
	curator.expect(t, "ready")
	kazoo.expect(t, "ready")

	cfg := fmt.Sprintf("contexts:\n  t:\n    servers: [%s]\n    barriers: [%s/cbarrier, %s/kbarrier, %s/never]\n    elections: [%s/kelection]\n",
		servers, base, base, base, base)
	env := []string{"ZKLOCK_CONFIG=" + writeFile(t, "config.yaml", cfg)}
	ls := func(ctxArgs ...string) map[string]model.JSONPath {
		t.Helper()
		out, errOut, code := runBinary(t, env, append(ctxArgs, "ls", "--json", "--root", base)...)
		if code != 0 {
			t.Fatalf("ls --json: code %d, stderr %q\n%s", code, errOut, out)
		}
		return decodeLsJSON(t, out)
	}
	// The waiters set their watches in threads of their own: wait for
	// the servers to show them.
	set := map[string]string{
		"/cbarrier": fmt.Sprintf("barrier exists=true set=true waiters=2 barrier(curator,127.0.0.1,0x0) waiter(curator,0x%s,,cbarrier) waiter(curator,0x%s,,cbarrier)",
			min(cw[0], cw[1]), max(cw[0], cw[1])),
		"/kbarrier": fmt.Sprintf("barrier exists=true set=true waiters=1 barrier(unknown,,0x0) waiter(unknown,0x%s,waiter-k,kbarrier)", kw),
		"/never":    "barrier exists=false set=false",
	}
	got := waitBarriers(t, ls, base, set, "--context", "t")
	if e := got[base+"/kelection"]; e.Type != "election" || len(e.Queue) != 2 || e.Queue[0].Data != "leader-a" ||
		e.Queue[0].Role != "holder" || e.Queue[1].Data != "leader-b" || e.Queue[1].Role != "waiting" {
		t.Errorf("kelection named an election: %+v", e)
	}
	if f, ok := got[base+"/flag"]; ok && f.Type == "barrier" {
		t.Errorf("a DataWatch on an empty node, not named, is shown a barrier: %+v", f)
	}
	out, errOut, code := runBinary(t, env, "--context", "t", "ls", base+"/cbarrier", base+"/never")
	if code != 0 || !strings.Contains(out, base+"/cbarrier: barrier, set, 2 waiters") || !strings.Contains(out, base+"/never: barrier, open") {
		t.Errorf("ls: code %d, stderr %q\n%s", code, errOut, out)
	}

	// Without the context: no barrier anywhere, and the Kazoo Election
	// is the Kazoo Lock it looks like.
	plain := ls(serversFlag(t))
	for p, q := range plain {
		if q.Type == "barrier" {
			t.Errorf("%s: a barrier without the name: %+v", p, q)
		}
	}
	if e := plain[base+"/kelection"]; e.Type != "mutex" {
		t.Errorf("kelection without the name: type %q, want mutex", e.Type)
	}

	// The libraries remove their barriers; each waiter passes, and the
	// barriers are open (a Curator waiter that woke leaves an exists
	// watch on the absent path: no waiter of an open barrier).
	curator.send(t, "remove")
	kazoo.send(t, "remove")
	curator.expect(t, "passed")
	curator.expect(t, "passed")
	kazoo.expect(t, "passed")
	open := map[string]string{
		"/cbarrier": "barrier exists=false set=false",
		"/kbarrier": "barrier exists=false set=false",
		"/never":    "barrier exists=false set=false",
	}
	waitBarriers(t, ls, base, open, "--context", "t")
	out, errOut, code = runBinary(t, env, "--context", "t", "ls", "--root", base)
	if code != 0 || !strings.Contains(out, base+"/kbarrier: barrier, open") {
		t.Errorf("ls after the removal: code %d, stderr %q\n%s", code, errOut, out)
	}
}

// waitBarriers runs ls (with args) until each of base's paths in want
// reads as barrierLine says, with no warning, within 30 s (the servers'
// watches come as the waiters' threads run); it returns the last read.
func waitBarriers(t *testing.T, ls func(...string) map[string]model.JSONPath, base string, want map[string]string, args ...string) map[string]model.JSONPath {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := ls(args...)
		var diffs []string
		for rel, w := range want {
			p, ok := got[base+rel]
			switch line := barrierLine(p); {
			case !ok:
				diffs = append(diffs, rel+": not in ls --json")
			case line != w || len(p.Warnings) > 0:
				diffs = append(diffs, fmt.Sprintf("%s:\n  got  %s %+v\n  want %s", rel, line, p.Warnings, w))
			}
		}
		if len(diffs) == 0 {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("within 30 s:\n%s", strings.Join(diffs, "\n"))
		}
		time.Sleep(200 * time.Millisecond) // the next read: polling a condition with a deadline
	}
}

// decodeLsJSON decodes ls --json's output by path.
func decodeLsJSON(t *testing.T, out string) map[string]model.JSONPath {
	t.Helper()
	var paths []model.JSONPath
	if err := json.Unmarshal([]byte(out), &paths); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, out)
	}
	byPath := map[string]model.JSONPath{}
	for _, p := range paths {
		byPath[p.Path] = p
	}
	return byPath
}
