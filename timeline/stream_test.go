package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

var streamT0 = time.Date(2026, 11, 23, 3, 12, 0, 0, time.UTC)

// sn is a lock node for Diff's tests: seq, session and role; created
// a second before streamT0 unless ctime says otherwise.
func stn(seq int, session int64, holder bool) model.Node {
	n := model.Node{
		Name: fmt.Sprintf("_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-lock-%010d", seq), Seq: int32(seq),
		Kind: ordering.KindMutex, Recipe: ordering.RecipeCurator, Role: ordering.RoleWaiting, Believes: ordering.RoleWaiting,
		Session: session, DataLen: 3,
		SinceExact: true,
	}.WithCtime(streamT0.Add(-time.Second)).WithData([]byte("job")).WithSince(streamT0.Add(-time.Second))
	if holder {
		n.Role, n.Believes = ordering.RoleHolder, ordering.RoleHolder
	}
	return n
}

func stnCreated(n model.Node, at time.Time) model.Node { n.SetCtime(at); n.SetSince(at); return n }

func stq(path string, nodes ...model.Node) model.Queue {
	return model.Queue{Path: path, State: model.PathPresent, Type: model.TypeMutex, Nodes: model.NodesOf(nodes...)}
}

func snapAt(sec int, qs ...model.Queue) *model.Snapshot {
	return &model.Snapshot{At: streamT0.Add(time.Duration(sec) * time.Second), Conn: model.Conn{State: model.StateConnected}, Queues: model.QueuesOf(qs...)}
}

// changeLine is a compact form of a change for the tables.
func changeLine(c model.Change) string {
	switch c.Kind {
	case model.ChangeStale, model.ChangeFresh:
		return c.Kind.String()
	case model.ChangeWarningRaised, model.ChangeWarningCleared:
		return fmt.Sprintf("%s %s %s", c.Kind, c.Path, c.Warning.Code)
	case model.ChangePathAppeared, model.ChangePathVanished:
		return fmt.Sprintf("%s %s", c.Kind, c.Path)
	}
	s := fmt.Sprintf("%s %s #%d 0x%x", c.Kind, c.Path, c.Node.Seq, c.Node.Session)
	if c.From != "" {
		s += " from #" + strings.TrimLeft(c.From[len(c.From)-10:], "0")
	}
	return s
}

