package verdict

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/zkview/queue"
)

// t0 is when the queues below were listed; the servers are asked 2s
// later (past the missing-watch grace), and the verdict read then.
var (
	t0 = modeltest.T0
	at = t0.Add(2 * time.Second)
)

// contender is one lock node as a test lays it out: its name, its
// session, and the nodes (by name) the servers show that session
// watching.
type contender struct {
	name    string
	session int64
	watches []string
}

// built is the queue the Watcher builds at path from cs, listed at t0,
// each node created a second apart before it, with the servers' view when
// serverView (the sessions' clients and watches as cs say).
func built(path string, serverView bool, cs ...contender) model.Queue {
	qm := queue.New(path, path, &queue.Hooks{Emit: func(model.Change) {}})
	kids := make([]string, len(cs))
	got := make([]queue.Fetched, len(cs))
	for i, c := range cs {
		kids[i] = c.name
		ctime := t0.Add(-time.Duration(len(cs)-i) * time.Second)
		got[i] = queue.Fetched{Name: c.name, Rec: &queue.Record{Session: c.session, CtimeMs: ctime.UnixMilli(), Fetched: true}}
	}
	qm.Apply(kids, got, t0, t0, t0)
	var sv *queue.ServerView
	if serverView {
		sv = &queue.ServerView{Start: at, At: at, OK: true, Clients: map[int64]string{}, Known: map[int64]bool{},
			Watches: map[int64]map[string]bool{}, Watchers: map[string][]int64{}}
		for _, c := range cs {
			sv.Clients[c.session] = fmt.Sprintf("10.0.0.%d:4000", c.session)
			sv.Known[c.session] = true
			if sv.Watches[c.session] == nil {
				sv.Watches[c.session] = map[string]bool{}
			}
			for _, w := range c.watches {
				p := model.ChildPath(path, w)
				sv.Watches[c.session][p] = true
				sv.Watchers[p] = append(sv.Watchers[p], c.session)
			}
		}
	}
	return queue.Build(qm, sv, false, time.Time{})
}

// snapshot is a one-shot read of qs at at, its cycles over sessions
// found as `zklock why` finds them.
func snapshot(serverView bool, qs ...model.Queue) *model.Snapshot {
	queues := model.QueuesOf(qs...)
	return &model.Snapshot{At: at, Queues: queues, ServerView: serverView, ServerViewAt: at,
		Deadlocks: sessions.FindDeadlocks(queues, at)}
}

func lockName(seq int) string { return fmt.Sprintf("lock-%010d", seq) }

// chain is a plain mutex queue of n nodes, sessions 1..n, each waiter
// watching the node before it unless its session is in unwatched.
func chain(n int, unwatched ...int64) []contender {
	cs := make([]contender, n)
	for i := range cs {
		cs[i] = contender{name: lockName(i), session: int64(i + 1)}
		if i > 0 && !contains(unwatched, int64(i+1)) {
			cs[i].watches = []string{lockName(i - 1)}
		}
	}
	return cs
}

func contains(xs []int64, x int64) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// failsCheck is `ls --check`'s rule as cmd hands it in.
func failsCheck(w model.Warning, _ time.Time) bool {
	switch w.Code {
	case model.WarnSplitHolders, model.WarnDeadlock, model.WarnOverLimit, model.WarnMissingWatch:
		return true
	}
	return false
}

// silentFor is a liveness reader: session s silent since silent before
// at with a 20s timeout, the others heard a second ago.
func silentFor(s int64, silent time.Duration) LivenessOf {
	return func(n *model.Node) (Liveness, bool) {
		heard := at.Add(-time.Second)
		if n.Session == s {
			heard = at.Add(-silent)
		}
		return Liveness{Member: "127.0.0.1:2181", Heard: heard, Timeout: 20 * time.Second,
			Expires: heard.Add(20 * time.Second), At: at}, true
	}
}

