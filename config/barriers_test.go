package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBarriers: a context's barriers are read strictly, checked as
// paths, and handed to Settings.
func TestBarriers(t *testing.T) {
	for _, tt := range []struct {
		name, yaml string
		want       []string
		err        string // a substring of the error; "" for none
	}{
		{name: "named", yaml: "contexts:\n  prod:\n    servers: [zk1:2181]\n    barriers: [/jobs/start-gate, /etl/hold]\n",
			want: []string{"/jobs/start-gate", "/etl/hold"}},
		{name: "none", yaml: "contexts:\n  prod:\n    servers: [zk1:2181]\n"},
		{name: "bad path", yaml: "contexts:\n  prod:\n    barriers: [jobs/gate]\n", err: "barrier"},
		{name: "not a list", yaml: "contexts:\n  prod:\n    barriers: /jobs/gate\n", err: "cannot unmarshal"},
		{name: "misspelt", yaml: "contexts:\n  prod:\n    barrier: [/jobs/gate]\n", err: "field barrier not found"},
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
			if !slices.Equal(s.Barriers, tt.want) {
				t.Errorf("Barriers = %q, want %q", s.Barriers, tt.want)
			}
		})
	}
}
