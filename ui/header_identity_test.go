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
			raw := header.View(&st, "zklock", tc.identity, &model.Snapshot{Conn: conn}, 0, nil, false, w, now)
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

// TestHeaderIdentityGolden: the whole console at 160x48 over TLS as a
// Kerberos principal.
func TestHeaderIdentityGolden(t *testing.T) {
	name := "sasl-identity-dark-160x48"
	t.Run(name, func(t *testing.T) {
		m := newTest("dark", 160, 48, func(o *Options) { o.Identity = "sasl alice@EXAMPLE.COM" })
		snap := fleet()
		snap.Conn.TLS, snap.Conn.HostnameVerified = true, true
		m = step(m, updateMsg{model.Update{Snapshot: snap}})
		got := ansi.Strip(m.View())
		checkFrame(t, got, 160, 48)
		if !strings.Contains(strings.SplitN(got, "\n", 2)[0], "TLS  sasl alice@EXAMPLE.COM") {
			t.Errorf("header lacks the identity beside TLS: %q", strings.SplitN(got, "\n", 2)[0])
		}
		matchGolden(t, name, got)
	})
}