func TestJudge(t *testing.T) {
	const (
		curator = "_c_0f4a3c36-6a39-4bd4-9b0f-5a3c2f8b9d11-lock-0000000000"
		kazoo   = "4b3c1d2e5f6a7b8c9d0e1f2a3b4c5d6e__lock__0000000001"
	)
	noauth := model.Queue{Path: "/locks/secret", State: model.PathNoAuth}
	noauth.SetErr("not authorized")
	tests := []struct {
		name      string
		snap      *model.Snapshot
		path      string
		live      LivenessOf
		state     State
		failing   bool
		wakes     []Wakes // each waiter's, in order
		next      string
		act       string // the command, "" for none
		why       Why
		headline  string // a part of it
		textParts []string
	}{
		{name: "free", snap: snapshot(true, built("/locks/a", true)), path: "/locks/a",
			state: StateFree, headline: "/locks/a: free: no client holds it"},
		{name: "absent", snap: snapshot(true, model.Queue{Path: "/locks/a", State: model.PathAbsent}), path: "/locks/a",
			state: StateFree, headline: "the path does not exist"},
		{name: "a directory of locks", snap: snapshot(true, built("/locks", true, contender{"billing", 0, nil}, contender{"orders", 0, nil})), path: "/locks",
			state: StateNotLock, headline: "/locks: no lock nodes here, 2 other children (billing, orders): name a lock parent, such as /locks/billing"},
		{name: "not read", snap: snapshot(true), path: "/locks/a", state: StateUnknown, headline: "/locks/a: cannot tell: not read"},
		{name: "not readable", snap: snapshot(true, noauth), path: "/locks/secret", state: StateUnknown,
			headline: "cannot tell: not authorized"},
		{name: "held alone", snap: snapshot(true, built("/locks/a", true, chain(1)...)), path: "/locks/a",
			state: StateHeld, next: "when #0 releases, the lock is free", headline: "held by #0 for ≤3.0s; nobody waits"},
		{name: "every waiter watches", snap: snapshot(true, built("/locks/a", true, chain(3)...)), path: "/locks/a",
			state: StateHeld, wakes: []Wakes{WakesYes, WakesYes}, next: "when #0 releases, #1 holds",
			headline:  "held by #0 for ≤5.0s; 2 waiting",
			textParts: []string{"#1 waits 4.0s, watching #0 (the servers show the watch): it wakes when #0 goes [session 0x2, 10.0.0.2:4000]"}},
		{name: "servers do not tell", snap: snapshot(false, built("/locks/a", false, chain(3)...)), path: "/locks/a",
			state: StateHeld, wakes: []Wakes{WakesExpected, WakesExpected}, next: "when #0 releases, #1 holds",
			textParts: []string{"it should wake when #0 goes", "the servers do not tell their watches"}},
		{name: "a waiter with no watch", snap: snapshot(true, built("/locks/a", true, chain(3, 3)...)), path: "/locks/a",
			state: StateStuck, failing: true, wakes: []Wakes{WakesYes, WakesNever}, next: "when #0 releases, #1 holds",
			act: "zklock release --force /locks/a/lock-0000000002", why: WhyNeverWakes,
			headline:  "/locks/a: STUCK: #2 will never wake (missing-watch)",
			textParts: []string{"#2 waits 3.0s on #1, but its session has no watch there", "warning missing-watch:"}},
		{name: "the next in line has no watch", snap: snapshot(true, built("/locks/a", true, chain(2, 2)...)), path: "/locks/a",
			state: StateStuck, failing: true, wakes: []Wakes{WakesNever},
			next: "when #0 releases, #1 holds, but #1 will not notice (missing-watch): the lock then stays stuck",
			act:  "zklock release --force /locks/a/lock-0000000001", why: WhyNeverWakes},
		{name: "a silent holder", snap: snapshot(true, built("/locks/a", true, chain(2)...)), path: "/locks/a",
			live: silentFor(1, 14*time.Second), state: StateSilent, wakes: []Wakes{WakesYes},
			next: "when #0 releases, or its session expires (in ≤6s), #1 holds",
			act:  "zklock release --force /locks/a/lock-0000000000", why: WhySilent,
			headline:  "HOLDER SILENT: held by #0 for ≤4.0s (its client silent); 1 waiting",
			textParts: []string{"its client: SILENT 14.0s (session timeout 20.0s)", "the server expires its session in ≤6s", "or wait ≤6s"}},
		{name: "an alive holder", snap: snapshot(true, built("/locks/a", true, chain(2)...)), path: "/locks/a",
			live: silentFor(2, 14*time.Second), state: StateHeld, wakes: []Wakes{WakesYes}, next: "when #0 releases, #1 holds",
			textParts: []string{"its client: alive: heard 1.0s ago (session timeout 20.0s) on 127.0.0.1:2181"}},
		{name: "recipes that cannot see each other", path: "/locks/a",
			snap:  snapshot(true, built("/locks/a", true, contender{curator, 1, nil}, contender{kazoo, 2, nil})),
			state: StateSplit, failing: true, act: "zklock sessions /locks/a", why: WhySplit,
			headline: "/locks/a: SPLIT: #0 and #1 each believe they hold it at once", next: "when #0 releases, #1 holds",
			textParts: []string{"it believes it holds by its own recipe, while a node before it holds"}},
		{name: "readers hold together next", path: "/locks/rw",
			snap: snapshot(true, built("/locks/rw", true,
				contender{"_c_0f4a3c36-6a39-4bd4-9b0f-5a3c2f8b9d11-__WRIT__0000000000", 1, nil},
				contender{"_c_1f4a3c36-6a39-4bd4-9b0f-5a3c2f8b9d11-__READ__0000000001", 2, []string{"_c_0f4a3c36-6a39-4bd4-9b0f-5a3c2f8b9d11-__WRIT__0000000000"}},
				contender{"_c_2f4a3c36-6a39-4bd4-9b0f-5a3c2f8b9d11-__READ__0000000002", 3, []string{"_c_0f4a3c36-6a39-4bd4-9b0f-5a3c2f8b9d11-__WRIT__0000000000"}})),
			state: StateHeld, wakes: []Wakes{WakesYes, WakesYes}, next: "when #0 releases, #1 and #2 hold"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Judge(tt.snap, tt.path, Options{Liveness: tt.live, Fails: failsCheck})
			if v.State != tt.state || v.Failing != tt.failing {
				t.Errorf("state %s failing %v, want %s %v\n%s", v.State, v.Failing, tt.state, tt.failing, v.Text())
			}
			var wakes []Wakes
			for _, w := range v.Waiters {
				wakes = append(wakes, w.Wakes)
			}
			if fmt.Sprint(wakes) != fmt.Sprint(tt.wakes) {
				t.Errorf("wakes %v, want %v", wakes, tt.wakes)
			}
			if got := v.NextText(); got != tt.next {
				t.Errorf("next %q, want %q", got, tt.next)
			}
			act, why := "", Why("")
			if v.Act != nil {
				act, why = v.Act.Command, v.Act.Why
			}
			if act != tt.act || why != tt.why {
				t.Errorf("act %q (%s), want %q (%s)", act, why, tt.act, tt.why)
			}
			text := v.Text()
			if !strings.HasPrefix(text, v.Headline()+"\n") || !strings.Contains(v.Headline(), tt.headline) {
				t.Errorf("headline %q, want it to hold %q", v.Headline(), tt.headline)
			}
			for _, part := range tt.textParts {
				if !strings.Contains(text, part) {
					t.Errorf("text lacks %q:\n%s", part, text)
				}
			}
			if tt.act != "" && !strings.Contains(text, "act: "+tt.act+"\n") {
				t.Errorf("text lacks the act line:\n%s", text)
			}
		})
	}
}

