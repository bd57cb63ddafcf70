package queue

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

func TestSemaphoreKind(t *testing.T) {
	hex := "0123456789abcdef0123456789abcdef"
	digitsTail := "abcdefabcdefabcdefabcd0123456789" // 32 hex ending in ten digits
	for _, tt := range []struct {
		kids []string
		want SemKind
	}{
		{nil, SemNone},
		{[]string{"leases", "locks"}, SemCurator},
		{[]string{"leases"}, SemCurator},
		{[]string{"locks"}, SemNone}, // a mutex parent's parent named locks
		{[]string{"leases", "locks", "other"}, SemNone},
		{[]string{hex}, SemKazoo},
		{[]string{hex, digitsTail}, SemKazoo},
		{[]string{hex, "leases"}, SemNone},
		{[]string{hex + "__lock__0000000001"}, SemNone},
		{[]string{hex, "lock-0000000001"}, SemNone},
		{[]string{strings.ToUpper(hex)}, SemNone},
		{[]string{hex[:31]}, SemNone},
	} {
		if got := SemaphoreKind(tt.kids); got != tt.want {
			t.Errorf("semaphoreKind(%q) = %v, want %v", tt.kids, got, tt.want)
		}
	}
}

func TestSemaphoreNodeNames(t *testing.T) {
	digitsTail := "abcdefabcdefabcdefabcd0123456789"
	if !ordering.IsHex32(digitsTail) {
		t.Errorf("%s is a Kazoo lease name", digitsTail)
	}
	if _, ok := ordering.ParseName(digitsTail); ok {
		t.Errorf("ParseName reads the lease %s as a lock node", digitsTail)
	}
	if model.NodeRef(digitsTail, 0) != digitsTail {
		t.Errorf("NodeRef(%s) = %s, want the name", digitsTail, model.NodeRef(digitsTail, 0))
	}
	for _, tt := range []struct {
		name string
		seq  int32
		ok   bool
	}{
		{"_c_6a3f0a1e-2b4c-4d5e-8f90-1a2b3c4d5e6f-lease-0000000003", 3, true},
		{"lease-0000000012", 12, true},
		{"_c_6a3f0a1e-2b4c-4d5e-8f90-1a2b3c4d5e6f-lease--1000000000", -1000000000, true},
		{"_c_6a3f0a1e-2b4c-4d5e-8f90-1a2b3c4d5e6f-lock-0000000003", 0, false},
		{"xlease-0000000003", 0, false},
		{"leases", 0, false},
		{digitsTail, 0, false},
	} {
		seq, ok := CuratorLease(tt.name)
		if ok != tt.ok || seq != tt.seq {
			t.Errorf("curatorLease(%s) = %d, %v; want %d, %v", tt.name, seq, ok, tt.seq, tt.ok)
		}
	}
	if got := SemaphoreAux("/s/x", SemKazoo, nil); !slices.Equal(got, []string{"/s/x-__lock__"}) {
		t.Errorf("kazoo aux %v", got)
	}
	if got := SemaphoreAux("/s/x", SemCurator, []string{"leases"}); !slices.Equal(got, []string{"/s/x/leases"}) {
		t.Errorf("curator aux %v", got)
	}
	if got := SemaphoreAux("/s/x", SemCurator, []string{"locks", "leases"}); !slices.Equal(got, []string{"/s/x/leases", "/s/x/locks"}) {
		t.Errorf("curator aux %v", got)
	}
}

// semT builds the nodes of a composeSemaphore case.
var semT0 = time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)

func cLease(seq int32, session int64) model.Node {
	return model.Node{Name: fmt.Sprintf("_c_00000000-0000-4000-8000-%012d-lease-%010d", seq, seq), Seq: seq, Session: session,
		SinceExact: true}.WithCtime(semT0.Add(time.Duration(seq) * time.Second)).WithSince(semT0.Add(time.Duration(seq) * time.Second))
}

