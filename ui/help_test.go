package ui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// TestHelpShowsEveryKey: the `?` dialog lists every key of the mode,
// whole (never cut with "…"), at every supported size, in the plain
// console, the demo, read-only, the sessions pane and a replay.
func TestHelpShowsEveryKey(t *testing.T) {
	modes := []struct {
		name string
		make func(w, h int) Console
	}{
		{"console", func(w, h int) Console { return newTest("dark", w, h) }},
		{"demo", func(w, h int) Console { return newTest("dark", w, h, withDemo(&fakeDemo{})) }},
		{"read-only", func(w, h int) Console { return newTest("dark", w, h, func(o *Options) { o.ReadOnly = true }) }},
		{"sessions", func(w, h int) Console { m, _ := press(newTest("dark", w, h), "w"); return m }},
	}
	for _, md := range modes {
		for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}} {
			m := md.make(sz[0], sz[1])
			groups := helpGroups(m.modeKeys(), m.opts.Replay != nil)
			m, _ = press(m, "?")
			view := ansi.Strip(m.View())
			checkFrame(t, view, sz[0], sz[1])
			// The dialog's own lines are never cut.
			d, ok := m.dialog.(*helpDialog)
			if !ok {
				t.Fatalf("%s: ? opened %T", md.name, m.dialog)
			}
			for _, line := range d.view(m.st, sz[0], sz[1]) {
				if l := ansi.Strip(line); strings.Contains(l, "…") {
					t.Errorf("%s %dx%d: a help line is cut: %q", md.name, sz[0], sz[1], l)
				}
			}
			for _, g := range groups {
				if !strings.Contains(view, g.title) {
					t.Errorf("%s %dx%d: help lacks the group %q:\n%s", md.name, sz[0], sz[1], g.title, view)
				}
				for _, k := range g.keys {
					h := k.Help()
					if !strings.Contains(view, h.Desc) {
						t.Errorf("%s %dx%d: help lacks %q (%s):\n%s", md.name, sz[0], sz[1], h.Desc, h.Key, view)
					}
				}
			}
			for _, must := range []string{"quit", "keys"} {
				if !strings.Contains(view, must) {
					t.Errorf("%s %dx%d: help lacks %q", md.name, sz[0], sz[1], must)
				}
			}
		}
	}
	// The demo's help has the presenter's keys, the console's has none.
	dm, pm := newTest("dark", 80, 24, withDemo(&fakeDemo{})), newTest("dark", 80, 24)
	demo, plain := helpGroups(dm.modeKeys(), false), helpGroups(pm.modeKeys(), false)
	if !hasGroup(demo, "Presenter") || hasGroup(plain, "Presenter") {
		t.Errorf("presenter's keys: demo %v, console %v", hasGroup(demo, "Presenter"), hasGroup(plain, "Presenter"))
	}
	rm := newTest("dark", 80, 24, func(o *Options) { o.ReadOnly = true })
	ro := helpGroups(rm.modeKeys(), false)
	if hasGroup(ro, "Act on locks") {
		t.Error("read-only help lists the actions")
	}
}

func hasGroup(gs []helpGroup, title string) bool {
	for _, g := range gs {
		if g.title == title {
			return true
		}
	}
	return false
}

// y is in the help, named for what it copies in each view.
func TestHelpListsCopy(t *testing.T) {
	m := newTest("dark", 80, 24)
	s, _ := press(m, "w")
	for _, tt := range []struct {
		m    Console
		want string
	}{{m, "copy path"}, {s, "copy session id"}} {
		found := false
		for _, g := range helpGroups(tt.m.modeKeys(), false) {
			for _, k := range g.keys {
				found = found || k.Help().Key == "y" && k.Help().Desc == tt.want
			}
		}
		if !found {
			t.Errorf("help lacks y %q", tt.want)
		}
	}
}

// TestHelpListsEveryBinding: every binding of KeyMap that the mode
// enables is in a group of the `?` dialog (W, waiting only, was not:
// the key that finds the stuck parents of a wide root, missing from
// the only place that names it).
func TestHelpListsEveryBinding(t *testing.T) {
	for name, m := range map[string]Console{
		"console": newTest("dark", 80, 24),
		"demo":    newTest("dark", 80, 24, withDemo(&fakeDemo{})),
	} {
		listed := map[string]bool{}
		for _, g := range helpGroups(m.modeKeys(), false) {
			for _, k := range g.keys {
				listed[k.Help().Key] = true
			}
		}
		keys := reflect.ValueOf(m.modeKeys())
		for i := range keys.NumField() {
			b, ok := keys.Field(i).Interface().(key.Binding)
			if !ok || !b.Enabled() || b.Help().Key == "" {
				continue
			}
			if !listed[b.Help().Key] {
				t.Errorf("%s: %s (%s %q) is not in the help", name, keys.Type().Field(i).Name, b.Help().Key, b.Help().Desc)
			}
		}
	}
}
