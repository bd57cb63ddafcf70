package cmd

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

// sampleSnapshot is an absent path and a split queue: a Curator holder, a
// Kazoo node that believes it holds (its data terminal escapes, cut), a
// plain waiter whose watch the servers do not show; other children, one
// with an escape in its name.
func sampleSnapshot() *model.Snapshot {
	at := time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	return &model.Snapshot{
		At:           at,
		Conn:         model.Conn{State: model.StateConnected, Since: at.Add(-time.Minute), SessionID: 0x10},
		ServerView:   true,
		ServerViewAt: at.Add(-time.Second),
		Queues: model.QueuesOf(
			model.Queue{Path: "/locks/absent", State: model.PathAbsent},
			model.Queue{
				Path:  "/locks/job",
				State: model.PathPresent,
				Nodes: model.NodesOf(
					model.Node{Name: "_c_6a3f0a1e-2b4c-4d5e-8f90-1a2b3c4d5e6f-lock-0000000007", Seq: 7, Kind: ordering.KindMutex,
						Recipe: ordering.RecipeCurator, Role: ordering.RoleHolder, Believes: ordering.RoleHolder,
						Session: 0x100009311fa0000, DataLen: 8,
						SinceExact: true}.WithClient("127.0.0.1:38920").WithData([]byte("10.0.0.7")).WithCtime(at.Add(-3*time.Second)).WithSince(at.Add(-2*time.Second)),
					model.Node{Name: "0123456789abcdef0123456789abcdef__lock__0000000008", Seq: 8, Kind: ordering.KindMutex,
						Recipe: ordering.RecipeKazoo, Role: ordering.RoleWaiting, Believes: ordering.RoleHolder,
						Session: 0x2, DataLen: 300,
						SinceExact: true}.WithData([]byte("\x1b]52;c;evil\x07\xff")).WithCtime(at.Add(-time.Second)).WithSince(at.Add(-time.Second)),
					model.Node{Name: "lock-0000000009", Seq: 9, Kind: ordering.KindMutex, Recipe: ordering.RecipePlain,
						Role: ordering.RoleWaiting, Believes: ordering.RoleWaiting, Link: model.LinkMissing, Session: 0x3, SinceExact: true}.WithWatches("0123456789abcdef0123456789abcdef__lock__0000000008").WithCtime(at).WithSince(at),
				),
			}.WithRare(model.QueueRare{
				Other: []string{"leases", "bad\x1b[2Jname"},
				Warnings: []model.Warning{{Code: model.WarnSplitHolders, Message: "2 nodes believe they hold",
					Nodes: []string{"_c_6a3f0a1e-2b4c-4d5e-8f90-1a2b3c4d5e6f-lock-0000000007", "0123456789abcdef0123456789abcdef__lock__0000000008"}}},
			}),
		),
	}
}

// TestWriteLsJSON: `ls --json`'s exact keys and values, everything read
// from ZooKeeper escaped.
func TestWriteLsJSON(t *testing.T) {
	snap := sampleSnapshot()
	var b strings.Builder
	if err := writeLsJSON(&b, snap); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("raw control characters in JSON:\n%q", out)
	}
	var v []map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if len(v) != 2 {
		t.Fatalf("%d paths", len(v))
	}
	keys := func(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
	if got, want := keys(v[1]), []string{"exists", "other", "path", "queue", "schema", "type", "warnings"}; !slices.Equal(got, want) {
		t.Errorf("path keys %v, want %v", got, want)
	}
	for _, p := range v {
		if p["schema"] != float64(model.LsSchema) {
			t.Errorf("%v: schema %v, want %d", p["path"], p["schema"], model.LsSchema)
		}
	}
	if v[0]["exists"] != false || len(v[0]["queue"].([]any)) != 0 || v[0]["warnings"] == nil {
		t.Errorf("absent path: %v", v[0])
	}
	queue := v[1]["queue"].([]any)
	n0 := queue[0].(map[string]any)
	want := []string{"believes", "client", "ctime", "czxid", "data", "kind", "node", "recipe", "role", "seq", "session", "since", "since_bound", "watch_verified", "watches"}
	if got := keys(n0); !slices.Equal(got, want) {
		t.Errorf("node keys %v, want %v", got, want)
	}
	if n0["session"] != "0x100009311fa0000" || n0["seq"] != 7.0 || n0["role"] != "holder" || n0["watch_verified"] != nil ||
		n0["ctime"] != "2026-11-23T00:59:57.000Z" || n0["recipe"] != "curator" || n0["client"] != "127.0.0.1:38920" ||
		n0["since"] != "2026-11-23T00:59:58.000Z" || n0["since_bound"] != "exact" {
		t.Errorf("holder: %v", n0)
	}
	n1 := queue[1].(map[string]any)
	if n1["data"] != `\x1b]52;c;evil\x07\xff…` || n1["believes"] != "holder" || n1["role"] != "waiting" {
		t.Errorf("kazoo node: %v", n1)
	}
	if n2 := queue[2].(map[string]any); n2["watch_verified"] != false {
		t.Errorf("missing link: %v", n2)
	}
	if o := v[1]["other"].([]any); o[1] != `bad\x1b[2Jname` {
		t.Errorf("other: %v", o)
	}
	w := v[1]["warnings"].([]any)[0].(map[string]any)
	if w["code"] != "split-holders" || len(w["nodes"].([]any)) != 2 {
		t.Errorf("warning: %v", w)
	}
}