func cLock(seq int32, session int64) model.Node {
	return model.Node{Name: fmt.Sprintf("_c_00000000-0000-4000-8000-%012d-lock-%010d", seq, seq), Seq: seq, Session: session,
		Kind: ordering.KindMutex, Recipe: ordering.RecipeCurator}.WithCtime(semT0.Add(time.Duration(seq) * time.Second))
}

func kLease(i int, session int64) model.Node {
	return model.Node{Name: fmt.Sprintf("%032x", 0xabc000+i), Session: session, SinceExact: true}.WithCtime(semT0.Add(time.Duration(i) * time.Second)).WithSince(semT0.Add(time.Duration(i) * time.Second))
}

func kLock(seq int32, session int64) model.Node {
	return model.Node{Name: fmt.Sprintf("%032x__lock__%010d", 0xdef000+seq, seq), Seq: seq, Session: session,
		Kind: ordering.KindMutex, Recipe: ordering.RecipeKazoo}.WithCtime(semT0.Add(time.Duration(seq) * time.Second))
}

// lockQueue is an admission lock as buildQueue builds it: the first node
// holds, each other waits on the one before, verified.
func lockQueue(nodes ...model.Node) model.Queue {
	for i := range nodes {
		n := &nodes[i]
		if i == 0 {
			n.Role, n.Believes = ordering.RoleHolder, ordering.RoleHolder
			continue
		}
		n.Role, n.Believes, n.Link = ordering.RoleWaiting, ordering.RoleWaiting, model.LinkVerified
		n.SetWatchesPredecessor(nodes[i-1].Name, nodes[i-1].Name)
	}
	return model.Queue{Nodes: model.NodesOf(nodes...)}
}

// semRow is what a test says of one composed node.
type semRow struct {
	name    string
	lease   bool
	holds   bool
	watches string
	link    model.LinkStatus
	parent  string
}