func TestDiff(t *testing.T) {
	const p, r = "/locks/a", "/locks/b"
	held := func(q model.Queue, hs ...model.Handoff) model.Queue { q.SetHandoffs(hs); return q }
	warn := func(q model.Queue, codes ...string) model.Queue {
		for _, c := range codes {
			q.SetWarnings(append(q.Warnings(), model.Warning{Code: c, Message: c + "!"}))
		}
		return q
	}
	state := func(q model.Queue, st model.PathState) model.Queue { q.State = st; return q }
	h1 := stn(1, 0x11, true)
	w2, w3 := stn(2, 0x22, false), stn(3, 0x33, false)
	h2 := stn(2, 0x22, true)
	h2.SinceExact = true
	h2.SetSince(streamT0.Add(500 * time.Millisecond))
	h3 := stn(3, 0x33, true)
	new4 := stnCreated(stn(4, 0x44, false), streamT0.Add(500*time.Millisecond))
	new1h := stnCreated(stn(1, 0x11, true), streamT0.Add(500*time.Millisecond))
	handoff := func(from, to model.Node, sec float64) model.Handoff {
		return model.Handoff{Path: p, From: from.Name, To: to.Name, At: streamT0.Add(time.Duration(sec * float64(time.Second)))}
	}

	for _, tc := range []struct {
		name       string
		prev, next *model.Snapshot
		want       []string
	}{
		{name: "start: nothing yet", prev: nil, next: snapAt(1, stq(p, h1, w2)), want: nil},
		{name: "no change", prev: snapAt(0, stq(p, h1, w2)), next: snapAt(1, stq(p, h1, w2)), want: nil},
		{
			name: "join",
			prev: snapAt(0, stq(p, h1, w2)), next: snapAt(1, stq(p, h1, w2, new4)),
			want: []string{"joined /locks/a #4 0x44"},
		},
		{
			name: "handoff: released, then acquired",
			prev: snapAt(0, stq(p, h1, w2, w3)), next: snapAt(1, held(stq(p, h2, w3), handoff(h1, h2, 0.5))),
			want: []string{"released /locks/a #1 0x11", "acquired /locks/a #2 0x22 from #1"},
		},
		{
			name: "a waiter leaves: gave-up",
			prev: snapAt(0, stq(p, h1, w2, w3)), next: snapAt(1, stq(p, h1, w3)),
			want: []string{"gave-up /locks/a #2 0x22"},
		},
		{
			// Merged: #1 released, #2 held and released, #3 holds, #4
			// joined, all between two snapshots. Each once, in order.
			name: "coalesced snapshot: each node once",
			prev: snapAt(0, stq(p, h1, w2, w3)),
			next: snapAt(1, held(stq(p, h3, new4), handoff(h1, h2, 0.2), handoff(h2, h3, 0.4))),
			want: []string{
				"released /locks/a #1 0x11",
				"acquired /locks/a #2 0x22 from #1", "released /locks/a #2 0x22",
				"acquired /locks/a #3 0x33 from #2",
				"joined /locks/a #4 0x44",
			},
		},
		{
			name: "a node created holding: joined, acquired",
			prev: snapAt(0, stq(p)), next: snapAt(1, stq(p, new1h)),
			want: []string{"joined /locks/a #1 0x11", "acquired /locks/a #1 0x11"},
		},
		{
			// Session 0x11 held /locks/a and waited on /locks/b: both
			// nodes went in one step, it has none left.
			name: "every node of a session at once: session-lost",
			prev: snapAt(0, stq(p, h1, w2), stq(r, stn(7, 0x33, true), stn(8, 0x11, false))),
			next: snapAt(1, held(stq(p, h2), handoff(h1, h2, 0.5)), stq(r, stn(7, 0x33, true))),
			want: []string{
				"session-lost /locks/a #1 0x11", "acquired /locks/a #2 0x22 from #1",
				"session-lost /locks/b #8 0x11",
			},
		},
		{
			name: "one node of a session that keeps another: released",
			prev: snapAt(0, stq(p, h1), stq(r, stn(8, 0x11, true))),
			next: snapAt(1, stq(p), stq(r, stn(8, 0x11, true))),
			want: []string{"released /locks/a #1 0x11"},
		},
		{
			name: "warnings raised and cleared, stale not told",
			prev: snapAt(0, warn(stq(p, h1), model.WarnHerd)),
			next: snapAt(1, warn(stq(p, h1), model.WarnSplitHolders, model.WarnStale, model.WarnSplitHolders)),
			want: []string{"warning-cleared /locks/a herd", "warning-raised /locks/a split-holders"},
		},
		{
			name: "stale, then fresh",
			prev: snapAt(0, stq(p, h1)),
			next: func() *model.Snapshot { s := snapAt(1, stq(p, h1)); s.Stale = true; return s }(),
			want: []string{"stale"},
		},
		{
			name: "fresh",
			prev: func() *model.Snapshot { s := snapAt(0, stq(p, h1)); s.Stale = true; return s }(),
			next: snapAt(1, stq(p, h1)),
			want: []string{"fresh"},
		},
		{
			name: "path appears with its first node",
			prev: snapAt(0, state(stq(p), model.PathAbsent)), next: snapAt(1, stq(p, new1h)),
			want: []string{"path-appeared /locks/a", "joined /locks/a #1 0x11", "acquired /locks/a #1 0x11"},
		},
		{
			name: "the last node goes: the queue keeps its type",
			prev: snapAt(0, stq(p, h1)), next: snapAt(1, model.Queue{Path: p, State: model.PathPresent}),
			want: []string{"released /locks/a #1 0x11"},
		},
		{
			name: "path vanishes",
			prev: snapAt(0, warn(stq(p, h1), model.WarnHerd)), next: snapAt(1, state(stq(p), model.PathAbsent)),
			want: []string{"released /locks/a #1 0x11", "warning-cleared /locks/a herd", "path-vanished /locks/a"},
		},
		{
			name: "a discovered queue leaves the model",
			prev: snapAt(0, stq(p, h1), stq(r)), next: snapAt(1, stq(r)),
			want: []string{"released /locks/a #1 0x11", "path-vanished /locks/a"},
		},
		{
			// First read of a path: what was there before is no change;
			// a node created since the previous snapshot joined.
			name: "first read: only nodes created since",
			prev: snapAt(0, state(model.Queue{Path: p}, model.PathPending)), next: snapAt(1, stq(p, h1, w2, new4)),
			want: []string{"joined /locks/a #4 0x44"},
		},
		{
			name: "a lock parent discovered under a root with its first node",
			prev: snapAt(0), next: snapAt(1, stq(p, new1h)),
			want: []string{"path-appeared /locks/a", "joined /locks/a #1 0x11", "acquired /locks/a #1 0x11"},
		},
		{
			name: "a lock parent discovered with old nodes: nothing",
			prev: snapAt(0), next: snapAt(1, stq(p, h1, w2)),
			want: nil,
		},
		{
			name: "unreadable: no node change claimed",
			prev: snapAt(0, stq(p, h1, w2)), next: snapAt(1, state(stq(p), model.PathNoAuth)),
			want: nil,
		},
		{
			name: "waiter of a plain ephemeral lock, known by session",
			prev: snapAt(0, stq(p, model.Node{Name: "lock", Session: 0x11, Role: ordering.RoleHolder}, model.Node{Session: 0x22})),
			next: snapAt(1, stq(p, model.Node{Name: "lock", Session: 0x11, Role: ordering.RoleHolder}, model.Node{Session: 0x33})),
			want: []string{"gave-up /locks/a #0 0x22", "joined /locks/a #0 0x33"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range Diff(tc.prev, tc.next) {
				got = append(got, changeLine(c))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Diff:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestDiffDurations: held and waited come from exact starts only.
func TestDiffDurations(t *testing.T) {
	const p = "/locks/a"
	h1, w2 := stn(1, 0x11, true), stn(2, 0x22, false)
	h1.SetSince(streamT0.Add(-3 * time.Second))
	h2 := stn(2, 0x22, true)
	h2.SetSince(streamT0.Add(time.Second))
	cs := Diff(snapAt(0, stq(p, h1, w2)), snapAt(2, stq(p, h2)))
	if len(cs) != 2 || cs[0].Held != 5*time.Second || cs[1].Waited != 2*time.Second {
		t.Fatalf("durations: %+v", cs)
	}
	h1.SinceExact = false // found holding: from its creation, at most
	cs = Diff(snapAt(0, stq(p, h1)), snapAt(2, stq(p)))
	if len(cs) != 1 || cs[0].Held != 3*time.Second || cs[0].HeldBound != model.BoundEarliest {
		t.Fatalf("inexact hold: %+v", cs)
	}
}

// TestDiffHeld: every node that held and left says how long, with how
// well that is known; a split holder (by sequence waiting, by its own
// recipe holding) leaves as released, held at most since its creation.
func TestDiffHeld(t *testing.T) {
	const p = "/locks/a"
	exact := stn(1, 0x11, true)
	exact.SetSince(streamT0.Add(-3 * time.Second))
	found := stn(1, 0x11, true)
	found.SinceExact = false
	unread := model.Node{Name: found.Name, Seq: 1, Kind: ordering.KindMutex, Role: ordering.RoleHolder, Believes: ordering.RoleHolder, Session: 0x11}.WithSince(streamT0)
	split := stn(2, 0x22, false)
	split.Recipe, split.Believes = ordering.RecipeKazoo, ordering.RoleHolder
	holder := stn(1, 0x11, true)
	for _, tc := range []struct {
		name       string
		prev, next *model.Snapshot
		kind       model.ChangeKind
		held       time.Duration
		bound      string
		text       string
	}{
		{"seen to begin", snapAt(0, stq(p, exact)), snapAt(2, stq(p)), model.ChangeReleased, 5 * time.Second, "exact", " deleted (held 5.0s)"},
		{"found holding", snapAt(0, stq(p, found)), snapAt(2, stq(p)), model.ChangeReleased, 3 * time.Second, "at-most", " deleted (held at most 3.0s)"},
		{"creation unknown", snapAt(0, stq(p, unread)), snapAt(2, stq(p)), model.ChangeReleased, 2 * time.Second, "at-least", " deleted (held at least 2.0s)"},
		{"split holder", snapAt(0, stq(p, holder, split)), snapAt(2, stq(p, holder)), model.ChangeReleased, 3 * time.Second, "at-most",
			" deleted (believed it held at most 3.0s; by sequence it waited)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := Diff(tc.prev, tc.next)
			if len(cs) != 1 {
				t.Fatalf("%d changes: %+v", len(cs), cs)
			}
			c := cs[0]
			j := c.ToJSON()
			if c.Kind != tc.kind || c.Held != tc.held || j.HeldS == nil || *j.HeldS != tc.held.Seconds() || j.HeldB != tc.bound {
				t.Errorf("%s held %s (%s), json held_s %v held_bound %q; want %s held %s (%s)", c.Kind, c.Held, c.HeldBound, j.HeldS, j.HeldB, tc.kind, tc.held, tc.bound)
			}
			if got := c.Text(); !strings.HasSuffix(got, tc.text) {
				t.Errorf("text %q, want ...%q", got, tc.text)
			}
		})
	}
}

// TestDiffSessionCause: a node that went with its session says why when
// what the servers told of the session proves it (model.CauseOf); an
// expired session's only node is session-lost, not released.
func TestDiffSessionCause(t *testing.T) {
	const p, r = "/locks/a", "/locks/b"
	h1, w2 := stn(1, 0x11, true), stn(2, 0x22, false)
	other := stn(8, 0x11, false)
	// At streamT0 the servers had not heard from 0x11 for 9 s of its
	// 12 s timeout: its expiry is due at streamT0+3s.
	stopped := func(s int64) (model.SessionSeen, bool) {
		return model.SessionSeen{At: streamT0, Silent: 9 * time.Second, Timeout: 12 * time.Second}, s == 0x11
	}
	// Heard a moment ago: no expiry before streamT0+12s.
	alive := func(s int64) (model.SessionSeen, bool) {
		return model.SessionSeen{At: streamT0, Silent: 100 * time.Millisecond, Timeout: 12 * time.Second}, s == 0x11
	}
	for _, tc := range []struct {
		name       string
		prev, next *model.Snapshot
		seen       Seen
		want       []string
	}{
		{"expired at its due time", snapAt(0, stq(p, h1, w2)), snapAt(3, stq(p, w2)), stopped,
			[]string{"session-lost expired " + model.ShortName(h1.Name) + " deleted: session 0x11 expired (held 4.0s)"}},
		{"gone before its expiry was due: a release", snapAt(0, stq(p, h1, w2)), snapAt(1, stq(p, w2)), stopped,
			[]string{"released unknown " + model.ShortName(h1.Name) + " deleted (held 2.0s)"}},
		{"every node at once, heard a moment ago: closed",
			snapAt(0, stq(p, h1), stq(r, stn(7, 0x33, true), other)), snapAt(1, stq(p), stq(r, stn(7, 0x33, true))), alive,
			[]string{"session-lost closed " + model.ShortName(h1.Name) + " deleted: session 0x11 closed (held 2.0s)",
				"session-lost closed " + model.ShortName(other.Name) + " deleted: session 0x11 closed (waited 2.0s)"}},
		{"every node at once, nothing told: unknown",
			snapAt(0, stq(p, h1), stq(r, stn(7, 0x33, true), other)), snapAt(1, stq(p), stq(r, stn(7, 0x33, true))), nil,
			[]string{"session-lost unknown " + model.ShortName(h1.Name) + " deleted with its session 0x11 (held 2.0s)",
				"session-lost unknown " + model.ShortName(other.Name) + " deleted with its session 0x11 (waited 2.0s)"}},
		{"one node, nothing told: released", snapAt(0, stq(p, h1, w2)), snapAt(3, stq(p, w2)), nil,
			[]string{"released unknown " + model.ShortName(h1.Name) + " deleted (held 4.0s)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range DiffSeen(tc.prev, tc.next, tc.seen) {
				if !c.Kind.Departure() {
					continue
				}
				got = append(got, fmt.Sprintf("%s %s %s", c.Kind, c.Cause, c.Text()))
				j := c.ToJSON()
				if (j.Cause != "") != (c.Kind == model.ChangeSessionLost) || j.Cause != "" && j.Cause != c.Cause.String() {
					t.Errorf("%s: json cause %q", c.Kind, j.Cause)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("DiffSeen:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestChangeJSON: the field names of every kind of line, sanitized.
func TestChangeJSON(t *testing.T) {
	n := stn(7, 0x1000a, true)
	n.Name = "x-\x1b[2J-0000000007"
	n.SetData([]byte("evil\x07"))
	n.DataLen = 5
	n.SetClient("10.0.0.7:4711")
	at := streamT0.Add(1500 * time.Millisecond)
	for _, tc := range []struct {
		c    model.Change
		want string
	}{
		{model.Change{Kind: model.ChangeAcquired, At: at, Path: "/locks/a", Type: model.TypeMutex, Node: n, From: "x-0000000006", Waited: 1234 * time.Millisecond},
			`{"schema":1,"time":"2026-11-23T03:12:01.500Z","event":"acquired","path":"/locks/a","type":"mutex","node":"x-\\x1b[2J-0000000007","seq":7,"kind":"mutex","recipe":"curator","role":"holder","believes":"holder","session":"0x1000a","client":"10.0.0.7:4711","data":"evil\\x07","from":"x-0000000006","waited_s":1.234}`},
		{model.Change{Kind: model.ChangeReleased, At: at, Path: "/locks/a", Type: model.TypeMutex, Node: n, Held: 2500 * time.Millisecond, HeldBound: model.BoundEarliest},
			`{"schema":1,"time":"2026-11-23T03:12:01.500Z","event":"released","path":"/locks/a","type":"mutex","node":"x-\\x1b[2J-0000000007","seq":7,"kind":"mutex","recipe":"curator","role":"holder","believes":"holder","session":"0x1000a","client":"10.0.0.7:4711","data":"evil\\x07","held_s":2.5,"held_bound":"at-most"}`},
		{model.Change{Kind: model.ChangeSessionLost, At: at, Path: "/locks/a", Type: model.TypeMutex, Node: n, Held: 2500 * time.Millisecond, Cause: model.CauseExpired},
			`{"schema":1,"time":"2026-11-23T03:12:01.500Z","event":"session-lost","path":"/locks/a","type":"mutex","node":"x-\\x1b[2J-0000000007","seq":7,"kind":"mutex","recipe":"curator","role":"holder","believes":"holder","session":"0x1000a","client":"10.0.0.7:4711","data":"evil\\x07","held_s":2.5,"held_bound":"exact","cause":"expired"}`},
		{model.Change{Kind: model.ChangeAdmitted, At: at, Path: "/sem", Type: model.TypeSemaphore, Node: stn(9, 0x1000a, false), Lease: "_c_x-lease-0000000003", Waited: 250 * time.Millisecond},
			`{"schema":1,"time":"2026-11-23T03:12:01.500Z","event":"admitted","path":"/sem","type":"semaphore","node":"_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-lock-0000000009","seq":9,"kind":"lease","recipe":"curator","role":"holder","believes":"holder","session":"0x1000a","data":"job","lease":"_c_x-lease-0000000003","waited_s":0.25}`},
		{model.Change{Kind: model.ChangeWarningRaised, At: at, Path: "/locks/a", Type: model.TypeRWLock, Warning: model.Warning{Code: model.WarnDeadlock, Message: "cycle", Nodes: []string{"a", "b"}}},
			`{"schema":1,"time":"2026-11-23T03:12:01.500Z","event":"warning-raised","path":"/locks/a","type":"rwlock","code":"deadlock","message":"cycle","nodes":["a","b"]}`},
		{model.Change{Kind: model.ChangeStale, At: at, Conn: model.Conn{State: model.StateDisconnected, SessionID: 0x2000}},
			`{"schema":1,"time":"2026-11-23T03:12:01.500Z","event":"stale","state":"disconnected","monitor_session":"0x2000"}`},
		{model.Change{Kind: model.ChangePathVanished, At: at, Path: "/locks/a", State: model.PathAbsent},
			`{"schema":1,"time":"2026-11-23T03:12:01.500Z","event":"path-vanished","path":"/locks/a","type":"unknown","state":"absent"}`},
	} {
		var b bytes.Buffer
		if err := NewChangeWriter(&b).Write([]model.Change{tc.c}); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSuffix(b.String(), "\n"); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.c.Kind, got, tc.want)
		}
		var m map[string]any
		if err := json.Unmarshal(b.Bytes(), &m); err != nil {
			t.Errorf("%s: not JSON: %v", tc.c.Kind, err)
		}
	}
}

// TestDiffEmptiedQueueType: a queue whose last node went says the type
// it had (an empty parent is "unknown").
func TestDiffEmptiedQueueType(t *testing.T) {
	cs := Diff(snapAt(0, stq("/locks/a", stn(1, 0x11, true))), snapAt(1, model.Queue{Path: "/locks/a", State: model.PathPresent}))
	if len(cs) != 1 || cs[0].Type != model.TypeMutex {
		t.Fatalf("%+v", cs)
	}
}

// TestSeenInTellsExpiry: a holder whose node went at the expiry its
// session's health made due is told session-lost "expired" through the
// Seen that SeenIn reads from the snapshot before.
func TestSeenInTellsExpiry(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 22, 47, 0, 0, time.UTC)
	holder := model.Node{Name: "lock-0000000000", Seq: 0, Session: 0x51, Role: ordering.RoleHolder}
	h := model.Health{Member: "127.0.0.1:2181", Heard: t0.Add(-9 * time.Second), Timeout: 12 * time.Second, Expires: t0.Add(3 * time.Second), At: t0}
	holder.SetHealth(h)
	prev := &model.Snapshot{At: t0, Queues: model.QueuesOf(model.Queue{Path: "/l", State: model.PathPresent, Nodes: model.NodesOf(holder)})}
	next := &model.Snapshot{At: t0.Add(3 * time.Second), Queues: model.QueuesOf(model.Queue{Path: "/l", State: model.PathPresent})}
	if SeenIn(&model.Snapshot{At: t0}) != nil {
		t.Error("a snapshot with no health told should give no Seen")
	}
	var cause model.Cause
	for _, c := range DiffSeen(prev, next, SeenIn(prev)) {
		if c.Kind == model.ChangeSessionLost {
			cause = c.Cause
		}
	}
	if cause != model.CauseExpired {
		t.Fatalf("cause %v, want expired", cause)
	}
}
