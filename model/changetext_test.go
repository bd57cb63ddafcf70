package model

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// TestChangeText: each change the Watcher makes says, on the console's
// event log, the very line the Watcher wrote before changes were typed
// (the wants are those lines, as its format strings made them).
func TestChangeText(t *testing.T) {
	at := time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)
	const n41 = "_c_3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b-lock-0000000041"
	const n42 = "_c_3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b-lock-0000000042"
	evil := "/locks/\x1b[2Jx"
	cur := ordering.RecipeCurator
	waiter := Node{Name: n42, Recipe: cur, Kind: ordering.KindMutex, Role: ordering.RoleWaiting}.WithWatches(n41)
	holder := Node{Name: n41, Recipe: cur, Kind: ordering.KindMutex, Role: ordering.RoleHolder}
	lostWaiter := waiter
	lostWaiter.Session = 0x2a
	splitter := Node{Name: "k-0000000120", Recipe: ordering.RecipeKazoo, Kind: ordering.KindMutex, Role: ordering.RoleWaiting, Believes: ordering.RoleHolder}
	lease := Node{Name: "lease-abc", Lease: true, Session: 0xb, Role: ordering.RoleHolder, SinceExact: true}.WithSince(at.Add(-59 * time.Second))
	cycle := Deadlock{Sessions: []int64{1, 2}, State: CycleDeadlock, Since: at.Add(-6 * time.Second),
		Waits: []Wait{{Session: 1, Path: "/a", Node: n41, Holder: 2, HolderNode: n42}, {Session: 2, Path: "/b", Node: n42, Holder: 1, HolderNode: n41}}}
	for _, tc := range []struct {
		c    Change
		want string
	}{
		{Change{Kind: ChangeJoined, Node: holder}, n41 + " created (curator mutex): holds"},
		{Change{Kind: ChangeJoined, Node: waiter}, n42 + " created (curator mutex): waits, watching " + n41},
		{Change{Kind: ChangeAcquired, Node: Node{Name: n42}}, n42 + " holds"},
		{Change{Kind: ChangeAcquired, Node: Node{Name: n42}, From: n41, Gap: 300 * time.Microsecond}, n41 + " gone → " + n42 + " holds after 300µs"},
		{Change{Kind: ChangeReleased, Node: holder, Held: 2 * time.Second, HeldBound: BoundLatest, Wakes: []string{n42}}, n41 + " deleted (held at least 2.0s); wakes " + n42},
		{Change{Kind: ChangeGaveUp, Node: waiter, Waited: time.Nanosecond}, n42 + " deleted (waited 0µs)"},
		{Change{Kind: ChangeReleased, Node: holder, Held: 2 * time.Second, HeldBound: BoundEarliest}, n41 + " deleted (held at most 2.0s)"},
		{Change{Kind: ChangeSessionLost, Node: holder, Held: 31 * time.Second, Cause: CauseExpired, Wakes: []string{n42}}, n41 + " deleted: its session expired (held 31.0s); wakes " + n42},
		{Change{Kind: ChangeSessionLost, Node: holder, Cause: CauseClosed}, n41 + " deleted: its session closed"},
		{Change{Kind: ChangeSessionLost, Node: lostWaiter, Waited: time.Second}, n42 + " deleted with its session 0x2a (waited 1.0s)"},
		{Change{Kind: ChangeJoined, Node: splitter}, "k-0000000120 created (kazoo mutex): believes it holds (its recipe sees no node before it), by sequence it waits"},
		{Change{Kind: ChangeReleased, Node: splitter, Held: 3 * time.Second, HeldBound: BoundEarliest, Waited: 3 * time.Second}, "k-0000000120 deleted (believed it held at most 3.0s; by sequence it waited)"},
		{Change{Kind: ChangeGaveUp, Node: waiter}, n42 + " deleted"},
		{Change{Kind: ChangeReleased, At: at, Node: lease, Holders: 1, Limit: 2}, "lease lease-abc returned (held 59.0s): holders 1/2"},
		{Change{Kind: ChangeAcquired, Node: lease, Holders: 1, Limit: 2}, "lease lease-abc taken by 0xb: holders 1/2"},
		{Change{Kind: ChangeJoined, Node: Node{Name: "l", Lease: true}, Holders: 2}, "lease l created beyond the limit: an unknown session waits for one (holders 2 (limit unknown))"},
		{Change{Kind: ChangeConn, Conn: Conn{State: StateConnected, Server: "zk1:2181", SessionID: 0x10}}, "connected to zk1:2181, session 0x10"},
		{Change{Kind: ChangeConn, Conn: Conn{State: StateConnected, Server: "zk1:2181", SessionID: 0x10}, Resume: ResumeNew}, "new session 0x10 on zk1:2181: re-reading every path (the old session expired)"},
		{Change{Kind: ChangeConn, Conn: Conn{State: StateConnected, Server: "zk1:2181", SessionID: 0x10}, Resume: ResumeSession}, "reconnected to zk1:2181, session 0x10: re-listing every path"},
		{Change{Kind: ChangeConn, Conn: Conn{State: StateDisconnected}}, "disconnected: the model is stale until the link is back"},
		{Change{Kind: ChangeConn, Conn: Conn{State: StateExpired, SessionID: 0x10}}, "session 0x10 expired: a new one is being made"},
		{Change{Kind: ChangeConn, Conn: Conn{State: StateClosed}}, "session closed"},
		{Change{Kind: ChangeConn}, "connecting"},
		{Change{Kind: ChangePathAppeared, Path: evil}, `/locks/\x1b[2Jx appeared`},
		{Change{Kind: ChangePathVanished, Path: "/a"}, "/a was deleted: watching until it appears again"},
		{Change{Kind: ChangePathVanished, Path: "/a", Unwatched: true, Count: 3}, "/a vanished (it held 3 lock nodes)"},
		{Change{Kind: ChangePathAbsent, Path: "/a"}, "/a does not exist: watching until it appears"},
		{Change{Kind: ChangePathUnreadable, Path: "/a", State: PathNoAuth, Err: "zk: not authenticated"}, "/a: no permission to list it (zk: not authenticated)"},
		{Change{Kind: ChangePathUnreadable, Path: "/a", State: PathError, Err: "boom"}, "/a: boom"},
		{Change{Kind: ChangePathRecreated, Path: "/a"}, "/a was deleted and created again: reading its nodes afresh"},
		{Change{Kind: ChangePathFound, Path: "/a"}, "found lock parent /a"},
		{Change{Kind: ChangePathFound, Path: "/a", Type: TypeSemaphore}, "found semaphore /a"},
		{Change{Kind: ChangeListed, Path: "/a", Count: 4, Holders: 2, Node: Node{Name: n41}}, "listed /a: 4 lock nodes, held by " + n41 + " and 1 more"},
		{Change{Kind: ChangeListed, Path: "/a"}, "listed /a: 0 lock nodes, no holder"},
		{Change{Kind: ChangeListed, Path: "/s", Type: TypeSemaphore, Count: 2, Node: Node{Recipe: ordering.RecipeKazoo}, Holders: 1, Limit: 2}, "/s: kazoo semaphore, holders 1/2, 0 waiting"},
		{Change{Kind: ChangeListed, Path: "/s", Type: TypeSemaphore}, "/s: an empty semaphore, holders 0 (limit unknown), 0 waiting"},
		{Change{Kind: ChangeBurst, Path: "/a", Created: 40, Deleted: 2}, "/a: 40 nodes created, 2 deleted"},
		{Change{Kind: ChangeWatchVerified, Node: Node{Name: n42, Session: 0x1f}.WithWatches(n41)}, n42 + ": its session 0x1f has a watch on " + n41 + " (wchc)"},
		{Change{Kind: ChangeServerView, Count: 3}, "server view: 3 members answered cons and wchc; links verified"},
		{Change{Kind: ChangeServerView, Note: "zk2 refuses wchc"}, "zk2 refuses wchc"},
		{Change{Kind: ChangeWatchMode, Err: errors.New("zk: unimplemented").Error()}, "the server refuses persistent watches (zk: unimplemented): watching with children watches, re-listing at every change"},
		{Change{Kind: ChangeOverflow, Path: "/a"}, "/a changed faster than it was read: reading it afresh"},
		{Change{Kind: ChangeParentsCapped, Count: 1000}, "discovery stopped at 1000 lock parents (MaxParents)"},
		{Change{Kind: ChangeNodesCapped, Count: 50000}, "discovery stopped at 50000 watched nodes"},
		{Change{Kind: ChangeDiscovering, Path: "/locks", Discovery: Discovery{Read: 1200, Found: 5000, Parents: 900, Took: 1500 * time.Millisecond}},
			"discovering /locks: 1200 nodes read of 5000 found, 900 lock parents, 1.5s"},
		{Change{Kind: ChangeWarningRaised, Warning: Warning{Code: WarnSplitHolders, Message: "#10 and #12"}}, "split-holders: #10 and #12"},
		{Change{Kind: ChangeWarningCleared, Path: "/a", Warning: Warning{Code: WarnHerd}}, "herd cleared on /a"},
		{Change{Kind: ChangeWarningCleared, Warning: Warning{Code: WarnLeaderMismatch}}, "leader-mismatch cleared"},
		{Change{Kind: ChangeCycle, At: at, Cycle: cycle}, "cross-lock deadlock, no handoff for 6.0s: 0x1 waits on /a #41 held by 0x2; 0x2 waits on /b #42 held by 0x1"},
		{Change{Kind: ChangeCycleCleared, Cycle: cycle}, "cross-lock cycle cleared: 0x1 → 0x2 → 0x1"},
		{Change{Kind: ChangeInfo, Note: "the end of the recording"}, "the end of the recording"},
		{Change{Kind: ChangeAcquired, Said: "#40 -> #41 in 4ms"}, "#40 -> #41 in 4ms"},
	} {
		if got := tc.c.Text(); got != tc.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.c.Kind, got, tc.want)
		}
	}
}

// TestChangeKindNames: every kind has its own name, read back by it.
func TestChangeKindNames(t *testing.T) {
	seen := map[string]bool{}
	for k := ChangeJoined; k < changeKinds; k++ {
		name := k.String()
		if name == "" || name == "unknown" || seen[name] {
			t.Errorf("kind %d: name %q", k, name)
		}
		seen[name] = true
		b, err := json.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		var back ChangeKind
		if err := json.Unmarshal(b, &back); err != nil || back != k {
			t.Errorf("kind %s: read back %s (%v)", k, back, err)
		}
	}
}