func TestComposeSemaphore(t *testing.T) {
	l1, l2, l3 := cLease(1, 0xa), cLease(2, 0xb), cLease(3, 0xc)
	c3, c4 := cLock(3, 0xc), cLock(4, 0xd)
	k1, k2 := kLease(1, 0xa), kLease(2, 0xb)
	q5, q6 := kLock(5, 0xc), kLock(6, 0xd)
	missing := lockQueue(cLock(7, 0xe), cLock(8, 0xf))
	missing.Nodes.At(1).Link = model.LinkMissing
	missing.SetWarnings([]model.Warning{{Code: model.WarnMissingWatch, Nodes: []string{missing.Nodes.At(1).Name}}, {Code: model.WarnStale}})
	missing.SetOther([]string{"junk"})

	for _, tt := range []struct {
		name      string
		in        SemParts
		rows      []semRow
		limit     int
		src       string
		warnings  []string
		pending   string
		other     []string
		overNodes []string
	}{
		{
			name: "curator, leases only: limit unknown",
			in:   SemParts{Path: "/s", Kind: SemCurator, Leases: []model.Node{l2, l1}},
			rows: []semRow{{l1.Name, true, true, "", model.LinkNone, "/s/leases"}, {l2.Name, true, true, "", model.LinkNone, "/s/leases"}},
		},
		{
			name: "curator, a lease beyond the limit: deduced",
			in:   SemParts{Path: "/s", Kind: SemCurator, Leases: []model.Node{l3, l1, l2}, Lock: lockQueue(c3, c4)},
			rows: []semRow{
				{l1.Name, true, true, "", model.LinkNone, "/s/leases"},
				{l2.Name, true, true, "", model.LinkNone, "/s/leases"},
				{l3.Name, true, false, "/s/leases", model.LinkInferred, "/s/leases"},
				{c3.Name, false, false, "/s/leases", model.LinkInferred, "/s/locks"},
				{c4.Name, false, false, c3.Name, model.LinkVerified, "/s/locks"},
			},
			limit: 2, src: model.LimitDeduced, pending: l3.Name,
		},
		{
			name: "curator, admitted before its lease: limit unknown",
			in:   SemParts{Path: "/s", Kind: SemCurator, Leases: []model.Node{l1, l2}, Lock: lockQueue(c3)},
			rows: []semRow{
				{l1.Name, true, true, "", model.LinkNone, "/s/leases"},
				{l2.Name, true, true, "", model.LinkNone, "/s/leases"},
				{c3.Name, false, false, "/s/leases", model.LinkInferred, "/s/locks"},
			},
		},
		{
			name: "curator, stated limit, lease within it: holds",
			in:   SemParts{Path: "/s", Kind: SemCurator, Leases: []model.Node{l1, l2, l3}, Lock: lockQueue(c3), Limit: 3},
			rows: []semRow{
				{l1.Name, true, true, "", model.LinkNone, "/s/leases"},
				{l2.Name, true, true, "", model.LinkNone, "/s/leases"},
				{l3.Name, true, true, "", model.LinkNone, "/s/leases"},
				{c3.Name, false, false, "/s/leases", model.LinkInferred, "/s/locks"},
			},
			limit: 3, src: model.LimitFromConfig,
		},
		{
			name: "curator, stated limit below the holders: over-limit",
			in:   SemParts{Path: "/s", Kind: SemCurator, Leases: []model.Node{l1, l2, l3}, Lock: lockQueue(c3), Limit: 1},
			rows: []semRow{
				{l1.Name, true, true, "", model.LinkNone, "/s/leases"},
				{l2.Name, true, true, "", model.LinkNone, "/s/leases"},
				{l3.Name, true, false, "/s/leases", model.LinkInferred, "/s/leases"},
				{c3.Name, false, false, "/s/leases", model.LinkInferred, "/s/locks"},
			},
			limit: 1, src: model.LimitFromConfig, pending: l3.Name,
			warnings: []string{model.WarnOverLimit}, overNodes: []string{l1.Name, l2.Name},
		},
		{
			name: "curator, the lock's own warnings and others carried, stale dropped",
			in:   SemParts{Path: "/s", Kind: SemCurator, Leases: []model.Node{l1}, NotLeases: []string{"stray"}, Lock: missing},
			rows: []semRow{
				{l1.Name, true, true, "", model.LinkNone, "/s/leases"},
				{missing.Nodes.At(0).Name, false, false, "/s/leases", model.LinkInferred, "/s/locks"},
				{missing.Nodes.At(1).Name, false, false, missing.Nodes.At(0).Name, model.LinkMissing, "/s/locks"},
			},
			warnings: []string{model.WarnMissingWatch}, other: []string{"leases/stray", "locks/junk"},
		},
		{
			name: "kazoo, max_leases in the parent's data",
			in:   SemParts{Path: "/s", Kind: SemKazoo, Leases: []model.Node{k2, k1}, Lock: lockQueue(q5, q6), ParentData: []byte("2")},
			rows: []semRow{
				{k1.Name, true, true, "", model.LinkNone, ""},
				{k2.Name, true, true, "", model.LinkNone, ""},
				{q5.Name, false, false, "/s", model.LinkInferred, "/s-__lock__"},
				{q6.Name, false, false, q5.Name, model.LinkVerified, "/s-__lock__"},
			},
			limit: 2, src: model.LimitFromData,
		},
		{
			name:  "kazoo, data below the holders: over-limit",
			in:    SemParts{Path: "/s", Kind: SemKazoo, Leases: []model.Node{k1, k2}, ParentData: []byte(" 1\n")},
			rows:  []semRow{{k1.Name, true, true, "", model.LinkNone, ""}, {k2.Name, true, true, "", model.LinkNone, ""}},
			limit: 1, src: model.LimitFromData, warnings: []string{model.WarnOverLimit}, overNodes: []string{k1.Name, k2.Name},
		},
		{
			name:  "kazoo, the config wins over the data",
			in:    SemParts{Path: "/s", Kind: SemKazoo, Leases: []model.Node{k1, k2}, ParentData: []byte("1"), Limit: 3},
			rows:  []semRow{{k1.Name, true, true, "", model.LinkNone, ""}, {k2.Name, true, true, "", model.LinkNone, ""}},
			limit: 3, src: model.LimitFromConfig,
		},
		{
			name:  "kazoo, data no number: limit unknown",
			in:    SemParts{Path: "/s", Kind: SemKazoo, Leases: []model.Node{k1}, NotLeases: []string{"x"}, ParentData: []byte("config")},
			rows:  []semRow{{k1.Name, true, true, "", model.LinkNone, ""}},
			other: []string{"x"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := ComposeSemaphore(tt.in)
			var got []semRow
			for _, n := range res.Nodes {
				got = append(got, semRow{n.Name, n.Lease, n.Role == ordering.RoleHolder, n.Watches(), n.Link, n.Parent()})
				if n.Role != n.Believes {
					t.Errorf("%s: role %v believes %v", n.Name, n.Role, n.Believes)
				}
				if n.Lease && (n.KindName() != "lease" || n.Recipe != tt.in.Kind.recipe()) {
					t.Errorf("%s: kind %s recipe %v", n.Name, n.KindName(), n.Recipe)
				}
				if n.Role == ordering.RoleWaiting && !n.SinceExact {
					t.Errorf("%s: a waiter waits since its creation", n.Name)
				}
			}
			if !slices.Equal(got, tt.rows) {
				t.Errorf("nodes\n got %+v\nwant %+v", got, tt.rows)
			}
			if res.Limit != tt.limit || res.LimitSource != tt.src || res.Pending != tt.pending {
				t.Errorf("limit %d %q pending %q, want %d %q %q", res.Limit, res.LimitSource, res.Pending, tt.limit, tt.src, tt.pending)
			}
			var codes []string
			for _, w := range res.Warnings {
				codes = append(codes, w.Code)
				if w.Code == model.WarnOverLimit && !slices.Equal(w.Nodes, tt.overNodes) {
					t.Errorf("over-limit names %v, want %v", w.Nodes, tt.overNodes)
				}
			}
			if !slices.Equal(codes, tt.warnings) {
				t.Errorf("warnings %v, want %v", codes, tt.warnings)
			}
			if !slices.Equal(res.Other, tt.other) {
				t.Errorf("other %v, want %v", res.Other, tt.other)
			}
		})
	}
}

