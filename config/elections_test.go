package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestElections: a context's elections are read strictly, checked as
// paths, and handed to Settings.
func TestElections(t *testing.T) {
	for _, tt := range []struct {
		name, yaml string
		want       []string
		err        string // a substring of the error; "" for none
	}{
		{name: "named", yaml: "contexts:\n  prod:\n    servers: [zk1:2181]\n    elections: [/svc/leader, /jobs/primary]\n",
			want: []string{"/svc/leader", "/jobs/primary"}},
		{name: "none", yaml: "contexts:\n  prod:\n    servers: [zk1:2181]\n"},
		{name: "bad path", yaml: "contexts:\n  prod:\n    elections: [svc/leader]\n", err: "election"},
		{name: "trailing slash", yaml: "contexts:\n  prod:\n    elections: [/svc/leader/]\n", err: "election"},
		{name: "not a list", yaml: "contexts:\n  prod:\n    elections: /svc/leader\n", err: "cannot unmarshal"},
		{name: "misspelt", yaml: "contexts:\n  prod:\n    election: [/svc/leader]\n", err: "field election not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(p, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("ZKLOCK_CONFIG", p)
			g := Flags{Context: "prod", SessionTimeout: DefaultSessionTimeout, ConnectTimeout: DefaultConnectTimeout}
			s, err := g.Resolve(func(string) bool { return false })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Resolve: %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Elections, tt.want) {
				t.Errorf("Elections = %q, want %q", s.Elections, tt.want)
			}
		})
	}
}