// TestWriteLsText: `ls`'s heading, warning and table rows, escaped.
func TestWriteLsText(t *testing.T) {
	var b strings.Builder
	if err := writeLsText(&b, sampleSnapshot()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"/locks/absent: does not exist",
		"/locks/job: 3 lock nodes, 1 holding, 2 waiting",
		"WARNING split-holders: 2 nodes believe they hold",
		"held 2.0s",
		"waiting (believes holder)",
		"#8 missing",
		`bad\x1b[2Jname`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("raw control characters in text:\n%q", out)
	}
}

// TestCheckCode: `ls --check` fails (2) on split-holders, deadlock,
// missing-watch and over-limit, and on a cross-lock deadlock; not on the
// warnings that only inform, nor on a young cycle or a self-wait.
func TestCheckCode(t *testing.T) {
	if got := checkCode(sampleSnapshot()); got != 2 {
		t.Errorf("split queue: %d, want 2", got)
	}
	for _, tt := range []struct {
		warnings []string
		cycle    string
		want     int
	}{
		{nil, "", 0},
		{[]string{model.WarnMixedRecipes, model.WarnHerd, model.WarnStale, model.WarnSelfWait}, "", 0},
		{[]string{model.WarnSplitHolders}, "", 2},
		{[]string{model.WarnDeadlock}, "", 2},
		{[]string{model.WarnMissingWatch}, "", 2},
		{[]string{model.WarnHerd, model.WarnOverLimit}, "", 2},
		{nil, model.CycleYoung, 0},
		{nil, model.CycleSelfWait, 0},
		{[]string{model.WarnHerd}, model.CycleDeadlock, 2},
	} {
		snap := &model.Snapshot{Queues: model.QueuesOf(model.Queue{Path: "/a", State: model.PathPresent}, model.Queue{Path: "/b", State: model.PathPresent})}
		for _, code := range tt.warnings {
			snap.Queues.At(1).SetWarnings(append(snap.Queues.At(1).Warnings(), model.Warning{Code: code}))
		}
		if tt.cycle != "" {
			snap.Deadlocks = []model.Deadlock{{Sessions: []int64{1, 2}, Paths: []string{"/a", "/b"}, State: tt.cycle}}
		}
		if got := checkCode(snap); got != tt.want {
			t.Errorf("warnings %v, cycle %q: %d, want %d", tt.warnings, tt.cycle, got, tt.want)
		}
	}
}

// TestWriteLsTextPathStates: a path that cannot be listed says why in one
// line.
func TestWriteLsTextPathStates(t *testing.T) {
	snap := &model.Snapshot{Queues: model.QueuesOf(
		model.Queue{Path: "/a", State: model.PathAbsent},
		model.Queue{Path: "/b", State: model.PathNoAuth}.WithRare(model.QueueRare{Err: "zk: not authenticated"}),
		model.Queue{Path: "/c", State: model.PathError}.WithRare(model.QueueRare{Err: "zk: connection closed\x1b[2J"}),
		model.Queue{Path: "/d", State: model.PathPending},
	)}
	var b strings.Builder
	if err := writeLsText(&b, snap); err != nil {
		t.Fatal(err)
	}
	want := "/a: does not exist\n\n/b: no permission to list (zk: not authenticated)\n\n" +
		"/c: error: zk: connection closed\\x1b[2J\n\n/d: not read yet\n"
	if b.String() != want {
		t.Errorf("text\n%q\nwant\n%q", b.String(), want)
	}
}

