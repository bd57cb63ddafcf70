package zkview

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/sandbox/peers"
	"github.com/zklock/zklock/third_party/zk"
)

// leaderShown is what `ls --json` of a watched snapshot says of an
// election: its type, the leader's node, session and data, and each
// follower's node with the node it watches.
type leaderShown struct {
	typ, node, session, data string
	followers                []string // "node<-watches"
}

func showLeader(snap *model.Snapshot, p string) leaderShown {
	for _, jp := range model.ToJSON(snap) {
		if jp.Path != p {
			continue
		}
		s := leaderShown{typ: jp.Type}
		for _, n := range jp.Queue {
			switch {
			case n.Role == "holder" && s.node == "":
				s.node, s.session, s.data = n.Node, n.Session, n.Data
			case n.Role == "holder":
				s.node += "+" + n.Node // two leaders: never equal to the wanted one
			default:
				s.followers = append(s.followers, n.Node+"<-"+n.Watches)
			}
		}
		return s
	}
	return leaderShown{}
}

// TestLeaderLatchRealClients: three Curator LeaderLatch participants; at
// each step the leader shown is the participant whose hasLeadership()
// became true (the driver reports it acquired), each follower watches the
// participant before it, through a leader that leaves (close) and one
// whose session dies by expiry (its process killed).
func TestLeaderLatchRealClients(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	ctx := tctx(t, 90*time.Second)
	// Two processes: the one killed holds the first two participants.
	doomed := peers.StartT(t, peers.Curator, peers.Options{Servers: c.Servers(), Sessions: 2, SessionTimeout: 2 * time.Second})
	stays := peers.StartT(t, peers.Curator, peers.Options{Servers: c.Servers(), Sessions: 1})
	w := watch(t, session(t, c.Servers()), Options{Paths: []string{p}, ServerView: true, ServerViewEvery: 200 * time.Millisecond})

	first, err := doomed.Acquire(ctx, 0, p, peers.Latch)
	if err != nil {
		t.Fatal(err)
	}
	second, err := doomed.Request(1, p, peers.Latch)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, 30*time.Second, "two participants", func(s *model.Snapshot) bool { q := queueOf(s, p); return q != nil && q.Nodes.Len() == 2 })
	third, err := stays.Request(0, p, peers.Latch)
	if err != nil {
		t.Fatal(err)
	}

	holds := []*peers.Hold{first, second, third}
	procs := []*peers.Proc{doomed, doomed, stays}
	clients := []int{0, 1, 0}
	// check waits until the snapshot shows leader i of the participants
	// from i on, every follower verified on the servers, then compares.
	check := func(step string, i int) {
		t.Helper()
		lead := holds[i]
		if err := lead.Wait(ctx); err != nil {
			t.Fatalf("%s: participant %d never led: %v", step, i, err)
		}
		for j := i + 1; j < len(holds); j++ {
			if holds[j].Held() {
				t.Fatalf("%s: participant %d leads beside %d", step, j, i)
			}
		}
		snap := waitFor(t, w, 30*time.Second, step, func(s *model.Snapshot) bool {
			q := queueOf(s, p)
			if q == nil || !s.ServerView || q.Nodes.Len() != len(holds)-i || q.Nodes.At(0).Name != lead.Node() {
				return false
			}
			for _, n := range q.Nodes.From(1) {
				if n.Link != model.LinkVerified {
					return false
				}
			}
			return true
		})
		got := showLeader(snap, p)
		want := leaderShown{typ: "election", node: lead.Node(), session: fmt.Sprintf("0x%x", procs[i].Session(clients[i])), data: lead.ID()}
		q := queueOf(snap, p)
		for k := 1; k < q.Nodes.Len(); k++ {
			want.followers = append(want.followers, q.Nodes.At(k).Name+"<-"+q.Nodes.At(k-1).Name)
		}
		if got.typ != want.typ || got.node != want.node || got.session != want.session || got.data != want.data || !slices.Equal(got.followers, want.followers) {
			t.Errorf("%s: shown %+v, want %+v", step, got, want)
		}
		// The drivers' participant ids are request ids, "h1" in both
		// processes on this host: one participant to the detector.
		ws := slices.DeleteFunc(slices.Clone(q.Warnings()), func(w model.Warning) bool { return w.Code == model.WarnDuplicateParticipant })
		if len(ws) != 0 {
			t.Errorf("%s: warnings %+v", step, ws)
		}
	}

	check("three participants", 0)
	if err := first.Release(ctx); err != nil { // LeaderLatch.close()
		t.Fatal(err)
	}
	check("after the leader closed its latch", 1)
	if err := doomed.Kill(); err != nil { // the servers expire its sessions
		t.Fatal(err)
	}
	check("after the leader's session expired", 2)
}

