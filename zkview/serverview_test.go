package zkview

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/zkview/queue"
)

func TestFindCycle(t *testing.T) {
	tests := []struct {
		edges [][]int
		want  []int
	}{
		{[][]int{{1}, {2}, nil}, nil},
		{[][]int{nil, {2}, {1}}, []int{1, 2}},
		{[][]int{{1}, {2}, {3}, {1}}, []int{1, 2, 3}},
		{[][]int{{1, 2}, nil, {1}}, nil},
	}
	for _, tt := range tests {
		if got := queue.FindCycle(tt.edges); !slices.Equal(got, tt.want) {
			t.Errorf("findCycle(%v) = %v, want %v", tt.edges, got, tt.want)
		}
	}
}

// serverWatches asks the member for wchc and returns session -> paths.
func serverWatches(t testing.TB, addrs []string) map[int64][]string {
	t.Helper()
	all := map[int64][]string{}
	for _, a := range addrs {
		out, err := fourletter.Ask(context.Background(), a, "wchc")
		if err != nil {
			t.Fatal(err)
		}
		for s, ps := range fourletter.ParseWchc(out) {
			all[s] = append(all[s], ps...)
		}
	}
	return all
}

// TestChainVerifiedHerdMissing: a healthy queue of lockops Locks is all
// verified and its clients known; then bad clients (four sessions
// watching the holder, a waiter with no watch) raise herd and
// missing-watch (which fails `ls --check`: cmd's TestCheckCode).
func TestChainVerifiedHerdMissing(t *testing.T) {
	c := testCluster(t)
	p := testPath(t)
	ctx := tctx(t, 40*time.Second)
	var locks []*lockops.Lock
	for i := range 4 {
		l := lockops.NewLock(session(t, c.Servers()), p)
		if i == 0 {
			if err := l.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
		} else {
			go func() { _ = l.Acquire(ctx) }()
		}
		eventually(t, 10*time.Second, "queued", func() bool { return l.Node() != "" })
		locks = append(locks, l)
	}
	mon := session(t, c.Servers())
	w := watch(t, mon, Options{Paths: []string{p}, ServerView: true, ServerViewEvery: 200 * time.Millisecond})
	snap := waitPolled(t, w, 15*time.Second, "every waiter verified", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		if !s.ServerView || q == nil || q.Nodes.Len() != 4 {
			return false
		}
		for _, n := range q.Nodes.From(1) {
			if n.Link != model.LinkVerified {
				return false
			}
		}
		return true
	})
	q := queueOf(snap, p)
	cons, err := fourletter.Ask(ctx, c.Servers()[0], "cons")
	if err != nil {
		t.Fatal(err)
	}
	clients := fourletter.ParseCons(cons)
	real := serverWatches(t, c.Servers())
	for _, n := range q.Nodes.All() {
		if n.Client() == "" || n.Client() != clients[n.Session] {
			t.Errorf("%s: client %q, cons says %q", n.Name, n.Client(), clients[n.Session])
		}
		if n.Watches() != "" && !slices.Contains(real[n.Session], p+"/"+n.Watches()) {
			t.Errorf("%s watches %s, but wchc for 0x%x says %v", n.Name, n.Watches(), n.Session, real[n.Session])
		}
	}
	if what := unhealthy(snap); what != "" {
		t.Errorf("healthy queue: %s", what)
	}

	// Bad clients: four sessions watch the holder; a plain waiter sets no
	// watch at all.
	holder := q.Nodes.At(0).Name
	for range 4 {
		bad := rawConn(t, c.Servers())
		if _, _, _, err := bad.GetW(p + "/" + holder); err != nil {
			t.Fatal(err)
		}
	}
	lazy := rawConn(t, c.Servers())
	stuck := createSeq(t, lazy, p, "lock-", nil)
	// missingGrace must pass before a poll may call the link missing.
	snap = waitFor(t, w, 15*time.Second, "herd and missing-watch", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return modeltest.Warning(q, model.WarnHerd) != nil && modeltest.Warning(q, model.WarnMissingWatch) != nil
	})
	q = queueOf(snap, p)
	if h := modeltest.Warning(q, model.WarnHerd); !slices.Equal(h.Nodes, []string{holder}) {
		t.Errorf("herd names %v, want the holder %s", h.Nodes, holder)
	}
	if m := modeltest.Warning(q, model.WarnMissingWatch); !slices.Equal(m.Nodes, []string{stuck}) {
		t.Errorf("missing-watch names %v, want %s", m.Nodes, stuck)
	}
	verified := map[bool]bool{}
	for _, jn := range model.ToJSON(snap)[0].Queue {
		if jn.WatchVerified != nil {
			verified[*jn.WatchVerified] = true
		}
	}
	if !verified[false] || !verified[true] {
		t.Errorf("json lacks verified/missing links:\n%s", dump(snap))
	}
	for _, l := range locks {
		_ = l.Release(ctx)
	}
}

// TestServerViewRefused: a member that refuses the four-letter words
// leaves the links inferred and says so in ServerViewNote (which `ls`
// prints: cmd's TestWriteLsTextHeader); nothing breaks.
func TestServerViewRefused(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Members: 1, TickTime: 100 * time.Millisecond,
		ExtraConfig: []string{"4lw.commands.whitelist=srvr,ruok"}})
	p := testPath(t)
	ctx := tctx(t, 30*time.Second)
	var locks []*lockops.Lock
	for i := range 2 {
		l := lockops.NewLock(session(t, c.Servers()), p)
		if i == 0 {
			if err := l.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
		} else {
			go func() { _ = l.Acquire(ctx) }()
		}
		eventually(t, 10*time.Second, "queued", func() bool { return l.Node() != "" })
		locks = append(locks, l)
	}
	snap, err := Load(ctx, session(t, c.Servers()), Options{Paths: []string{p}, ServerView: true})
	if err != nil {
		t.Fatal(err)
	}
	if snap.ServerView || !strings.Contains(snap.ServerViewNote, "not allowed") {
		t.Errorf("server view %v, note %q", snap.ServerView, snap.ServerViewNote)
	}
	q := queueOf(snap, p)
	if q == nil || q.Nodes.Len() != 2 || q.Nodes.At(1).Link != model.LinkInferred || q.Nodes.At(1).Client() != "" {
		t.Fatalf("queue %+v", q)
	}
}

// TestPollSpacing: polls are ServerViewEvery apart, or further when the
// members answer slowly, so that answering costs a member at most half a
// percent of the time.
func TestPollSpacing(t *testing.T) {
	for _, tc := range []struct{ every, took, want time.Duration }{
		{10 * time.Second, 45 * time.Millisecond, 10 * time.Second},
		{10 * time.Second, 0, 10 * time.Second},
		{10 * time.Second, 450 * time.Millisecond, 90 * time.Second},
		{time.Second, 20 * time.Millisecond, 4 * time.Second},
	} {
		if got := pollSpacing(tc.every, tc.took); got != tc.want {
			t.Errorf("every %v, answers in %v: %v, want %v", tc.every, tc.took, got, tc.want)
		}
		if got := pollSpacing(tc.every, tc.took); tc.took > 0 && float64(tc.took)/float64(got) > 0.005 {
			t.Errorf("every %v, answers in %v: the polls take %.2f%% of the time", tc.every, tc.took, 100*float64(tc.took)/float64(got))
		}
	}
}