// TestJudgeCycles: a waiter in a cycle of waits will not wake; the act
// is zklock sessions on the cycle's locks. A cross-lock cycle is a
// deadlock once it has stood DeadlockAfter, a young cycle before.
func TestJudgeCycles(t *testing.T) {
	a := built("/locks/a", true, contender{lockName(0), 1, nil}, contender{lockName(1), 2, []string{lockName(0)}})
	b := built("/locks/b", true, contender{lockName(0), 2, nil}, contender{lockName(1), 1, []string{lockName(0)}})
	queues := model.QueuesOf(a, b)
	for _, tt := range []struct {
		name    string
		at      time.Time
		state   State
		failing bool
		wakes   Wakes
		reason  string
		act     string
	}{
		{"young", at, StateHeld, false, WakesUnknown, ReasonCycle, ""},
		{"stood", at.Add(sessions.DeadlockAfter), StateStuck, true, WakesNever, ReasonCrossLock, "zklock --context prod sessions /locks/b /locks/a"},
	} {
		snap := &model.Snapshot{At: tt.at, Queues: queues, ServerView: true, Deadlocks: sessions.FindDeadlocks(queues, tt.at)}
		v := Judge(snap, "/locks/a", Options{Fails: failsCheck, Zklock: "zklock --context prod"})
		if v.State != tt.state || v.Failing != tt.failing || len(v.Waiters) != 1 || v.Waiters[0].Wakes != tt.wakes || v.Waiters[0].Reason != tt.reason {
			t.Errorf("%s: %s failing %v waiters %+v, want %s %v %s %s\n%s", tt.name, v.State, v.Failing, v.Waiters, tt.state, tt.failing, tt.wakes, tt.reason, v.Text())
		}
		act := ""
		if v.Act != nil {
			act = v.Act.Command
		}
		if act != tt.act {
			t.Errorf("%s: act %q, want %q", tt.name, act, tt.act)
		}
		if !strings.Contains(v.Text(), "sessions: cross-lock") {
			t.Errorf("%s: the cycle is not told:\n%s", tt.name, v.Text())
		}
	}
}

