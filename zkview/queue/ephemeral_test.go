package queue

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
)

func TestLoneCandidate(t *testing.T) {
	for name, want := range map[string]bool{
		"owner":                              true,
		"leader":                             true,
		"lock-0000000007":                    false, // a lock node
		lockName(uuidA, 7):                   false,
		"0123456789abcdef0123456789abcdef":   false, // a Kazoo semaphore lease
		"0123456789abcdef0123456789abcde":    true,
		"0123456789ABCDEF0123456789ABCDEF":   true,
		"0123456789abcdef0123456789abcdef__": true,
	} {
		if got := LoneCandidate(name); got != want {
			t.Errorf("loneCandidate(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestPlainEphemeral: a watched path that is an ephemeral node, or a
// parent whose only child is one, is a held mutex; the sessions the
// servers show watching it (not its owner, not the Watcher) wait, and two
// or more of them are a herd by construction.
func TestPlainEphemeral(t *testing.T) {
	const (
		owner, self   = int64(0x11), int64(0x99)
		w1, w2, other = int64(0x22), int64(0x33), int64(0x44)
	)
	ctime := time.Date(2026, 3, 14, 3, 12, 0, 0, time.UTC)
	rec := &Record{Fetched: true, Session: owner, Data: "host-a pid 7", DataLen: 12, CtimeMs: ctime.UnixMilli()}
	view := func(watched string, watchers ...int64) *ServerView {
		sv := &ServerView{OK: true, Self: self, Clients: map[int64]string{owner: "10.0.0.1:5000", w1: "10.0.0.2:5000"},
			Watchers: map[string][]int64{watched: watchers, "/x/unrelated": {other}}}
		return sv
	}
	for _, tt := range []struct {
		name     string
		path     string
		kids     []string
		lone     *LoneNode
		sv       *ServerView
		election bool
		want     []int64 // sessions in q.Nodes, holder first; nil: no plain lock
		holder   string
		herd     bool
		other    []string
		typ      model.QueueType
	}{
		{name: "lone child, two watchers", path: "/x", kids: []string{"owner"}, lone: &LoneNode{"owner", rec},
			sv: view("/x/owner", w2, w1, owner, self), want: []int64{owner, w1, w2}, holder: "owner", herd: true, typ: model.TypeMutex},
		{name: "lone child, one watcher", path: "/x", kids: []string{"owner"}, lone: &LoneNode{"owner", rec},
			sv: view("/x/owner", w1), want: []int64{owner, w1}, holder: "owner", typ: model.TypeMutex},
		{name: "lone child, no server view", path: "/x", kids: []string{"owner"}, lone: &LoneNode{"owner", rec},
			want: []int64{owner}, holder: "owner", typ: model.TypeMutex},
		{name: "the watched path is the node", path: "/x/owner", lone: &LoneNode{"", rec},
			sv: view("/x/owner", w1, w2, self), want: []int64{owner, w1, w2}, holder: "owner", herd: true, typ: model.TypeMutex},
		{name: "named an election", path: "/x/owner", lone: &LoneNode{"", rec}, election: true,
			sv: view("/x/owner", w1), want: []int64{owner, w1}, holder: "owner", typ: model.TypeElection},
		{name: "read with an older listing", path: "/x", kids: []string{"other"}, lone: &LoneNode{"owner", rec},
			other: []string{"other"}, typ: model.TypeUnknown},
		{name: "children came since", path: "/x/owner", kids: []string{"a"}, lone: &LoneNode{"", rec},
			other: []string{"a"}, typ: model.TypeUnknown},
		{name: "a lock node is there", path: "/x", kids: []string{"lock-0000000001"}, lone: &LoneNode{"owner", rec},
			want: []int64{0x100}, holder: "lock-0000000001", typ: model.TypeMutex},
		{name: "nothing read", path: "/x", kids: []string{"owner"}, other: []string{"owner"}, typ: model.TypeUnknown},
	} {
		t.Run(tt.name, func(t *testing.T) {
			qm := modelOf(t, tt.path, tt.kids, tt.election)
			qm.SetLone(tt.lone)
			q := Build(qm, tt.sv, false, time.Time{})
			var sessions []int64
			for _, n := range q.Nodes.All() {
				sessions = append(sessions, n.Session)
			}
			if !slices.Equal(sessions, tt.want) {
				t.Fatalf("sessions %x, want %x", sessions, tt.want)
			}
			if q.Type != tt.typ || !slices.Equal(q.Other(), tt.other) {
				t.Errorf("type %v other %q; want %v %q", q.Type, q.Other(), tt.typ, tt.other)
			}
			if tt.want == nil {
				return
			}
			h := q.Nodes.At(0)
			if h.Name != tt.holder || h.Role != ordering.RoleHolder || h.Believes != ordering.RoleHolder || h.Herd != tt.herd {
				t.Errorf("holder %+v", h)
			}
			if tt.lone == nil || tt.holder != tt.lone.Name && tt.lone.Name != "" {
				return // not a plain ephemeral lock
			}
			if h.Recipe != ordering.RecipeEphemeral || h.Kind != ordering.KindMutex || !h.Since().Equal(ctime) || !h.SinceExact || string(h.Data()) != "host-a pid 7" {
				t.Errorf("holder %+v", h)
			}
			if tt.sv != nil && h.Client() != "10.0.0.1:5000" {
				t.Errorf("holder client %q", h.Client())
			}
			for _, n := range q.Nodes.From(1) {
				if n.Name != "" || n.Role != ordering.RoleWaiting || n.Watches() != tt.holder || n.Link != model.LinkVerified || n.Recipe != ordering.RecipeEphemeral {
					t.Errorf("waiter %+v", n)
				}
			}
			herd := modeltest.Warning(&q, model.WarnHerd)
			if (herd != nil) != tt.herd {
				t.Fatalf("herd warning %+v, want %v", herd, tt.herd)
			}
			if herd != nil && (!slices.Equal(herd.Nodes, []string{tt.holder}) || !strings.Contains(herd.Message, "by construction")) {
				t.Errorf("herd warning %+v", herd)
			}
		})
	}
}

// TestPlainEphemeralViews: `ls --json` shows the waiters by session, with
// no node and no sequence, each verified watching the holder, and the herd
// (the text's rows: cmd's TestWriteLsTextEphemeral).
func TestPlainEphemeralViews(t *testing.T) {
	ctime := time.Date(2026, 3, 14, 3, 12, 0, 0, time.UTC)
	qm := modelOf(t, "/x", []string{"owner"}, false)
	qm.SetLone(&LoneNode{"owner", &Record{Fetched: true, Session: 0x11, CtimeMs: ctime.UnixMilli()}})
	sv := &ServerView{OK: true, Watchers: map[string][]int64{"/x/owner": {0x22, 0x33}}, Clients: map[int64]string{}}
	q := Build(qm, sv, false, time.Time{})
	snap := &model.Snapshot{At: ctime.Add(time.Minute), ServerView: true, Queues: model.QueuesOf(q)}
	js := model.ToJSON(snap)[0]
	if len(js.Queue) != 3 || js.Queue[0].Recipe != "ephemeral" || js.Queue[0].Role != "holder" || js.Type != "mutex" {
		t.Fatalf("json %+v", js)
	}
	for i, session := range []string{"0x22", "0x33"} {
		w := js.Queue[1+i]
		if w.Session != session || w.Node != "" || w.Seq != 0 || w.Role != "waiting" || w.Watches != "owner" || w.WatchVerified == nil || !*w.WatchVerified {
			t.Errorf("waiter %d: %+v", i+1, w)
		}
	}
	if !slices.ContainsFunc(js.Warnings, func(w model.JSONWarning) bool { return w.Code == model.WarnHerd }) {
		t.Errorf("warnings %+v, want the herd", js.Warnings)
	}
}
