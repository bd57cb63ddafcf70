package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox/peers"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/zkview"
)

// waitOn starts acquiring p in session s and returns once the lock is
// queued; the test's cleanup gives up the attempt.
func waitOn(t *testing.T, s *lockops.Session, p string) *lockops.Lock {
	t.Helper()
	l := lockops.NewLock(s, p)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = l.Acquire(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	eventually(t, 20*time.Second, "a waiter queued on "+p, func() bool {
		return l.State() == ordering.LockQueued && l.Node() != ""
	})
	return l
}

// sessionsJSON runs `zklock sessions -o json` with args and decodes it,
// checking its schema version.
func sessionsJSON(t *testing.T, args ...string) (sessions.JSONSessions, string, int) {
	t.Helper()
	out, errOut, code := runBinary(t, nil, append([]string{serversFlag(t), "sessions", "-o", "json"}, args...)...)
	var js sessions.JSONSessions
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("sessions -o json %v: %v (code %d, stderr %q)\n%s", args, err, code, errOut, out)
	}
	if js.Schema != sessions.SessionsSchema {
		t.Fatalf("sessions -o json %v: schema %d, want %d\n%s", args, js.Schema, sessions.SessionsSchema, out)
	}
	return js, errOut, code
}

// nextSnapshot waits, at most limit, for an Update whose snapshot
// satisfies cond (the current snapshot counts too).
func nextSnapshot(t *testing.T, w *zkview.Watcher, limit time.Duration, what string, cond func(*model.Snapshot) bool) *model.Snapshot {
	t.Helper()
	if s := w.Snapshot(); cond(s) {
		return s
	}
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		select {
		case u, ok := <-w.Updates():
			if !ok {
				t.Fatalf("watcher closed waiting for %s", what)
			}
			if cond(u.Snapshot) {
				return u.Snapshot
			}
		case <-deadline.C:
			t.Fatalf("after %v: %s; deadlocks %+v", limit, what, w.Snapshot().Deadlocks)
		}
	}
}

