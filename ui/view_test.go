package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/queuepane"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/zklock/zklock/themes"
)

func step(m Console, msg tea.Msg) Console {
	next, _ := m.Update(msg)
	return next.(Console)
}

func sizeMsg(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// keys turns "tab", "ctrl+c", "enter", "esc" or runes into key messages.
func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "ctrl+r":
		return tea.KeyMsg{Type: tea.KeyCtrlR}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

var namedKeys = map[string]bool{"tab": true, "enter": true, "esc": true, "down": true, "up": true, "ctrl+c": true, "backspace": true, "pgdown": true, "ctrl+r": true}

// press sends keys one by one, each rune string as typed; it returns the
// model and the last command.
func press(m Console, keys ...string) (Console, tea.Cmd) {
	var cmd tea.Cmd
	for _, k := range keys {
		var next tea.Model
		if len(k) > 1 && !namedKeys[k] {
			for _, r := range k {
				next, cmd = m.Update(keyMsg(string(r)))
				m = next.(Console)
			}
			continue
		}
		next, cmd = m.Update(keyMsg(k))
		m = next.(Console)
	}
	return m, cmd
}

func selectPath(m Console, path string) Console {
	m.list.Selected = path
	m.list.Refresh()
	m.syncQueue()
	return m
}

// scenarios are the screens an on-call engineer meets, as golden files.
var scenarios = []struct {
	name  string
	setup func(Console) Console
}{
	{"curator-mutex", func(m Console) Console {
		m = step(m, ownMsg{[]OwnLock{{Path: "/locks/job-a", Node: curatorName("c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e6f", 44),
			State: OwnQueued, Position: 4, Watching: curatorName("0b5c8d2e-1f3a-4b6c-9d8e-7f6a5b4c3d2e", 43), Since: ago(9 * time.Second)}}})
		return selectPath(m, "/locks/job-a")
	}},
	{"kazoo-rw", func(m Console) Console {
		m = step(m, ownMsg{[]OwnLock{{Path: "/locks/orders", Node: kazooName("0f1e2d3c4b5a69788796a5b4c3d2e1f0", "rlock", 8),
			State: OwnHolding, Since: ago(4*time.Minute + 2*time.Second)}}})
		m = selectPath(m, "/locks/orders")
		m, _ = press(m, "tab")
		return m
	}},
	{"split-holders", func(m Console) Console { return selectPath(m, "/locks/shared-ledger") }},
	{"deadlock", func(m Console) Console {
		m = selectPath(m, "/locks/inventory")
		m, _ = press(m, "tab", "down")
		return m
	}},
	{"absent", func(m Console) Console { return selectPath(m, "/locks/nope") }},
	{"stale", func(m Console) Console {
		s := *fleet()
		s.Conn.State, s.Conn.Since, s.Stale = model.StateDisconnected, ago(14*time.Second), true
		m = step(m, updateMsg{model.Update{Snapshot: &s, Changes: []model.Change{{At: ago(14 * time.Second), Kind: model.ChangeConn, Said: "disconnected from zk1.prod:2181"}}}})
		m = step(m, ownMsg{[]OwnLock{{Path: "/locks/job-a", Node: curatorName("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 41), State: OwnLost, Since: ago(time.Minute), Err: "session expired"}}})
		return selectPath(m, "/locks/job-a")
	}},
	{"force-dialog", func(m Console) Console {
		m = selectPath(m, "/locks/job-a")
		m, _ = press(m, "tab", "f", "4")
		return m
	}},
	{"narration-filter", func(m Console) Console {
		m, _ = press(m, "n", "/", "ord")
		return m
	}},
	{"help", func(m Console) Console {
		m, _ = press(m, "?")
		return m
	}},
	{"help-demo", func(m Console) Console {
		m = newTest(m.opts.Theme.Name, m.width, m.height, withDemo(&fakeDemo{}))
		m, _ = press(m, "?")
		return m
	}},
	{"demo-paused", func(m Console) Console {
		// The demo's console: presenter's keys, narration on, paused.
		m = newTest(m.opts.Theme.Name, m.width, m.height, withDemo(&fakeDemo{}))
		m = selectPath(m, "/locks/job-a")
		return step(m, demoMsg{verb: "pause", text: "contenders paused: holders keep their locks (space: one handoff, p: resume)"})
	}},
}

var sizes = [][2]int{{80, 24}, {160, 48}}

func TestGolden(t *testing.T) {
	for _, sc := range scenarios {
		for _, sz := range sizes {
			name := fmt.Sprintf("%s-%dx%d", sc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				layoutGolden(t, name, sz[0], sz[1], func(theme string) Console { return sc.setup(newTest(theme, sz[0], sz[1])) })
			})
		}
	}
}

// layoutGolden compares the layout drawn by make in each theme (colour
// stripped) with the golden name: one golden a layout, as every theme
// draws the same cells; colours are TestThemeColours' to check.
func layoutGolden(t *testing.T, name string, w, h int, make func(theme string) Console) {
	t.Helper()
	want := ansi.Strip(make(themes.Default).View())
	checkFrame(t, want, w, h)
	matchGolden(t, name, want)
	for _, theme := range themes.Names() {
		if got := ansi.Strip(make(theme).View()); got != want {
			t.Errorf("%s draws another layout than %s:\n%s", theme, themes.Default, got)
		}
	}
}

func TestResizeKeepsFrame(t *testing.T) {
	widths := []int{60, 70, 80, 81, 99, 100, 119, 133, 160, 161, 200, 250}
	heights := []int{16, 20, 24, 25, 29, 30, 39, 40, 48, 60}
	for _, sc := range scenarios {
		m := sc.setup(newTest("dark", 80, 24))
		for _, w := range widths {
			for _, h := range heights {
				m = step(m, sizeMsg(w, h))
				checkFrame(t, ansi.Strip(m.View()), w, h)
			}
		}
		// Tiny terminals get a message, still exactly the screen's size.
		for _, sz := range [][2]int{{59, 24}, {80, 15}, {20, 5}, {1, 1}} {
			m = step(m, sizeMsg(sz[0], sz[1]))
			checkFrame(t, ansi.Strip(m.View()), sz[0], sz[1])
		}
	}
}

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// colorParams finds SGR parameters that set a color.
func colorParams(view string) []string {
	var found []string
	for _, m := range sgr.FindAllStringSubmatch(view, -1) {
		for _, p := range strings.Split(m[1], ";") {
			var n int
			if _, err := fmt.Sscanf(p, "%d", &n); err != nil {
				continue
			}
			if n >= 30 && n <= 49 || n >= 90 && n <= 107 {
				found = append(found, m[0])
			}
		}
	}
	return found
}

func withProfile(t *testing.T, p termenv.Profile) {
	t.Helper()
	old := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(p)
	t.Cleanup(func() { lipgloss.SetColorProfile(old) })
}

// NO_COLOR means mono, and mono draws no color even on a true-color
// terminal: only bold, underline and reverse.
func TestMonoHasNoColorEscapes(t *testing.T) {
	withProfile(t, termenv.TrueColor)
	th, err := themes.LoadEnv("dark", func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	})
	if err != nil || th.Name != themes.Mono {
		t.Fatalf("NO_COLOR=1 gave %q, %v; want mono", th.Name, err)
	}
	for _, sc := range scenarios {
		m := sc.setup(newTest("dark", 160, 48, func(o *Options) { o.Theme = th }))
		view := m.View()
		if c := colorParams(view); len(c) > 0 {
			t.Errorf("%s: mono view has color escapes %q", sc.name, c[:min(len(c), 5)])
		}
		if !sgr.MatchString(view) {
			t.Errorf("%s: mono view has no styling at all; bold/reverse expected", sc.name)
		}
	}
	// The same screen in the default theme does use color: the check above
	// would catch it.
	m := newTest("dark", 160, 48)
	if len(colorParams(m.View())) == 0 {
		t.Error("dark theme drew no color with a true-color profile")
	}
}

// Names and data full of terminal escapes, bidi overrides and invalid UTF-8
// reach the screen escaped: the only escape sequences in the raw view are
// the console's own SGR styling.
func TestHostileNamesAndData(t *testing.T) {
	withProfile(t, termenv.TrueColor)
	evil := "\x1b]52;c;cm0gLXJmIH4=\a\x1b[2J\x1b]0;pwned\a\u202eevil\x9b31m\xff"
	q := curatorJob()
	q.Path = "/locks/" + evil
	q.Nodes.At(0).SetData([]byte(evil))
	q.Nodes.At(0).DataLen = int32(len(evil))
	q.Nodes.At(1).Name = "_c_" + evil + "-lock-0000000042"
	q.Nodes.At(1).SetClient(evil)
	q.SetOther([]string{evil})
	q.SetWarnings([]model.Warning{{Code: model.WarnHerd, Message: evil, Nodes: []string{evil}}})
	snap := fleet()
	snap.Queues = model.QueuesOf(append(snap.Queues.Slice(), q)...)
	snap.Conn.Context = evil
	snap.Conn.Ensemble = []string{evil}
	m := newTest("dark", 160, 48, func(o *Options) { o.Title = evil })
	m = step(m, updateMsg{model.Update{Snapshot: snap, Changes: []model.Change{{At: t0, Kind: model.ChangeInfo, Path: q.Path, Node: model.Node{Name: evil}, Note: evil}}}})
	m = step(m, ownMsg{[]OwnLock{{Path: q.Path, Node: evil, State: OwnLost, Err: evil}}})
	m = step(m, actionMsg{verb: "take", path: q.Path, err: fmt.Errorf("zk: %s", evil)})
	m = selectPath(m, q.Path)
	for _, extra := range [][]string{nil, {"tab", "f"}, {"esc", "enter"}} {
		m, _ = press(m, extra...)
		view := m.View()
		rest := sgr.ReplaceAllString(view, "")
		if i := strings.IndexAny(rest, "\x1b\x07\x9b\u202e"); i >= 0 {
			t.Fatalf("after %v: raw control or bidi character in view near %q", extra, rest[max(i-20, 0):min(i+20, len(rest))])
		}
		for _, r := range rest {
			if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Fatalf("after %v: control character %U in view", extra, r)
			}
		}
		if !strings.Contains(ansi.Strip(view), `\x1b]52`) {
			t.Errorf("after %v: the escaped form is not shown", extra)
		}
		checkFrame(t, ansi.Strip(view), 160, 48)
	}
}

func TestShortName(t *testing.T) {
	tests := map[string]string{
		curatorName("3f2a1b9c-5d4e-4f60-8a7b-1c2d3e4f5a6b", 41):      "_c_3f2a1b9c…-lock-",
		kazooName("a1b2c3d4e5f60718293a4b5c6d7e8f90", "rlock", 7):    "a1b2c3d4…__rlock__",
		"_c_0123456789abcdef0123456789abcdef-lock-0000000003":        "_c_01234567…-lock-",
		"_c_1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d-__WRIT__0000000002": "_c_1a2b3c4d…-__WRIT__",
		"lock-0000000007": "lock-",
		"leases":          "leases",
	}
	for in, want := range tests {
		if got := queuepane.ShortName(in); got != want {
			t.Errorf("shortName(%q) = %q, want %q", in, got, want)
		}
	}
}

// The own node is impossible to miss: marked in the queue and named, with
// its state, in the status bar.
func TestOwnNodeState(t *testing.T) {
	n44 := curatorName("c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e6f", 44)
	n43 := curatorName("0b5c8d2e-1f3a-4b6c-9d8e-7f6a5b4c3d2e", 43)
	tests := []struct {
		own  OwnLock
		want string
	}{
		{OwnLock{Path: "/locks/job-a", Node: n44, State: OwnQueued, Position: 4, Watching: n43}, "★ /locks/job-a  waiting at 4 watching #43"},
		{OwnLock{Path: "/locks/job-a", Node: n44, State: OwnHolding, Since: ago(90 * time.Second)}, "HOLDING since 03:10:34 (1m30s)"},
		{OwnLock{Path: "/locks/job-a", Node: n44, State: OwnSuspended}, "YOUR LOCK IS SUSPENDED"},
		{OwnLock{Path: "/locks/job-a", Node: n44, State: OwnLost, Err: "node deleted"}, "YOUR LOCK IS LOST: you no longer hold it (node deleted)"},
	}
	for _, tt := range tests {
		m := newTest("dark", 160, 48)
		m = step(m, ownMsg{[]OwnLock{tt.own}})
		m = selectPath(m, "/locks/job-a")
		view := ansi.Strip(m.View())
		if !strings.Contains(view, tt.want) {
			t.Errorf("%v: view lacks %q:\n%s", tt.own.State, tt.want, view)
		}
	}
}

func TestRoleAndKindColumns(t *testing.T) {
	m := selectPath(newTest("dark", 160, 48), "/locks/orders")
	view := ansi.Strip(m.View())
	for _, want := range []string{"KIND", "read", "write", "└─▶ watches #8 ✓ verified", "└─▶ watches #9 ? inferred"} {
		if !strings.Contains(view, want) {
			t.Errorf("rw queue view lacks %q", want)
		}
	}
	m = selectPath(m, "/locks/inventory")
	view = ansi.Strip(m.View())
	for _, want := range []string{"DEADLOCK: #21 ⇄ #22", "⟲ DEADLOCK", "✗ MISSING", "MISSING WATCH on #23"} {
		if !strings.Contains(view, want) {
			t.Errorf("deadlock queue view lacks %q", want)
		}
	}
}

// TestThemeColours: what the layout goldens strip, for one layout (a
// queue with a holder, waiters, the own node and the event log): each
// theme's escape sequences as a golden of its own, and no two themes
// alike. `-update` rewrites them; review the colours in a terminal
// (cat the file).
func TestThemeColours(t *testing.T) {
	withProfile(t, termenv.TrueColor)
	dark := lipgloss.HasDarkBackground()
	lipgloss.SetHasDarkBackground(true)
	t.Cleanup(func() { lipgloss.SetHasDarkBackground(dark) })
	seen := map[string]string{}
	for _, theme := range themes.Names() {
		name := "curator-mutex-" + theme + "-80x24"
		t.Run(name, func(t *testing.T) {
			view := scenarios[0].setup(newTest(theme, 80, 24)).View()
			if other, ok := seen[view]; ok {
				t.Errorf("%s draws the colours of %s", theme, other)
			}
			seen[view] = theme
			matchGolden(t, name, view)
		})
	}
}
