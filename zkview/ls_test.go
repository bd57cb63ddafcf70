package zkview

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"zklock/lockops"
)

func sampleSnapshot() *Snapshot {
	at := time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	return &Snapshot{
		At:           at,
		Conn:         Conn{State: StateConnected, Since: at.Add(-time.Minute), SessionID: 0x10},
		ServerView:   true,
		ServerViewAt: at.Add(-time.Second),
		Queues: []Queue{
			{Path: "/locks/absent", State: PathAbsent},
			{
				Path:  "/locks/job",
				State: PathPresent,
				Nodes: NodesOf(
					Node{Name: "_c_6a3f0a1e-2b4c-4d5e-8f90-1a2b3c4d5e6f-lock-0000000007", Seq: 7, Kind: lockops.KindMutex,
						Recipe: lockops.RecipeCurator, Role: lockops.RoleHolder, Believes: lockops.RoleHolder,
						Session: 0x100009311fa0000, Client: "127.0.0.1:38920", Data: []byte("10.0.0.7"), DataLen: 8,
						Ctime: at.Add(-3 * time.Second), Since: at.Add(-2 * time.Second), SinceExact: true},
					Node{Name: "0123456789abcdef0123456789abcdef__lock__0000000008", Seq: 8, Kind: lockops.KindMutex,
						Recipe: lockops.RecipeKazoo, Role: lockops.RoleWaiting, Believes: lockops.RoleHolder,
						Session: 0x2, Data: []byte("\x1b]52;c;evil\x07\xff"), DataLen: 300,
						Ctime: at.Add(-time.Second), Since: at.Add(-time.Second), SinceExact: true},
					Node{Name: "lock-0000000009", Seq: 9, Kind: lockops.KindMutex, Recipe: lockops.RecipePlain,
						Role: lockops.RoleWaiting, Believes: lockops.RoleWaiting, Watches: "0123456789abcdef0123456789abcdef__lock__0000000008",
						Link: LinkMissing, Session: 0x3, Ctime: at, Since: at, SinceExact: true},
				),
				Other: []string{"leases", "bad\x1b[2Jname"},
				Warnings: []Warning{{Code: WarnSplitHolders, Message: "2 nodes believe they hold",
					Nodes: []string{"_c_6a3f0a1e-2b4c-4d5e-8f90-1a2b3c4d5e6f-lock-0000000007", "0123456789abcdef0123456789abcdef__lock__0000000008"}}},
			},
		},
	}
}

func TestWriteJSONSchema(t *testing.T) {
	snap := sampleSnapshot()
	var b strings.Builder
	if err := WriteJSON(&b, snap); err != nil {
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
		if p["schema"] != float64(LsSchema) {
			t.Errorf("%v: schema %v, want %d", p["path"], p["schema"], LsSchema)
		}
	}
	if v[0]["exists"] != false || len(v[0]["queue"].([]any)) != 0 || v[0]["warnings"] == nil {
		t.Errorf("absent path: %v", v[0])
	}
	queue := v[1]["queue"].([]any)
	n0 := queue[0].(map[string]any)
	want := []string{"believes", "client", "ctime", "data", "kind", "node", "recipe", "role", "seq", "session", "since", "since_bound", "watch_verified", "watches"}
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
	if CheckCode(snap) != 2 {
		t.Errorf("check code %d", CheckCode(snap))
	}
	snap.Queues[1].Warnings = []Warning{{Code: WarnMixedRecipes}, {Code: WarnHerd}, {Code: WarnStale}}
	if CheckCode(snap) != 0 {
		t.Errorf("check code %d for warnings that do not fail a check", CheckCode(snap))
	}
}

func TestWriteText(t *testing.T) {
	var b strings.Builder
	if err := WriteText(&b, sampleSnapshot()); err != nil {
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