// TestNamedElections: elections on a mutex (Kazoo's Election, a Curator
// mutex standing for LeaderSelector) are elections once the config names
// them; the same recipe unnamed stays a mutex.
func TestNamedElections(t *testing.T) {
	c := testCluster(t)
	base := testPath(t)
	kzPath, curPath, plainPath := base+"/kazoo-election", base+"/curator-selector", base+"/curator-mutex"
	ctx := tctx(t, 60*time.Second)
	kaz := peers.StartT(t, peers.Kazoo, peers.Options{Servers: c.Servers(), Sessions: 2})
	cur := peers.StartT(t, peers.Curator, peers.Options{Servers: c.Servers(), Sessions: 3})
	cfg := Options{Paths: []string{curPath, kzPath, plainPath}, Elections: []string{kzPath, curPath}, ServerView: true, ServerViewEvery: 200 * time.Millisecond}
	w := watch(t, session(t, c.Servers()), cfg)

	kzLeader, err := kaz.Acquire(ctx, 0, kzPath, peers.Election)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kaz.Request(1, kzPath, peers.Election); err != nil {
		t.Fatal(err)
	}
	curLeader, err := cur.Acquire(ctx, 0, curPath, peers.Mutex)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cur.Request(1, curPath, peers.Mutex); err != nil {
		t.Fatal(err)
	}
	if _, err := cur.Acquire(ctx, 2, plainPath, peers.Mutex); err != nil {
		t.Fatal(err)
	}
	snap := waitFor(t, w, 30*time.Second, "both elections and the lock", func(s *model.Snapshot) bool {
		k, c, m := queueOf(s, kzPath), queueOf(s, curPath), queueOf(s, plainPath)
		return k != nil && c != nil && m != nil && k.Nodes.Len() == 2 && c.Nodes.Len() == 2 && m.Nodes.Len() == 1
	})
	for p, want := range map[string]leaderShown{
		kzPath:    {typ: "election", node: kzLeader.Node(), data: kzLeader.ID()},
		curPath:   {typ: "election", node: curLeader.Node()},
		plainPath: {typ: "mutex"},
	} {
		got := showLeader(snap, p)
		if got.typ != want.typ || want.node != "" && (got.node != want.node || got.data != want.data && want.data != "") {
			t.Errorf("%s: shown %+v, want %+v", p, got, want)
		}
	}
	// One leader (holder) each: `ls` counts them (cmd's
	// TestWriteLsTextElection).
	for p, want := range map[string]struct {
		typ   model.QueueType
		nodes int
	}{kzPath: {model.TypeElection, 2}, curPath: {model.TypeElection, 2}, plainPath: {model.TypeMutex, 1}} {
		q := queueOf(snap, p)
		holding := 0
		for _, n := range q.Nodes.All() {
			if n.Role == ordering.RoleHolder {
				holding++
			}
		}
		if q.Type != want.typ || q.Nodes.Len() != want.nodes || holding != 1 {
			t.Errorf("%s: %v of %d nodes, %d holding; want %v of %d, 1 holding", p, q.Type, q.Nodes.Len(), holding, want.typ, want.nodes)
		}
	}
}

// TestPlainEphemeralLock: the seeds' first scheme by hand: one session
// creates <p>/owner, ephemeral; two others set an exists watch on it to
// retry when it goes. Watched as the parent and as the node itself (with
// either kind of watch), it is a mutex held by the owner's session, the
// two watchers its waiters, a herd by construction; when the owner goes,
// the watcher that creates the node next holds.
func TestPlainEphemeralLock(t *testing.T) {
	for _, mode := range []string{model.ModeRecursive, model.ModeChildren} {
		t.Run(mode, func(t *testing.T) { plainEphemeralLock(t, mode == model.ModeChildren) })
	}
}