// TestJudgeWatchCycle: Kazoo 2.8's reader watching the writer queued
// behind it, which watches the reader (PRODUCT.md: that rule deadlocks
// for real): both wait forever.
func TestJudgeWatchCycle(t *testing.T) {
	const (
		r1 = "0a0b0c0d0e0f0a0b0c0d0e0f0a0b0c0d__rlock__0000000001"
		w2 = "1a0b0c0d0e0f0a0b0c0d0e0f0a0b0c0d__lock__0000000002"
	)
	q := built("/locks/k", true, contender{r1, 1, []string{w2}}, contender{w2, 2, []string{r1}})
	if modeltest.Warning(&q, model.WarnDeadlock) == nil {
		t.Fatalf("the Watcher's build found no deadlock: %+v", q.Warnings())
	}
	v := Judge(snapshot(true, q), "/locks/k", Options{Fails: failsCheck})
	if v.State != StateStuck || !v.Failing || v.Act == nil || v.Act.Command != "zklock sessions /locks/k" || v.Act.Why != WhyDeadlock {
		t.Errorf("state %s failing %v act %+v\n%s", v.State, v.Failing, v.Act, v.Text())
	}
	for _, w := range v.Waiters {
		if w.Wakes != WakesNever || w.Reason != ReasonDeadlock {
			t.Errorf("%s wakes %s (%s), want never (deadlock)", w.Node.Name, w.Wakes, w.Reason)
		}
	}
}

// TestJudgeElection: an election's words, leads and goes.
func TestJudgeElection(t *testing.T) {
	const (
		l0 = "_c_0f4a3c36-6a39-4bd4-9b0f-5a3c2f8b9d11-latch-0000000000"
		l1 = "_c_1f4a3c36-6a39-4bd4-9b0f-5a3c2f8b9d11-latch-0000000001"
	)
	q := built("/election", true, contender{l0, 1, nil}, contender{l1, 2, []string{l0}})
	if q.Type != model.TypeElection {
		t.Fatalf("type %s, want election", q.Type)
	}
	v := Judge(snapshot(true, q), "/election", Options{})
	if got, want := v.NextText(), "when #0 goes, #1 leads"; got != want {
		t.Errorf("next %q, want %q", got, want)
	}
	if !strings.Contains(v.Headline(), "led by #0") || !strings.Contains(v.Text(), "holder: #0 leads") {
		t.Errorf("text:\n%s", v.Text())
	}
}

// TestTextBounded: a queue of 10,000 waiters is told by its first few,
// the one that will not wake, and a count; the JSON lists them all.
func TestTextBounded(t *testing.T) {
	cs := chain(10000, 5000, 6000, 7000, 8000)
	v := Judge(snapshot(true, built("/locks/big", true, cs...)), "/locks/big", Options{Fails: failsCheck})
	text := v.Text()
	if lines := strings.Count(text, "\n"); lines > maxWaiterLines+15 {
		t.Errorf("%d lines:\n%s", lines, text)
	}
	for _, part := range []string{"/locks/big: STUCK: #4999, #5999, #6999 and 1 more will never wake (missing-watch)\n",
		"#7999 waits", "… and 9987 more waiting (9987 will wake, 0 should"} {
		if !strings.Contains(text, part) {
			t.Errorf("text lacks %q:\n%s", part, text)
		}
	}
	if j := v.JSON(); len(j.Waiters) != 9999 {
		t.Errorf("JSON lists %d waiters, want 9999", len(j.Waiters))
	}
}

