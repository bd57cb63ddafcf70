package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNamedPaths: the paths a context names as elections or barriers are
// read strictly, checked as paths, and handed to Settings.
func TestNamedPaths(t *testing.T) {
	for _, key := range []struct {
		name, one string // the list's key and its misspelling
		got       func(*Settings) []string
	}{
		{"elections", "election", func(s *Settings) []string { return s.Elections }},
		{"barriers", "barrier", func(s *Settings) []string { return s.Barriers }},
	} {
		for _, tt := range []struct {
			name, yaml string
			want       []string
			err        string // a substring of the error; "" for none
		}{
			{name: "named", yaml: "contexts:\n  prod:\n    servers: [zk1:2181]\n    " + key.name + ": [/svc/leader, /jobs/primary]\n",
				want: []string{"/svc/leader", "/jobs/primary"}},
			{name: "none", yaml: "contexts:\n  prod:\n    servers: [zk1:2181]\n"},
			{name: "bad path", yaml: "contexts:\n  prod:\n    " + key.name + ": [svc/leader]\n", err: key.one},
			{name: "trailing slash", yaml: "contexts:\n  prod:\n    " + key.name + ": [/svc/leader/]\n", err: key.one},
			{name: "not a list", yaml: "contexts:\n  prod:\n    " + key.name + ": /svc/leader\n", err: "cannot unmarshal"},
			{name: "misspelt", yaml: "contexts:\n  prod:\n    " + key.one + ": [/svc/leader]\n", err: "field " + key.one + " not found"},
		} {
			t.Run(key.name+"/"+tt.name, func(t *testing.T) {
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
				if got := key.got(s); !slices.Equal(got, tt.want) {
					t.Errorf("%s = %q, want %q", key.name, got, tt.want)
				}
			})
		}
	}
}
