package queue

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
)

const (
	uuidA = "0f8fad5b-d9cb-469f-a165-70867728950e"
	uuidB = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	uuidC = "16fd2706-8baf-433b-82eb-8c7fada847da"
)

func latchName(uuid string, seq int) string { return fmt.Sprintf("_c_%s-latch-%010d", uuid, seq) }
func lockName(uuid string, seq int) string  { return fmt.Sprintf("_c_%s-lock-%010d", uuid, seq) }

// modelOf is a queue model that listed kids (their stat read, each owned
// by session 0x100+i), built as the Watcher builds it.
func modelOf(t *testing.T, p string, kids []string, election bool) *Tracker {
	t.Helper()
	now := time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)
	qm := New(p, p, &Hooks{Emit: func(model.Change) {}})
	qm.Election = election
	var got []Fetched
	for i, k := range kids {
		if _, ok := ordering.ParseName(k); ok {
			got = append(got, Fetched{Name: k, Rec: &Record{Fetched: true, Session: 0x100 + int64(i),
				Data: "participant-" + k[len(k)-1:], DataLen: 13, CtimeMs: now.Add(-time.Minute).UnixMilli()}})
		}
	}
	qm.Apply(kids, got, now, now, now)
	return qm
}

func TestElectionType(t *testing.T) {
	l1, l2, l3 := latchName(uuidA, 1), latchName(uuidB, 2), latchName(uuidC, 3)
	for _, tt := range []struct {
		name     string
		kids     []string
		election bool // named in zkview.Options.Elections
		absent   bool
		want     model.QueueType
	}{
		{name: "leader latch", kids: []string{l3, l1, l2}, want: model.TypeElection},
		{name: "leader latch, also named", kids: []string{l1, l2}, election: true, want: model.TypeElection},
		{name: "curator mutex", kids: []string{lockName(uuidA, 1), lockName(uuidB, 2)}, want: model.TypeMutex},
		{name: "curator mutex named an election (LeaderSelector)", kids: []string{lockName(uuidA, 1), lockName(uuidB, 2)}, election: true, want: model.TypeElection},
		{name: "kazoo Election", kids: []string{strings.Repeat("ab", 16) + "__lock__0000000004"}, election: true, want: model.TypeElection},
		{name: "read/write named an election: the wire wins", kids: []string{fmt.Sprintf("_c_%s-__WRIT__%010d", uuidA, 1)}, election: true, want: model.TypeRWLock},
		{name: "empty, named", election: true, want: model.TypeElection},
		{name: "empty", want: model.TypeUnknown},
		{name: "only other children, named", kids: []string{"config"}, election: true, want: model.TypeUnknown},
		{name: "absent, named", election: true, absent: true, want: model.TypeElection},
		{name: "latch and a lock node: mixed, a mutex", kids: []string{l1, lockName(uuidB, 2)}, want: model.TypeMutex},
	} {
		t.Run(tt.name, func(t *testing.T) {
			qm := modelOf(t, "/svc/leader", tt.kids, tt.election)
			if tt.absent {
				qm.SetState(model.PathAbsent, "", time.Now())
			}
			q := Build(qm, nil, false, time.Time{})
			if q.Type != tt.want {
				t.Errorf("type %v, want %v", q.Type, tt.want)
			}
		})
	}
}

// TestLatchQueue: the leader is the lowest sequence, each follower
// watches the participant before it, and `ls --json` keeps holder and
// waiting (the text's leader and follower: cmd's TestWriteLsTextElection).
func TestLatchQueue(t *testing.T) {
	l1, l2, l3 := latchName(uuidA, 1), latchName(uuidB, 2), latchName(uuidC, 3)
	qm := modelOf(t, "/svc/leader", []string{l2, l3, l1}, false)
	q := Build(qm, nil, false, time.Time{})
	if got := modeltest.Names(&q); !slices.Equal(got, []string{l1, l2, l3}) {
		t.Fatalf("order %q", got)
	}
	for i, n := range q.Nodes.All() {
		if n.Kind != ordering.KindMutex || n.Recipe != ordering.RecipeCurator {
			t.Errorf("%s: %v %v, want a curator mutex node", n.Name, n.Kind, n.Recipe)
		}
		wantRole, wantWatch := ordering.RoleWaiting, ""
		if i == 0 {
			wantRole = ordering.RoleHolder
		} else {
			wantWatch = q.Nodes.At(i - 1).Name
		}
		if n.Role != wantRole || n.Believes != wantRole || n.Watches() != wantWatch {
			t.Errorf("%s: role %v believes %v watches %q; want %v watching %q", n.Name, n.Role, n.Believes, n.Watches(), wantRole, wantWatch)
		}
	}
	if len(q.Warnings()) != 0 {
		t.Errorf("warnings %+v", q.Warnings())
	}
	snap := &model.Snapshot{At: time.Date(2026, 3, 14, 3, 13, 4, 0, time.UTC), Queues: model.QueuesOf(q)}
	js := model.ToJSON(snap)
	if js[0].Type != "election" || js[0].Queue[0].Role != "holder" || js[0].Queue[1].Role != "waiting" || js[0].Queue[0].Data != "participant-1" {
		t.Errorf("json: type %q, roles %q %q, data %q", js[0].Type, js[0].Queue[0].Role, js[0].Queue[1].Role, js[0].Queue[0].Data)
	}
}

func TestRoleWord(t *testing.T) {
	for _, tt := range []struct {
		t    model.QueueType
		r    ordering.Role
		want string
	}{
		{model.TypeElection, ordering.RoleHolder, "leader"},
		{model.TypeElection, ordering.RoleWaiting, "follower"},
		{model.TypeMutex, ordering.RoleHolder, "holder"},
		{model.TypeRWLock, ordering.RoleWaiting, "waiting"},
		{model.TypeUnknown, ordering.RoleHolder, "holder"},
	} {
		if got := model.RoleWord(tt.t, tt.r); got != tt.want {
			t.Errorf("model.RoleWord(%v, %v) = %q, want %q", tt.t, tt.r, got, tt.want)
		}
	}
}
