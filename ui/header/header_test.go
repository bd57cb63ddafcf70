package header

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
)

// TestHeaderIdentity: the SASL identity is said beside TLS at 160 and 80
// columns, sanitized; none is said when there is none.
func TestHeaderIdentity(t *testing.T) {
	th, err := themes.Load("mono")
	if err != nil {
		t.Fatal(err)
	}
	st := th.Styles()
	now := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	conn := model.Conn{State: model.StateConnected, Server: "zk1:2281", Ensemble: []string{"zk1:2281", "zk2:2281", "zk3:2281"},
		Context: "prod", SessionID: 0x1234, TLS: true, HostnameVerified: true}
	cases := []struct {
		identity, want, not string
	}{
		{"", "", "sasl"},
		{"sasl alice", "TLS  sasl alice", ""},
		{"sasl alice@EXAMPLE.COM", "sasl alice@EXAMPLE.COM", ""},
		{"sasl ev\x1b]0;pwned\a\u202eil", "sasl ev", "\x1b"},
	}
	for _, tc := range cases {
		for _, w := range []int{160, 80} {
			raw := View(&st, "zklock", tc.identity, &model.Snapshot{Conn: conn}, 0, nil, false, w, now)
			got := ansi.Strip(raw)
			if tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("identity %q width %d: %q lacks %q", tc.identity, w, got, tc.want)
			}
			if tc.not != "" && strings.Contains(got, tc.not) {
				t.Errorf("identity %q width %d: %q has %q", tc.identity, w, got, tc.not)
			}
			if strings.Contains(raw, "pwned\a") || strings.Contains(raw, "\u202e") {
				t.Errorf("identity %q width %d: control sequences reach the terminal: %q", tc.identity, w, raw)
			}
			if n := ansi.StringWidth(got); n > w {
				t.Errorf("identity %q width %d: header %d cells wide", tc.identity, w, n)
			}
		}
	}
}

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
		z := NewestCzxid(tc.snap)
		for _, w := range []int{160, 80} {
			got := ansi.Strip(View(&st, "zklock", "", tc.snap, z, nil, false, w, now))
			if has := strings.Contains(got, "zxid"); has != (tc.want != "") || !strings.Contains(got, tc.want) {
				t.Errorf("newest czxid %#x width %d: %q, want %q", z, w, got, tc.want)
			}
		}
	}
}