// TestWriteLsTextHeader: the lines before the queues say whether the
// servers' view is on, off and why, stale, or cut short by discovery.
func TestWriteLsTextHeader(t *testing.T) {
	at := time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)
	for _, tt := range []struct {
		name string
		snap model.Snapshot
		want string
	}{
		{"server view", model.Snapshot{ServerView: true, ServerViewAt: at}, "server view: members asked at 03:12:04\nno lock parents\n"},
		{"partial", model.Snapshot{ServerView: true, ServerViewAt: at, ServerViewNote: "127.0.0.1:2182 did not answer"},
			"server view: members asked at 03:12:04 (127.0.0.1:2182 did not answer)\nno lock parents\n"},
		{"refused", model.Snapshot{ServerViewNote: "cons is not allowed on 127.0.0.1:2181"},
			"server view: off: cons is not allowed on 127.0.0.1:2181\nno lock parents\n"},
		{"stale", model.Snapshot{Stale: true, Conn: model.Conn{State: model.StateDisconnected, Since: at}, DiscoveryCapped: true},
			"STALE: disconnected since 03:12:04\ndiscovery stopped at its bound: more lock parents may exist\nno lock parents\n"},
	} {
		var b strings.Builder
		if err := writeLsText(&b, &tt.snap); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n%q\nwant\n%q", tt.name, b.String(), tt.want)
		}
	}
}

