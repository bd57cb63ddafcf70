package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// realFleet is the snapshot zkview took of queues built by real Curator,
// Kazoo and lockops clients (zkview's TestConsoleFixtureFromRealQueues
// builds them again on every run and checks they still look like this).
func realFleet(t *testing.T) *model.Snapshot {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "real", "fleet.json"))
	if err != nil {
		t.Fatalf("%v (go test ./zkview -run TestConsoleFixture -update-fixture writes it)", err)
	}
	var s model.Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// realScenarios are the real queues as an on-call engineer meets them.
var realScenarios = []struct {
	name, path string
	setup      func(Console, *model.Snapshot) Console
}{
	{"curator-mutex", "/locks/billing", nil},
	{"kazoo-rw", "/locks/orders", func(m Console, _ *model.Snapshot) Console {
		m, _ = press(m, "tab", "down", "down")
		return m
	}},
	{"split-holders", "/locks/ledger", nil},
	{"deadlock", "/locks/inventory", nil},
	{"own-waiting", "/locks/reports", func(m Console, s *model.Snapshot) Console {
		q := s.Queue("/locks/reports")
		return step(m, ownMsg{[]OwnLock{{Path: q.Path, Node: q.Nodes.At(1).Name, State: OwnQueued,
			Position: 2, Watching: q.Nodes.At(0).Name, Since: q.Nodes.At(1).Since()}}})
	}},
	{"absent", "/locks/nope", nil},
}

// TestRealGolden draws the console from the real snapshot, every scenario
// in every theme at 80x24 and 160x48.
func TestRealGolden(t *testing.T) {
	snap := realFleet(t)
	var paths []string
	for _, q := range snap.Queues.All() {
		paths = append(paths, q.Path)
	}
	for _, sc := range realScenarios {
		for _, sz := range sizes {
			name := fmt.Sprintf("real-%s-%dx%d", sc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				layoutGolden(t, name, sz[0], sz[1], func(theme string) Console {
					m := New(Options{Theme: mustTheme(theme), Backend: &fakeBackend{}, Paths: paths, Now: func() time.Time { return snap.At }})
					m = step(m, sizeMsg(sz[0], sz[1]))
					m = step(m, updateMsg{model.Update{Snapshot: snap}})
					m = selectPath(m, sc.path)
					if sc.setup != nil {
						m = sc.setup(m, snap)
					}
					return m
				})
			})
		}
	}
}

// TestRealWarningsShown: the dangerous states of the real queues are on
// screen at the smallest size, in the plainest theme.
func TestRealWarningsShown(t *testing.T) {
	snap := realFleet(t)
	for path, want := range map[string]string{"/locks/ledger": "SPLIT", "/locks/inventory": "DEADLOCK"} {
		m := New(Options{Theme: mustTheme("mono"), Paths: []string{path}, Now: func() time.Time { return snap.At }})
		m = step(m, sizeMsg(80, 24))
		m = step(m, updateMsg{model.Update{Snapshot: snap}})
		m = selectPath(m, path)
		if view := ansi.Strip(m.View()); !strings.Contains(strings.ToUpper(view), want) {
			t.Errorf("%s at 80x24 mono: no %q on screen:\n%s", path, want, view)
		}
	}
}

// TestRealDeadlockChainDrawn: Kazoo 2.8's reader is first by sequence but
// waits, by its recipe, on the writer behind it; its watch (the half of the
// cycle that makes the deadlock) is drawn like any waiter's.
func TestRealDeadlockChainDrawn(t *testing.T) {
	snap := realFleet(t)
	m := New(Options{Theme: mustTheme("mono"), Paths: []string{"/locks/inventory"}, Now: func() time.Time { return snap.At }})
	m = step(m, sizeMsg(160, 48))
	m = step(m, updateMsg{model.Update{Snapshot: snap}})
	m = selectPath(m, "/locks/inventory")
	view := ansi.Strip(m.View())
	for _, want := range []string{"watches #2 ✓ verified ⟲ DEADLOCK", "watches #1 ✓ verified ⟲ DEADLOCK"} {
		if !strings.Contains(view, want) {
			t.Errorf("no %q on screen:\n%s", want, view)
		}
	}
}

// matchGolden compares a stripped view with its golden file,
// testdata/<Test>/<name>.golden, through charmbracelet's x/exp/golden (as
// Bubbles' own view tests do): `go test ./ui -update` rewrites the files,
// then review the diff. name is the subtest's own name, checked so that
// a file is never looked for under another name than the one the test
// reports.
func matchGolden(t *testing.T, name, got string) {
	t.Helper()
	if base := path.Base(t.Name()); base != name {
		t.Fatalf("golden %q compared in subtest %q: run it as t.Run(%q, ...)", name, base, name)
	}
	golden.RequireEqual(t, []byte(got))
}

// TestFixtureWarningsAsWritten: the hand-made fixtures' warnings say what
// zkview writes. Each fixture warning whose code the real capture
// (testdata/real, written by zkview) also holds has the same shape as the
// real one: node names, numbers and recipe names aside, the same words.
func TestFixtureWarningsAsWritten(t *testing.T) {
	real := map[string]string{}
	for _, q := range realFleet(t).Queues.All() {
		for _, w := range q.Warnings() {
			real[w.Code] = warningShape(w.Message)
		}
	}
	if len(real) < 3 {
		t.Fatalf("the real capture holds %d warning codes, want split-holders, mixed-recipes and deadlock", len(real))
	}
	checked := 0
	for _, q := range fleet().Queues.All() {
		for _, w := range q.Warnings() {
			want, ok := real[w.Code]
			if !ok {
				continue
			}
			checked++
			if got := warningShape(w.Message); got != want {
				t.Errorf("%s %s: fixture says %q,\nzkview writes %q", q.Path, w.Code, got, want)
			}
		}
	}
	if checked < 3 {
		t.Errorf("%d fixture warnings checked, want the split, the mixed recipes and the deadlock", checked)
	}
}

// warningShape is a warning's text with each lock node's name, number and
// recipe name replaced by a placeholder, a list of names by one.
func warningShape(msg string) string {
	words := strings.Fields(msg)
	for i, w := range words {
		core := strings.Trim(w, ",;:()")
		switch n, ok := ordering.ParseName(core); {
		case ok && n.Kind != ordering.KindOther:
			words[i] = strings.Replace(w, core, "NODE", 1)
		case strings.Trim(core, "0123456789") == "":
			words[i] = strings.Replace(w, core, "N", 1)
		case core == "curator" || core == "kazoo" || core == "curator-mutex" || core == "gozk" || core == "plain":
			words[i] = strings.Replace(w, core, "RECIPE", 1)
		}
	}
	// A list of names is one: a fixture names more nodes than a capture.
	return strings.ReplaceAll(strings.ReplaceAll(strings.Join(words, " "), "NODE, ", ""), "NODE → ", "")
}