func plainEphemeralLock(t *testing.T, childWatches bool) {
	c := testCluster(t)
	parent := testPath(t)
	node := parent + "/owner"
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, parent)
	owner, a, b := rawConn(t, c.Servers()), rawConn(t, c.Servers()), rawConn(t, c.Servers())
	if _, err := owner.Create(node, []byte("host-a pid 7"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	watchIt := func(cn *zk.Conn) {
		t.Helper()
		if _, _, _, err := cn.ExistsW(node); err != nil {
			t.Fatal(err)
		}
	}
	watchIt(a)
	watchIt(b)

	// `ls` reads it without setting a watch. (Before the console below
	// starts: its watch on the node would count as one more waiter to
	// any other monitor, see ephemeral.go.)
	snap, err := Load(tctx(t, 20*time.Second), session(t, c.Servers()), Options{Paths: []string{parent, node}, ServerView: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{parent, node} {
		q := queueOf(snap, p)
		if q == nil || q.Nodes.Len() != 3 || q.Nodes.At(0).Session != owner.SessionID() || q.Type != model.TypeMutex || modeltest.Warning(q, model.WarnHerd) == nil {
			t.Errorf("ls %s: %+v", p, q)
		}
	}

	w := watch(t, session(t, c.Servers()), Options{Paths: []string{parent, node}, ServerView: true, ServerViewEvery: 200 * time.Millisecond, ChildWatches: childWatches})
	expect := func(step string, holder *zk.Conn, data string, waiters ...*zk.Conn) {
		t.Helper()
		var want []string
		for _, cn := range waiters {
			want = append(want, fmt.Sprintf("0x%x", cn.SessionID()))
		}
		slices.Sort(want)
		holderID := fmt.Sprintf("0x%x", holder.SessionID())
		snap := waitFor(t, w, 30*time.Second, step, func(s *model.Snapshot) bool {
			for _, p := range []string{parent, node} {
				q := queueOf(s, p)
				if !s.ServerView || q == nil || q.Nodes.Len() != 1+len(waiters) || fmt.Sprintf("0x%x", q.Nodes.At(0).Session) != holderID {
					return false
				}
			}
			return true
		})
		for _, jp := range model.ToJSON(snap) {
			var got []string
			for _, n := range jp.Queue[1:] {
				got = append(got, n.Session)
				if n.Node != "" || n.Role != "waiting" || n.Watches != "owner" || n.WatchVerified == nil || !*n.WatchVerified {
					t.Errorf("%s %s: waiter %+v", step, jp.Path, n)
				}
			}
			h := jp.Queue[0]
			if jp.Type != "mutex" || h.Node != "owner" || h.Role != "holder" || h.Recipe != "ephemeral" || h.Data != data || !slices.Equal(got, want) || len(jp.Other) != 0 {
				t.Errorf("%s %s: type %s holder %+v waiters %q other %q; want waiters %q", step, jp.Path, jp.Type, h, got, jp.Other, want)
			}
			herd := false
			for _, wn := range jp.Warnings {
				herd = herd || wn.Code == model.WarnHerd && strings.Contains(wn.Message, "by construction")
			}
			if herd != (len(waiters) > 1) {
				t.Errorf("%s %s: warnings %+v, want herd %v", step, jp.Path, jp.Warnings, len(waiters) > 1)
			}
		}
	}
	expect("held by its creator, two watchers", owner, "host-a pid 7", a, b)

	// The owner goes; its watchers wake, and the first to create the
	// node holds while the other watches again.
	owner.Close()
	eventually(t, 10*time.Second, "the node to go", func() bool { ok, _, _ := raw.Exists(node); return !ok })
	if _, err := a.Create(node, []byte("host-b pid 9"), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	watchIt(b)
	expect("held by the watcher that won", a, "host-b pid 9", b)

}