// semaphoreSnapshot is a Curator semaphore with a lease beyond its
// stated limit and an over-limit warning, as Watch builds it.
func semaphoreSnapshot() *model.Snapshot {
	l1, l2, l3 := cLease(1, 0xa), cLease(2, 0xb), cLease(3, 0xc)
	res := ComposeSemaphore(SemParts{Path: "/sem/x", Kind: SemCurator, Leases: []model.Node{l1, l2, l3},
		Lock: lockQueue(cLock(3, 0xc), cLock(4, 0xd)), Limit: 1})
	return &model.Snapshot{At: semT0.Add(time.Minute), Queues: model.QueuesOf(model.Queue{Path: "/sem/x", State: model.PathPresent, Type: model.TypeSemaphore,
		Nodes: model.NodesOf(res.Nodes...)}.WithRare(model.QueueRare{Other: res.Other, Warnings: res.Warnings, Limit: res.Limit, LimitSource: res.LimitSource}))}
}

// TestSemaphoreLS: `ls --json` of a semaphore over its stated limit: its
// type, limit and source, the over-limit warning (a check failure: cmd's
// TestCheckCode), its leases and admission lock in the order they are
// served (the text: cmd's TestWriteLsTextSemaphore).
func TestSemaphoreLS(t *testing.T) {
	p := model.ToJSON(semaphoreSnapshot())[0]
	if p.Type != "semaphore" || p.Limit != 1 || p.LimitSrc != "config" || len(p.Warnings) != 1 || p.Warnings[0].Code != "over-limit" {
		t.Errorf("path %+v", p)
	}
	want := []struct{ kind, role, parent, watches string }{
		{"lease", "holder", "/sem/x/leases", ""},
		{"lease", "holder", "/sem/x/leases", ""},
		{"lease", "waiting", "/sem/x/leases", "/sem/x/leases"},
		{"mutex", "waiting", "/sem/x/locks", "/sem/x/leases"},
		{"mutex", "waiting", "/sem/x/locks", cLock(3, 0).Name},
	}
	if len(p.Queue) != len(want) {
		t.Fatalf("queue %+v", p.Queue)
	}
	for i, w := range want {
		n := p.Queue[i]
		if n.Kind != w.kind || n.Role != w.role || n.Parent != w.parent || n.Watches != w.watches {
			t.Errorf("node %d: %+v, want %+v", i, n, w)
		}
	}
}

