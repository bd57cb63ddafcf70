package memberview_test

import (
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zklock/zklock/memberview"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// TestProbe: doctor's view of three members as deployed in the field:
// the default whitelist with the AdminServer, the default whitelist
// without it (Debian's service: nothing answers), and every word allowed.
func TestProbe(t *testing.T) {
	tests := []struct {
		name    string
		opts    sandbox.Options
		sources []memberview.Source
		refused []string // commands among the refusals
		fix     string   // in the fix line, "" for none
	}{
		{"default whitelist with the AdminServer", sandbox.Options{FourLetterWords: sandbox.ZooKeeperDefaultWords,
			AdminServer: &sandbox.AdminOptions{}}, []memberview.Source{memberview.Admin}, []string{"cons", "wchc", "dump"}, ""},
		{"default whitelist, no AdminServer", sandbox.Options{FourLetterWords: sandbox.ZooKeeperDefaultWords},
			nil, []string{"connections", "cons", "wchc"}, "turn on the AdminServer"},
		{"every word allowed", sandbox.Options{}, []memberview.Source{memberview.FourLetter}, []string{"connections"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := sandboxtest.Start(t, tt.opts)
			m := c.Members()[0]
			port := strconv.Itoa(closedPort(t))
			if _, p, err := net.SplitHostPort(m.AdminAddr()); err == nil {
				port = p
			}
			ports, err := memberview.ParseAdminPorts(port, 1)
			if err != nil {
				t.Fatal(err)
			}
			d := memberview.Probe(t.Context(), memberview.Config{Members: c.Servers(), AdminPorts: ports})
			if len(d) != 1 || !slices.Equal(d[0].Sources, tt.sources) {
				t.Fatalf("Probe = %+v, want sources %v", d, tt.sources)
			}
			for _, cmd := range tt.refused {
				if !slices.ContainsFunc(d[0].Refused, func(r memberview.Refusal) bool { return r.Command == cmd }) {
					t.Errorf("refusals %v lack %s", d[0].Refused, cmd)
				}
			}
			if (tt.fix == "") != (d[0].Fix == "") || !strings.Contains(d[0].Fix, tt.fix) {
				t.Errorf("Fix = %q, want %q in it", d[0].Fix, tt.fix)
			}
		})
	}
}
