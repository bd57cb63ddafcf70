package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/memberview"
)

// TestAdminPort: --admin-port over the context's admin_port over 8080;
// a bad value is one line naming where it came from.
func TestAdminPort(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	yaml := "contexts:\n  shared:\n    servers: [h:2181, h:2182, h:2183]\n    admin_port: 8081,8082,8083\n" +
		"  one:\n    servers: [a:2181, b:2181]\n    admin_port: 9090\n" +
		"  bad:\n    servers: [a:2181, b:2181]\n    admin_port: 1,2,3\n  plain:\n    servers: [a:2181]\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ZKLOCK_CONFIG", cfg)
	t.Setenv("ZKLOCK_CONTEXT", "")
	tests := []struct {
		context, flag string
		want          string // AdminPorts.Addr of the last member
		err           string
	}{
		{"shared", "", "h:8083", ""},
		{"one", "", "b:9090", ""},
		{"one", "0", "", ""},
		{"plain", "", "a:8080", ""},
		{"bad", "", "", `context "bad": admin_port`},
		{"plain", "http", "", "--admin-port"},
	}
	for _, tt := range tests {
		g := Flags{Context: tt.context, AdminPort: tt.flag, SessionTimeout: 10 * time.Second, ConnectTimeout: 10 * time.Second}
		s, err := g.Resolve(func(string) bool { return false })
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, memberview.ErrAdminPort) {
				t.Errorf("%s %q: err %v, want %q", tt.context, tt.flag, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tt.context, tt.flag, err)
			continue
		}
		last := len(s.Servers) - 1
		if got := s.AdminPorts.Addr(last, s.Servers[last]); got != tt.want {
			t.Errorf("%s %q: last member's AdminServer %q, want %q", tt.context, tt.flag, got, tt.want)
		}
	}
}