func TestSemaphoreChanges(t *testing.T) {
	at := semT0.Add(time.Minute)
	k1, k2 := kLease(1, 0xa), kLease(2, 0xb)
	build := func(leases ...model.Node) model.Queue {
		res := ComposeSemaphore(SemParts{Path: "/s", Kind: SemKazoo, Leases: leases, ParentData: []byte("2")})
		return model.Queue{Path: "/s", State: model.PathPresent, Type: model.TypeSemaphore, Nodes: model.NodesOf(res.Nodes...)}.WithRare(model.QueueRare{Limit: res.Limit, LimitSource: res.LimitSource})
	}
	first := SemaphoreChanges(nil, build(k1), at)
	if len(first) != 1 || !strings.Contains(first[0].Text(), "kazoo semaphore, holders 1/2, 0 waiting") {
		t.Errorf("first build: %+v", first)
	}
	old := build(k1)
	evs := SemaphoreChanges(&old, build(k2), at)
	var texts []string
	for _, e := range evs {
		texts = append(texts, e.Kind.LogWord()+" "+e.Text())
	}
	// The return first: it is what let the next lease in. Each tells the
	// holders right after it: none once k1 returned, one once k2 took.
	want := []string{"deleted lease " + k1.Name + " returned (held 59.0s): holders 0/2", "handoff lease " + k2.Name + " taken by 0xb: holders 1/2"}
	if !slices.Equal(texts, want) {
		t.Errorf("events\n got %q\nwant %q", texts, want)
	}
	// A full semaphore of 3 (the issue's): a lease returned and another
	// taken in one build read "2/3" then "3/3", never "3/3" twice.
	build3 := func(leases ...model.Node) model.Queue {
		res := ComposeSemaphore(SemParts{Path: "/s", Kind: SemKazoo, Leases: leases, ParentData: []byte("3")})
		return model.Queue{Path: "/s", State: model.PathPresent, Type: model.TypeSemaphore, Nodes: model.NodesOf(res.Nodes...)}.WithRare(model.QueueRare{Limit: res.Limit, LimitSource: res.LimitSource})
	}
	k3, k4 := kLease(3, 0xc), kLease(4, 0xd)
	old = build3(k1, k2, k3)
	texts = texts[:0]
	for _, e := range SemaphoreChanges(&old, build3(k2, k3, k4), at) {
		texts = append(texts, e.Kind.String()+" "+model.LimitText(e.Holders, e.Limit))
	}
	if want := []string{"released 2/3", "acquired 3/3"}; !slices.Equal(texts, want) {
		t.Errorf("a return and a take in one build: %q, want %q", texts, want)
	}
	// A lease one build saw holding and the next saw waiting (Curator's
	// admitted lease, once the other listing showed it beyond the limit)
	// is told waiting, one holder fewer: the events end where the
	// snapshot does.
	held := build3(k1, k2, k3)
	demoted := build3(k1, k2, k3)
	nodes := demoted.Nodes.Slice()
	nodes[2].Role = ordering.RoleWaiting
	demoted.Nodes = model.NodesOf(nodes...)
	texts = texts[:0]
	for _, e := range SemaphoreChanges(&held, demoted, at) {
		texts = append(texts, e.Kind.String()+" "+model.LimitText(e.Holders, e.Limit))
	}
	if want := []string{"joined 2/3"}; !slices.Equal(texts, want) {
		t.Errorf("a lease seen holding, then waiting: %q, want %q", texts, want)
	}
}
