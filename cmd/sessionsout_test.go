package cmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
)

// TestSessionsSemaphoreNodes: a Curator contender waiting for a lease
// has two nodes of one sequence on one path, its lease waiting beyond the
// limit and its node in the admission lock: the text names each for what
// it is, and the JSON says which (kind, admission_lock).
func TestSessionsSemaphoreNodes(t *testing.T) {
	at := time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)
	const uuid = "0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f"
	lease := func(seq int32, s int64, role ordering.Role) model.Node {
		return model.Node{Name: fmt.Sprintf("_c_%s-lease-%010d", uuid, seq), Seq: seq, Lease: true, Recipe: ordering.RecipeCurator,
			Role: role, Believes: role, Session: s, SinceExact: true}.WithParent("/sem/leases").WithCtime(at.Add(-2 * time.Second)).WithSince(at.Add(-2 * time.Second))
	}
	admit := model.Node{Name: fmt.Sprintf("_c_%s-lock-%010d", uuid, 79), Seq: 79, Kind: ordering.KindMutex, Recipe: ordering.RecipeCurator,
		Role: ordering.RoleWaiting, Believes: ordering.RoleWaiting, Session: 2, SinceExact: true}.WithWatches("/sem/leases").WithParent("/sem/locks").WithCtime(at.Add(-3 * time.Second)).WithSince(at.Add(-3 * time.Second))
	q := model.Queue{Path: "/sem", State: model.PathPresent, Type: model.TypeSemaphore,
		Nodes: model.NodesOf(lease(78, 1, ordering.RoleHolder), lease(79, 2, ordering.RoleWaiting), admit)}.WithRare(model.QueueRare{Limit: 1, LimitSource: model.LimitDeduced})
	ss := sessions.SessionsOf(&model.Snapshot{At: at, Queues: model.QueuesOf(q)})
	var out strings.Builder
	if err := writeSessionsText(&out, ss); err != nil {
		t.Fatal(err)
	}
	if want := "/sem lease #79 (2.0s), /sem admission lock #79 (3.0s)"; !strings.Contains(out.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, out.String())
	}
	if !strings.Contains(out.String(), "/sem lease #78") {
		t.Errorf("the held lease is not named a lease:\n%s", out.String())
	}
	var kinds []string
	for _, s := range sessions.SessionsJSON(ss).Sessions {
		for _, n := range append(s.Holds, s.Waits...) {
			kinds = append(kinds, fmt.Sprintf("%s/%v", n.Kind, n.Admission))
		}
	}
	if got := strings.Join(kinds, " "); !strings.Contains(got, "lease/false") || !strings.Contains(got, "mutex/true") {
		t.Errorf("json kinds %s: want leases and the admission lock's node told apart", got)
	}
}

// TestSessionsTextAndJSON: the text and JSON of `zklock sessions`: the
// blocker first, the cycle spelled out with the caveat, everything from
// ZooKeeper sanitized.
func TestSessionsTextAndJSON(t *testing.T) {
	at := time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)
	// node is a plain lock node of session s, holding or waiting since d
	// before at.
	node := func(seq int32, s int64, role ordering.Role, d time.Duration) model.Node {
		return model.Node{Name: fmt.Sprintf("lock-%010d", seq), Seq: seq, Kind: ordering.KindMutex, Recipe: ordering.RecipePlain,
			Role: role, Believes: role, Session: s, SinceExact: true}.WithClient(fmt.Sprintf("10.0.0.%d:4000", s)).WithSince(at.Add(-d))
	}
	evil := model.Queue{Path: "/locks/\x1b]0;pwned\a", State: model.PathPresent, Type: model.TypeMutex, Nodes: model.NodesOf(
		node(1, 2, ordering.RoleHolder, time.Minute), node(2, 1, ordering.RoleWaiting, 20*time.Second), node(3, 3, ordering.RoleWaiting, 30*time.Second))}
	evil.Nodes.At(2).SetClient("\x1b[2J")
	a := model.Queue{Path: "/locks/a", State: model.PathPresent, Type: model.TypeMutex, Nodes: model.NodesOf(
		node(1, 1, ordering.RoleHolder, time.Minute), node(2, 2, ordering.RoleWaiting, 10*time.Second))}
	queues := []model.Queue{evil, a} // by path
	ss := sessions.SessionsOf(&model.Snapshot{At: at, Queues: model.QueuesOf(queues...), Deadlocks: sessions.FindDeadlocks(model.QueuesOf(queues...), at)})
	var out strings.Builder
	if err := writeSessionsText(&out, ss); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	t.Log("\n" + text)
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[0], "SESSION") || !strings.HasPrefix(lines[1], "0x2 ") {
		t.Errorf("the root blocker (0x2, blocking 2) is not first:\n%s", text)
	}
	for _, want := range []string{
		"CROSS-LOCK DEADLOCK: 0x1 → 0x2 → 0x1, no handoff for 10.0s",
		"0x1 (10.0.0.1:4000) holds /locks/a #1; waits on /locks/\\x1b]0;pwned\\x07 #2 since 03:11:44, held by 0x2 (#1)",
		"A session is not a thread",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.ContainsAny(text, "\x1b\a") {
		t.Error("raw control characters in the text")
	}
	out.Reset()
	if err := writeSessionsJSON(&out, ss); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), `\u001b`) || !strings.Contains(out.String(), `\\x1b]0;pwned`) {
		t.Errorf("json not sanitized:\n%s", out.String())
	}
	if !strings.HasPrefix(out.String(), "{\n  \"schema\": 1,\n  \"at\": ") {
		t.Errorf("json does not open with the schema version, then at:\n%s", out.String())
	}
	var js sessions.JSONSessions
	if err := json.Unmarshal([]byte(out.String()), &js); err != nil {
		t.Fatal(err)
	}
	if js.Schema != sessions.SessionsSchema {
		t.Errorf("json schema %d, want %d", js.Schema, sessions.SessionsSchema)
	}
	if len(js.Sessions) != 3 || js.Sessions[0].Session != "0x2" || js.Sessions[0].Blocks != 2 || js.Sessions[0].OldestWait != 30 ||
		len(js.Deadlocks) != 1 || js.Deadlocks[0].State != "deadlock" || js.Deadlocks[0].Waits[1].HolderNode != "lock-0000000001" {
		t.Errorf("json %+v", js)
	}
}

// TestNodeListNoNode: a contender with no node of its own (a plain
// ephemeral lock's waiter, a barrier's) is its path alone, no space left
// after it.
func TestNodeListNoNode(t *testing.T) {
	got := nodeList([]sessions.SessionNode{{Path: "/jobs/gate"}, {Path: "/locks/a", Node: "lock-0000000007"}}, time.Time{}, 4)
	if want := "/jobs/gate, /locks/a #7"; got != want {
		t.Fatalf("nodeList = %q, want %q", got, want)
	}
}