// checkCycle asserts that d is the cycle of the two sessions over the two
// paths, in state.
func checkCycle(t *testing.T, d sessions.JSONDeadlock, state string, sessions, paths []string) {
	t.Helper()
	if d.State != state || !sameSet(d.Sessions, sessions) || !sameSet(d.Paths, paths) || len(d.Waits) != len(sessions) {
		t.Fatalf("deadlock %+v, want %s of %v over %v", d, state, sessions, paths)
	}
	for i, w := range d.Waits {
		next := d.Sessions[(i+1)%len(d.Sessions)]
		if w.Session != d.Sessions[i] || w.Holder != next || w.Node == "" || w.HolderNode == "" || w.Since == "" {
			t.Errorf("wait %d: %+v", i, w)
		}
	}
	if _, err := time.Parse(time.RFC3339, d.Since); err != nil {
		t.Errorf("since %q: %v", d.Since, err)
	}
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// TestSessionsDeadlockOfTwoLockCores: two zklock lock cores in their own
// sessions take {A, B} and {B, A}. One read names the cycle (young: its
// age is unknown), `sessions --check` reads again after the threshold and
// calls it a deadlock with exit 2, as `ls --check` does; a live Watcher
// sees it come of age by itself and clear within two seconds of one
// session closing.
func TestSessionsDeadlockOfTwoLockCores(t *testing.T) {
	base := testPath(t)
	a, b := base+"/a", base+"/b"
	s1, s2 := testSession(t), testSession(t)
	holdLock(t, s1, a)
	holdLock(t, s2, b)
	waitOn(t, s1, b)
	waitOn(t, s2, a)
	id1, id2 := model.SessionHex(s1.ID()), model.SessionHex(s2.ID())
	ids, paths := []string{id1, id2}, []string{a, b}

	before := time.Now()
	js, errOut, code := sessionsJSON(t, "--no-wait", a, b)
	after := time.Now()
	if code != 0 || len(js.Deadlocks) != 1 {
		t.Fatalf("one read: code %d, stderr %q, deadlocks %+v", code, errOut, js.Deadlocks)
	}
	// One read dates the cycle from its newest node (nothing changed on
	// its parents since): a deadlock if that was DeadlockAfter before the
	// read (the binary's first start may take that long), young if not.
	since, err := time.Parse(time.RFC3339Nano, js.Deadlocks[0].Since)
	switch due := since.Add(sessions.DeadlockAfter); {
	case err != nil:
		t.Fatalf("since %q: %v", js.Deadlocks[0].Since, err)
	case !due.After(before):
		checkCycle(t, js.Deadlocks[0], model.CycleDeadlock, ids, paths)
	case due.After(after):
		checkCycle(t, js.Deadlocks[0], model.CycleYoung, ids, paths)
	}
	if len(js.Sessions) != 2 {
		t.Fatalf("sessions %+v", js.Sessions)
	}
	for _, s := range js.Sessions {
		if s.Blocks != 1 || s.BlocksDirect != 1 || len(s.Holds) != 1 || len(s.Waits) != 1 || s.Client == "" ||
			s.Holds[0].Path == s.Waits[0].Path || len(s.WaitsFor) != 1 || s.WaitsFor[0] == s.Session {
			t.Errorf("session %+v", s)
		}
	}

	js, errOut, code = sessionsJSON(t, "--check", a, b)
	if code != exitCheck || len(js.Deadlocks) != 1 {
		t.Fatalf("--check: code %d, stderr %q, deadlocks %+v", code, errOut, js.Deadlocks)
	}
	// Called a deadlock only once it has stood DeadlockAfter, by the
	// date it gives (its newest node's creation, or the first read).
	if since, err := time.Parse(time.RFC3339Nano, js.Deadlocks[0].Since); err != nil || time.Since(since) < sessions.DeadlockAfter {
		t.Errorf("--check called a cycle since %s (%v) a deadlock, before it could have stood %v", js.Deadlocks[0].Since, err, sessions.DeadlockAfter)
	}
	checkCycle(t, js.Deadlocks[0], model.CycleDeadlock, ids, paths)
	assertOneLineFailure(t, errOut, code, "cross-lock deadlock")
	// Now that it has stood, one read proves it (its parents' pzxid):
	// --no-wait calls it a deadlock.
	js, errOut, code = sessionsJSON(t, "--no-wait", a, b)
	if code != 0 || len(js.Deadlocks) != 1 {
		t.Fatalf("one read of an old cycle: code %d, stderr %q, deadlocks %+v", code, errOut, js.Deadlocks)
	}
	checkCycle(t, js.Deadlocks[0], model.CycleDeadlock, ids, paths)

	_, errOut, code = runBinary(t, nil, serversFlag(t), "ls", "--check", a, b)
	if code != exitCheck || !strings.Contains(errOut, "cross-lock deadlock of") {
		t.Errorf("ls --check: code %d, stderr %q", code, errOut)
	}
	text, errOut, code := runBinary(t, nil, serversFlag(t), "sessions", a, b)
	for _, want := range []string{"CROSS-LOCK DEADLOCK", id1, id2, "A session is not a thread", "waits on " + a, "waits on " + b} {
		if code != 0 || !strings.Contains(text, want) {
			t.Errorf("sessions: code %d, stderr %q, output lacks %q:\n%s", code, errOut, want, text)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := zkview.Watch(ctx, testSession(t), zkview.Options{Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	nextSnapshot(t, w, 3*sessions.DeadlockAfter, "the watcher to call the cycle a deadlock", func(s *model.Snapshot) bool {
		return len(s.Deadlocks) == 1 && s.Deadlocks[0].State == model.CycleDeadlock
	})
	s1.Close()
	closed := time.Now()
	nextSnapshot(t, w, 2*time.Second, "the deadlock to clear once a session closed", func(s *model.Snapshot) bool {
		return len(s.Deadlocks) == 0
	})
	t.Logf("cleared %v after the session closed", time.Since(closed).Round(time.Millisecond))
	js, _, code = sessionsJSON(t, "--check", a, b)
	if code != 0 || len(js.Deadlocks) != 0 {
		t.Errorf("after the close: code %d, deadlocks %+v", code, js.Deadlocks)
	}
}

// TestSessionsChainRootBlocker: five sessions, each holding one lock and
// waiting on the next; the last holds and waits on nothing. No cycle; the
// root blocker, first in the list, is the last session, blocking 4.
func TestSessionsChainRootBlocker(t *testing.T) {
	base := testPath(t)
	var paths []string
	var sess []*lockops.Session
	for i := range 5 {
		paths = append(paths, fmt.Sprintf("%s/p%d", base, i))
		s := testSession(t)
		sess = append(sess, s)
		holdLock(t, s, paths[i])
	}
	for i := range 4 {
		waitOn(t, sess[i], paths[i+1])
	}
	js, errOut, code := sessionsJSON(t, append([]string{"--check"}, paths...)...)
	if code != 0 || len(js.Deadlocks) != 0 || len(js.Sessions) != 5 {
		t.Fatalf("code %d, stderr %q, %+v", code, errOut, js)
	}
	want := map[string]int{}
	for i, s := range sess {
		want[model.SessionHex(s.ID())] = i
	}
	for k, s := range js.Sessions {
		i := want[s.Session]
		if s.Blocks != i || (i > 0) != (s.BlocksDirect == 1) || k != 4-i {
			t.Errorf("line %d: session %d of the chain: %+v", k, i, s)
		}
	}
	root := js.Sessions[0]
	if root.Session != model.SessionHex(sess[4].ID()) || root.Blocks != 4 || len(root.Waits) != 0 ||
		len(root.Holds) != 1 || root.Holds[0].Path != paths[4] || root.OldestWait <= 0 {
		t.Errorf("root blocker %+v, want session %s", root, model.SessionHex(sess[4].ID()))
	}
	// The exact field sets, by name.
	var raw map[string]json.RawMessage
	out, _, _ := runBinary(t, nil, serversFlag(t), "sessions", "--json", paths[0])
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(raw)); !slices.Equal(got, []string{"at", "deadlocks", "schema", "sessions"}) {
		t.Errorf("top-level fields %v", got)
	}
	var rawS []map[string]json.RawMessage
	if err := json.Unmarshal(raw["sessions"], &rawS); err != nil || len(rawS) == 0 {
		t.Fatalf("sessions: %v", err)
	}
	if got := slices.Sorted(maps.Keys(rawS[0])); !slices.Equal(got, []string{"blocks", "blocks_direct", "client", "expires_in_s", "holds", "member", "oldest_wait", "session", "silent_s", "timeout_s", "waits", "waits_for"}) {
		t.Errorf("session fields %v", got)
	}
	text, _, code := runBinary(t, nil, serversFlag(t), "sessions", base+"/p0", base+"/p1", base+"/p2", base+"/p3", base+"/p4")
	lines := strings.Split(text, "\n")
	if code != 0 || len(lines) < 2 || !strings.HasPrefix(lines[1], model.SessionHex(sess[4].ID())+" ") || strings.Contains(text, "DEADLOCK") {
		t.Errorf("text: code %d:\n%s", code, text)
	}
}

// TestSessionsDeadlockCuratorPeers: two stock Curator clients each take
// one InterProcessMutex and then the other's, one after the other as
// InterProcessMultiLock does: a cross-lock deadlock that `sessions`
// names with both sessions, and that ends when one client's session
// closes.
func TestSessionsDeadlockCuratorPeers(t *testing.T) {
	base := testPath(t)
	a, b := base+"/a", base+"/b"
	proc := peers.StartT(t, peers.Curator, peers.Options{Servers: testCluster(t).Servers(), Sessions: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := proc.Acquire(ctx, 0, a, peers.Mutex); err != nil {
		t.Fatal(err)
	}
	if _, err := proc.Acquire(ctx, 1, b, peers.Mutex); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		client int
		path   string
	}{{0, b}, {1, a}} {
		if _, err := proc.Request(r.client, r.path, peers.Mutex); err != nil {
			t.Fatal(err)
		}
	}
	c := testConn(t)
	eventually(t, 20*time.Second, "both clients queued", func() bool {
		ka, _, _ := c.Children(a)
		kb, _, _ := c.Children(b)
		return len(ka) == 2 && len(kb) == 2
	})
	ids := []string{model.SessionHex(proc.Session(0)), model.SessionHex(proc.Session(1))}
	js, errOut, code := sessionsJSON(t, "--check", "--root", base)
	if code != exitCheck || len(js.Deadlocks) != 1 {
		t.Fatalf("--check: code %d, stderr %q, %+v", code, errOut, js)
	}
	checkCycle(t, js.Deadlocks[0], model.CycleDeadlock, ids, []string{a, b})
	if err := proc.CloseSession(ctx, 0); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the deadlock to clear", func() bool {
		js, _, code := sessionsJSON(t, "--no-wait", a, b)
		return code == 0 && len(js.Deadlocks) == 0
	})
}

// TestSessionsSelfWaitNotACheckFailure: one session holds a lock and
// waits on it again (two threads sharing a session): `sessions` calls it
// self-wait, `ls` warns self-wait, and neither --check fails on it.
func TestSessionsSelfWaitNotACheckFailure(t *testing.T) {
	p := testPath(t)
	s := testSession(t)
	holdLock(t, s, p)
	second := waitOn(t, s, p)
	id := model.SessionHex(s.ID())
	js, errOut, code := sessionsJSON(t, "--check", p)
	if code != 0 || len(js.Deadlocks) != 1 {
		t.Fatalf("code %d, stderr %q, %+v", code, errOut, js)
	}
	d := js.Deadlocks[0]
	if d.State != model.CycleSelfWait || !slices.Equal(d.Sessions, []string{id}) || !slices.Equal(d.Paths, []string{p}) ||
		d.Waits[0].Node != second.Node() || d.Waits[0].Holder != id {
		t.Errorf("self-wait %+v", d)
	}
	out, errOut, code := runBinary(t, nil, serversFlag(t), "ls", "--json", "--check", p)
	var paths []model.JSONPath
	if err := json.Unmarshal([]byte(out), &paths); err != nil || code != 0 || len(paths) != 1 {
		t.Fatalf("ls: code %d, stderr %q, %v", code, errOut, err)
	}
	if w := paths[0].Warnings; len(w) != 1 || w[0].Code != model.WarnSelfWait || !slices.Equal(w[0].Nodes, []string{second.Node()}) {
		t.Errorf("ls warnings %+v", w)
	}
}
