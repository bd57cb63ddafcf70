package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/header"
)

// TestHeaderZxid: the header warns when the newest lock node's zxid is
// past 90% of its counter, at 80 cells too, and says nothing below.
func TestHeaderZxid(t *testing.T) {
	th, err := themes.Load("mono")
	if err != nil {
		t.Fatal(err)
	}
	st := th.Styles()
	now := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	snapOf := func(czxids ...int64) *model.Snapshot {
		s := &model.Snapshot{Conn: model.Conn{State: model.StateConnected, Server: "zk1:2181", Ensemble: []string{"zk1:2181"}, SessionID: 0x1234}}
		for _, z := range czxids {
			s.Queues = model.QueuesOf(append(s.Queues.Slice(), model.Queue{Path: "/q", Nodes: model.NodesOf(model.Node{Name: "a", Czxid: 1}, model.Node{Name: "b", Czxid: z})})...)
		}
		return s
	}
	cases := []struct {
		snap *model.Snapshot
		want string
	}{
		{snapOf(0x4_00000010, 0x4_f3333333), "zxid counter at 95% of its rollover"},
		{snapOf(0x4_00000010, 0x4_e0000000), ""},
		{snapOf(0x3_f3333333, 0x4_00000010), ""}, // the newer epoch began again
		{snapOf(), ""},
	}
	for _, tc := range cases {
		z := header.NewestCzxid(tc.snap)
		for _, w := range []int{160, 80} {
			got := ansi.Strip(header.View(&st, "zklock", "", tc.snap, z, nil, false, w, now))
			if has := strings.Contains(got, "zxid"); has != (tc.want != "") || !strings.Contains(got, tc.want) {
				t.Errorf("newest czxid %#x width %d: %q, want %q", z, w, got, tc.want)
			}
		}
	}
}

// TestConsoleZxidWarning: a snapshot whose newest lock node is near the
// rollover puts the warning in the console's first line.
func TestConsoleZxidWarning(t *testing.T) {
	m := newTest("mono", 160, 30)
	if first := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]; strings.Contains(first, "zxid") {
		t.Fatalf("the fleet is far from the rollover: %q", first)
	}
	snap := *fleet()
	snap.Queues = model.QueuesOf(append(snap.Queues.Slice(), model.Queue{Path: "/locks/zz", State: model.PathPresent,
		Nodes: model.NodesOf(model.Node{Name: "lock-0000000001", Czxid: 0x9_f0000000})})...)
	m = step(m, updateMsg{model.Update{Snapshot: &snap}})
	if first := strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0]; !strings.Contains(first, "zxid counter at 94%") {
		t.Errorf("header %q lacks the zxid warning", first)
	}
}