// TestJudgeSemaphore: a semaphore's holders are its leases; the
// admission lock's holder waits for a lease, and takes the next one.
func TestJudgeSemaphore(t *testing.T) {
	lease := func(name string, s int64) model.Node {
		n := modeltest.Hold(0, s, time.Minute)
		n.Name, n.Lease, n.Kind = name, true, 0
		return n
	}
	admitted := modeltest.Hold(5, 3, 10*time.Second).WithWatches("/sem/leases")
	admitted.Role = 0 // waiting for a lease, holding the admission lock
	q := model.Queue{Path: "/sem", State: model.PathPresent, Type: model.TypeSemaphore,
		Nodes: model.NodesOf(lease("a", 1), lease("b", 2), admitted, modeltest.Wait(6, 4, 5*time.Second).WithWatches(lockName(5)))}
	v := Judge(&model.Snapshot{At: modeltest.T0, Queues: model.QueuesOf(q)}, "/sem", Options{})
	if len(v.Holders) != 2 || len(v.Waiters) != 2 || v.State != StateHeld {
		t.Fatalf("%d holders, %d waiters, %s:\n%s", len(v.Holders), len(v.Waiters), v.State, v.Text())
	}
	if got, want := v.NextText(), "when a lease is returned, #5 takes it"; got != want {
		t.Errorf("next %q, want %q", got, want)
	}
}

// TestJudgeEphemeral: the plain ephemeral-node lock (one node, its
// waiters the sessions watching it): they race for it when it goes, and
// the command to act names the node, whether the watched path is its
// parent or the node itself.
func TestJudgeEphemeral(t *testing.T) {
	for _, tt := range []struct{ path, child, node string }{
		{"/locks/e", "leader", "/locks/e/leader"},
		{"/locks/e/leader", "", "/locks/e/leader"},
	} {
		qm := queue.New(tt.path, tt.path, &queue.Hooks{Emit: func(model.Change) {}})
		var kids []string
		if tt.child != "" {
			kids = []string{tt.child}
		}
		qm.Apply(kids, nil, t0, t0, t0)
		qm.SetLone(&queue.LoneNode{Name: tt.child, Rec: &queue.Record{Session: 1, CtimeMs: t0.Add(-time.Minute).UnixMilli(), Fetched: true}})
		sv := &queue.ServerView{Start: at, At: at, OK: true, Clients: map[int64]string{}, Known: map[int64]bool{1: true, 2: true, 3: true},
			Watchers: map[string][]int64{tt.node: {2, 3}}}
		q := queue.Build(qm, sv, false, time.Time{})
		v := Judge(snapshot(true, q), tt.path, Options{Liveness: silentFor(1, 15*time.Second)})
		if len(v.Holders) != 1 || len(v.Waiters) != 2 || v.State != StateSilent {
			t.Fatalf("%s: %d holders, %d waiters, %s:\n%s", tt.path, len(v.Holders), len(v.Waiters), v.State, v.Text())
		}
		if got, want := v.NextText(), "when leader releases, or its session expires (in ≤5s), its 2 waiters race to create it again (a herd: each release wakes them all)"; got != want {
			t.Errorf("%s: next %q, want %q", tt.path, got, want)
		}
		if v.Act == nil || v.Act.Command != "zklock release --force "+tt.node {
			t.Errorf("%s: act %+v, want release --force %s", tt.path, v.Act, tt.node)
		}
		if !strings.Contains(v.Text(), "session 0x2 waits") {
			t.Errorf("%s: a waiter with no node of its own is not named by its session:\n%s", tt.path, v.Text())
		}
	}
}

// TestJudgeNodeHealth: without a reader handed in, a verdict reads the
// session health the snapshot carries (what the AdminServer or `cons`
// told the Watcher).
func TestJudgeNodeHealth(t *testing.T) {
	holder := modeltest.Hold(0, 1, time.Minute)
	holder.SetHealth(model.Health{Member: "zk2:2181", Heard: modeltest.T0.Add(-12 * time.Second), Timeout: 20 * time.Second,
		Expires: modeltest.T0.Add(8 * time.Second), At: modeltest.T0})
	q := modeltest.MutexQ("/locks/a", holder, modeltest.Wait(1, 2, 30*time.Second).WithWatches(lockName(0)))
	v := Judge(&model.Snapshot{At: modeltest.T0, Queues: model.QueuesOf(q)}, "/locks/a", Options{})
	if v.State != StateSilent || v.Holders[0].Alive != AliveSilent || v.Act == nil || v.Act.Why != WhySilent {
		t.Fatalf("%s, %s, %+v:\n%s", v.State, v.Holders[0].Alive, v.Act, v.Text())
	}
	if got, want := v.NextText(), "when #0 releases, or its session expires (in ≤8s), #1 holds"; got != want {
		t.Errorf("next %q, want %q", got, want)
	}
	if j := v.JSON().Holders[0]; j.Member != "zk2:2181" || j.SilentS == nil || *j.SilentS != 12 || j.ExpiresInS == nil || *j.ExpiresInS != 8 {
		t.Errorf("holder JSON %+v", j)
	}
}
