package cmd

import (
	"errors"
	"os"
	"strings"
	"testing"
	"zklock/config"

	"github.com/spf13/cobra"
)

// TestResolvePrecedence: flags, then the context, then the environment,
// then defaults; a read-only context is lifted by --write only.
func TestResolvePrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := dir + "/config.yaml"
	if err := os.WriteFile(cfg, []byte("contexts:\n  prod:\n    servers: [zk1:2181]\n    read_only: true\n    theme: light\n    roots: [/locks]\n  bad:\n    servers: [zk9]\n    theme: neon\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ZKLOCK_CONFIG", cfg)
	t.Setenv("ZK_SERVERS", "envzk:2181")
	t.Setenv("ZK_AUTH", "")

	resolve := func(args ...string) (*config.Settings, error) {
		g := &config.Flags{}
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		registerFlags(cmd, g)
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		return g.Resolve(cmd.Flags().Changed)
	}
	tests := []struct {
		args         []string
		servers      string
		readOnly     bool
		fromContext  bool
		theme, roots string
	}{
		{nil, "envzk:2181", false, false, "", ""},
		{[]string{"--servers", "flagzk"}, "flagzk:2181", false, false, "", ""},
		{[]string{"--context", "prod"}, "zk1:2181", true, true, "light", "/locks"},
		{[]string{"--context", "prod", "--servers", "flagzk:1"}, "flagzk:1", true, true, "light", "/locks"},
		{[]string{"--context", "prod", "--write"}, "zk1:2181", false, false, "light", "/locks"},
		{[]string{"--context", "prod", "--read-only", "--write"}, "zk1:2181", true, false, "light", "/locks"},
		{[]string{"--context", "prod", "--theme", "mono"}, "zk1:2181", true, true, "mono", "/locks"},
	}
	for _, tt := range tests {
		s, err := resolve(tt.args...)
		if err != nil {
			t.Errorf("%v: %v", tt.args, err)
			continue
		}
		if got := strings.Join(s.Servers, ","); got != tt.servers || s.ReadOnly != tt.readOnly || s.ReadOnlyContext != tt.fromContext ||
			s.Theme != tt.theme || strings.Join(s.Roots, ",") != tt.roots {
			t.Errorf("%v: servers %s readOnly %v/%v theme %q roots %v", tt.args, got, s.ReadOnly, s.ReadOnlyContext, s.Theme, s.Roots)
		}
		err = s.RequireWrite("act")
		if (err != nil) != tt.readOnly || (err != nil && !errors.Is(err, config.ErrReadOnly)) {
			t.Errorf("%v: requireWrite = %v", tt.args, err)
		}
	}
	if _, err := resolve("--context", "bad"); err == nil || !strings.Contains(err.Error(), `unknown theme "neon"`) {
		t.Errorf("a context's unknown theme: %v", err)
	}
}
