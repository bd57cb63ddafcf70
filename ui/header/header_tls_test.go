package header

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
)

// TestHeaderTLS: a TLS connection is said in the header, and one that
// does not verify the servers' names is warned of, even on a narrow
// terminal; a plain one says nothing.
func TestHeaderTLS(t *testing.T) {
	th, err := themes.Load("mono")
	if err != nil {
		t.Fatal(err)
	}
	st := th.Styles()
	now := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	conn := model.Conn{State: model.StateConnected, Server: "zk1:2281", Ensemble: []string{"zk1:2281"}, Context: "prod", SessionID: 0x1234}
	cases := []struct {
		tls, verified bool
		want, not     string
	}{
		{false, false, "", "TLS"},
		{true, true, "TLS", "NOT verified"},
		{true, false, "TLS: hostname NOT verified", ""},
	}
	for _, tc := range cases {
		c := conn
		c.TLS, c.HostnameVerified = tc.tls, tc.verified
		for _, w := range []int{160, 80} {
			got := ansi.Strip(View(&st, "zklock", "", &model.Snapshot{Conn: c}, 0, nil, false, w, now))
			if tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("TLS %v verified %v width %d: %q lacks %q", tc.tls, tc.verified, w, got, tc.want)
			}
			if tc.not != "" && strings.Contains(got, tc.not) {
				t.Errorf("TLS %v verified %v width %d: %q has %q", tc.tls, tc.verified, w, got, tc.not)
			}
		}
	}
}