// TestWriteLsTextElection: an election reads as leader and followers,
// never holder and waiting.
func TestWriteLsTextElection(t *testing.T) {
	at := time.Date(2026, 3, 14, 3, 13, 4, 0, time.UTC)
	q := model.Queue{Path: "/svc/leader", State: model.PathPresent, Type: model.TypeElection}
	for i, uuid := range []string{"0f8fad5b-d9cb-469f-a165-70867728950e", "7c9e6679-7425-40de-944b-e07fc1f90ae7", "16fd2706-8baf-433b-82eb-8c7fada847da"} {
		n := model.Node{Name: fmt.Sprintf("_c_%s-latch-%010d", uuid, i+1), Seq: int32(i + 1), Kind: ordering.KindMutex,
			Recipe: ordering.RecipeCurator, Role: ordering.RoleHolder, Believes: ordering.RoleHolder, Session: 0x100 + int64(i),
			DataLen: 13}.WithData(fmt.Appendf(nil, "participant-%d", i+1)).WithCtime(at.Add(-2 * time.Minute)).WithSince(at.Add(-time.Minute))
		if i > 0 {
			n.Role, n.Believes, n.Link, n.SinceExact = ordering.RoleWaiting, ordering.RoleWaiting, model.LinkInferred, true
			n.SetWatches(q.Nodes.At(i - 1).Name)
		}
		q.Nodes = model.NodesOf(append(q.Nodes.Slice(), n)...)
	}
	var b strings.Builder
	if err := writeLsText(&b, &model.Snapshot{At: at, Queues: model.QueuesOf(q)}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"election, 3 participants, 1 leading, 2 following", "leader", "follower", "participant-1"} {
		if !strings.Contains(text, want) {
			t.Errorf("ls text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "holder") || strings.Contains(text, "waiting") {
		t.Errorf("ls text of an election says holder or waiting:\n%s", text)
	}
}

// TestWriteLsTextEphemeral: the plain ephemeral lock's waiters are
// sessions with an exists watch: no node, no sequence.
func TestWriteLsTextEphemeral(t *testing.T) {
	ctime := time.Date(2026, 3, 14, 3, 12, 0, 0, time.UTC)
	eph := func(name string, session int64, role ordering.Role) model.Node {
		return model.Node{Name: name, Kind: ordering.KindMutex, Recipe: ordering.RecipeEphemeral, Role: role, Believes: role, Session: session}
	}
	holder, w1, w2 := eph("owner", 0x11, ordering.RoleHolder), eph("", 0x22, ordering.RoleWaiting), eph("", 0x33, ordering.RoleWaiting)
	holder.Herd, holder.SinceExact = true, true
	holder.SetCtime(ctime)
	holder.SetSince(ctime)
	w1.Link = model.LinkVerified
	w1.SetWatchesPredecessor("owner", "owner")
	w2.Link = model.LinkVerified
	w2.SetWatchesPredecessor("owner", "owner")
	snap := &model.Snapshot{At: ctime.Add(time.Minute), ServerView: true, Queues: model.QueuesOf(model.Queue{
		Path: "/x", State: model.PathPresent, Type: model.TypeMutex, Nodes: model.NodesOf(holder, w1, w2),
	}.WithRare(model.QueueRare{
		Warnings: []model.Warning{{Code: model.WarnHerd, Message: "plain ephemeral lock: 2 sessions watch owner", Nodes: []string{"owner"}}},
	}))}
	var b strings.Builder
	if err := writeLsText(&b, snap); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 holding, 2 waiting", "0x33", "owner verified", "no node", "WARNING herd", "- HERD"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("ls text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestWriteLsSemaphore: a Curator semaphore over its stated limit (as
// zkview's TestSemaphoreLS composes it): the heading counts leases against
// the limit, a lease waiter waits on a children watch, names are shown
// from the semaphore's path; the JSON carries the limit and its source;
// the check fails.
func TestWriteLsSemaphore(t *testing.T) {
	at := time.Date(2026, 11, 23, 1, 1, 0, 0, time.UTC)
	node := func(seq int32, what string, role ordering.Role, watches string, link model.LinkStatus) model.Node {
		n := model.Node{Name: fmt.Sprintf("_c_00000000-0000-4000-8000-%012d-%s-%010d", seq, what, seq), Seq: seq,
			Kind: ordering.KindMutex, Recipe: ordering.RecipeCurator, Role: role, Believes: role, Link: link, Session: 0x9 + int64(seq), SinceExact: true}.WithWatchesPredecessor(watches, watches).WithParent("/sem/x/locks").WithCtime(at.Add(time.Duration(seq-60) * time.Second))
		if what == "lease" {
			n.Kind, n.Lease = ordering.KindOther, true
			n.SetPredecessor("")
			n.SetParent("/sem/x/leases")
		}
		n.SetSince(n.Ctime())
		return n
	}
	l1, l2 := node(1, "lease", ordering.RoleHolder, "", model.LinkNone), node(2, "lease", ordering.RoleHolder, "", model.LinkNone)
	lock3, lock4 := node(3, "lock", ordering.RoleWaiting, "/sem/x/leases", model.LinkInferred), node(4, "lock", ordering.RoleWaiting, "", model.LinkVerified)
	lock4.SetWatchesPredecessor(lock3.Name, lock3.Name)
	snap := &model.Snapshot{At: at, Queues: model.QueuesOf(model.Queue{Path: "/sem/x", State: model.PathPresent, Type: model.TypeSemaphore,
		Nodes: model.NodesOf(l1, l2, node(3, "lease", ordering.RoleWaiting, "/sem/x/leases", model.LinkInferred), lock3, lock4),
	}.WithRare(model.QueueRare{
		Limit:       1,
		LimitSource: model.LimitFromConfig,
		Warnings:    []model.Warning{{Code: model.WarnOverLimit, Message: "2 leases held at once, limit 1 (stated in the config)", Nodes: []string{l1.Name, l2.Name}}},
	}))}
	if got := checkCode(snap); got != 2 {
		t.Errorf("checkCode = %d for an over-limit semaphore, want 2", got)
	}
	var b strings.Builder
	if err := writeLsText(&b, snap); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, s := range []string{"/sem/x: semaphore, holders 2/1 (config), 2 waiting", "WARNING over-limit",
		"children of /sem/x/leases inferred", "leases/" + l1.Name, "locks/" + lock4.Name, " lease ", "#3 verified"} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
	b.Reset()
	if err := writeLsJSON(&b, snap); err != nil {
		t.Fatal(err)
	}
	var v []struct {
		Type     string `json:"type"`
		Limit    int    `json:"limit"`
		Source   string `json:"limit_source"`
		Warnings []struct {
			Code string `json:"code"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(b.String()), &v); err != nil {
		t.Fatal(err)
	}
	if p := v[0]; p.Type != "semaphore" || p.Limit != 1 || p.Source != "config" || len(p.Warnings) != 1 || p.Warnings[0].Code != "over-limit" {
		t.Errorf("path %+v", p)
	}
}

// TestWriteLsHostile: what the Watcher keeps of hostile trees (zkview's
// TestHostileData and TestHostileNames build them on a real server)
// reaches neither `ls`'s text nor its JSON raw: data of terminal escapes,
// of every byte value, the first bytes of a megabyte (a character cut in
// two); every character ZooKeeper allows in a name, and names built to
// deceive.
func TestWriteLsHostile(t *testing.T) {
	at := time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)
	escapes := "\x1b]0;pwned\a\x1b]52;c;cm0gLXJmIH4=\a\x1b[2J\x1b[H\x1b[31;1mRED\x1bP+q\x1b\\\xc2\x9b6n\u202eevil\xff\xfe"
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	megabyte := append([]byte(escapes + string(every))[:zkview.DefaultDataBytes-1], "世"[0])
	q := model.Queue{Path: "/hostile", State: model.PathPresent, Type: model.TypeMutex}.WithRare(model.QueueRare{
		Other: []string{"lock-\u202e0000000001", "\u200b\u200d\ufeff", strings.Repeat("\u0301", 200), "leases\u2028locks", "\u00ad", " "},
	})
	add := func(prefix string, data []byte, dataLen int) {
		seq := int32(q.Nodes.Len())
		role := ordering.RoleHolder
		if seq > 0 {
			role = ordering.RoleWaiting
		}
		n := model.Node{Name: fmt.Sprintf("x-%s-%010d", prefix, seq), Seq: seq, Kind: ordering.KindMutex, Recipe: ordering.RecipePlain,
			Role: role, Believes: role, Session: 0x100 + int64(seq), DataLen: int32(dataLen), SinceExact: true}.WithData(data).WithCtime(at).WithSince(at)
		if seq > 0 {
			n.Link = model.LinkVerified
			n.SetWatches(q.Nodes.At(int(seq - 1)).Name)
		}
		q.Nodes = model.NodesOf(append(q.Nodes.Slice(), n)...)
	}
	add("escapes", []byte(escapes), len(escapes))
	add("binary", every, len(every))
	add("megabyte", megabyte, 1_000_000)
	add("empty", nil, 0)
	var names []rune // every rune ZooKeeper allows in a name: no '/', controls, surrogates, private use
	for r := rune(0x20); r <= 0xffef; r++ {
		if r != '/' && (r < 0x7f || r >= 0xa0) && (r < 0xd800 || r >= 0xf900) {
			names = append(names, r)
		}
	}
	for len(names) > 0 {
		part := string(names[:min(400, len(names))])
		names = names[min(400, len(names)):]
		add(part, []byte(part[:min(len(part), 64)]), min(len(part), 64))
	}
	snap := &model.Snapshot{At: at, Queues: model.QueuesOf(q)}
	raw := func(s string) int {
		if !utf8.ValidString(s) {
			return 0
		}
		return strings.IndexFunc(s, func(r rune) bool { return r != '\n' && !unicode.IsGraphic(r) })
	}
	var text, js strings.Builder
	if err := writeLsText(&text, snap); err != nil {
		t.Fatal(err)
	}
	if err := writeLsJSON(&js, snap); err != nil {
		t.Fatal(err)
	}
	for what, out := range map[string]string{"text": text.String(), "json": js.String()} {
		if i := raw(out); i >= 0 {
			t.Errorf("ls %s: a character reaches the terminal raw near %q", what, out[max(i-20, 0):min(i+20, len(out))])
		}
	}
	if err := json.Unmarshal([]byte(js.String()), new([]model.JSONPath)); err != nil {
		t.Errorf("ls json does not parse: %v", err)
	}
	for _, want := range []string{`\x1b]52`, "…", `\u202e`, `\u200b`, `\u2028`} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("ls text does not show %s escaped:\n%s", want, text.String())
		}
	}
}

// TestWriteLsTextEveryNode: `ls` prints every node of a 10,000-node queue.
func TestWriteLsTextEveryNode(t *testing.T) {
	const n = 10000
	at := time.Date(2026, 3, 14, 3, 12, 4, 0, time.UTC)
	nodes := make([]model.Node, n)
	for i := range nodes {
		role := ordering.RoleWaiting
		if i == 0 {
			role = ordering.RoleHolder
		}
		nodes[i] = model.Node{Name: fmt.Sprintf("lock-%010d", i), Seq: int32(i), Kind: ordering.KindMutex, Recipe: ordering.RecipePlain,
			Role: role, Believes: role, Session: 0x100, DataLen: 1, SinceExact: true}.WithData([]byte("w")).WithCtime(at).WithSince(at)
	}
	q := model.Queue{Path: "/big", State: model.PathPresent, Type: model.TypeMutex, Nodes: model.NodesOf(nodes...)}
	var b strings.Builder
	if err := writeLsText(&b, &model.Snapshot{At: at, Queues: model.QueuesOf(q)}); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(b.String(), "\n"); lines < n {
		t.Errorf("%d lines for %d nodes", lines, n)
	}
}
