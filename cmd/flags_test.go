package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/config"
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
		registerConnFlags(cmd, g)
		registerCommandFlags(cmd, g, flagsConsole)
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

// TestFlagsOnlyWhereUsed: a flag that would do nothing on a command is not
// offered there: wherever it stands on the line, it is refused as an
// unknown flag with one line and exit 64, before connecting. The commands
// that use it take it: they go on to fail for another reason (the servers
// named are a closed port, the recording does not exist).
func TestFlagsOnlyWhereUsed(t *testing.T) {
	dead := "--servers=" + closedPort(t)
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	refused := []struct {
		flag string
		args []string
	}{
		{"--theme", []string{"ls", "--theme", "mono", "/x"}},
		{"--theme", []string{"--theme", "mono", "ls", "/x"}},
		{"--audit-log", []string{"sessions", "--audit-log", file("a"), "/x"}},
		{"--read-only", []string{"--read-only", "watch", "/x"}},
		{"--write", []string{"export", "--write", "--listen", "127.0.0.1:0", "/x"}},
		{"--theme", []string{"record", "-f", file("r.zkrec"), "--theme", "dark", "/x"}},
		{"--verbose", []string{"--verbose", "/x"}},
		{"--verbose", []string{"replay", "--verbose", file("none.zkrec")}},
		{"--read-only", []string{"replay", "--read-only", file("none.zkrec")}},
		{"--audit-log", []string{"version", "--audit-log", file("a")}},
	}
	for _, tc := range refused {
		_, errOut, code := runBinary(t, nil, append([]string{dead}, tc.args...)...)
		assertOneLineFailure(t, errOut, code, "unknown flag: "+tc.flag)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitUsage)
		}
	}
	// The line says where the flag belongs.
	_, errOut, _ := runBinary(t, nil, dead, "ls", "--theme", "mono", "/x")
	assertOneLineFailure(t, errOut, exitUsage, "unknown flag: --theme (a flag of the console, demo and replay)")
	if _, err := os.Stat(file("r.zkrec")); err == nil {
		t.Errorf("record refused for a flag still created its file")
	}

	taken := []struct {
		args []string
		want string // the error they reach instead
	}{
		{[]string{"--theme", "mono", "--read-only", "--write", "--log-file", file("l"), "--audit-log", file("a"), "/x"}, "needs a terminal"},
		{[]string{"demo", "--theme", "neon", "--read-only", "--write", "--log-file", file("l"), "--audit-log", file("a")}, `unknown theme "neon"`},
		{[]string{"replay", "--theme", "mono", "--log-file", file("l"), file("none.zkrec")}, "no such file"},
		{[]string{"run", "--write", "--audit-log", file("a"), "/x", "--", "true"}, "connection refused"},
		{[]string{"release", "--force", "--yes", "--write", "--audit-log", file("a"), "/x/lock-0000000001"}, "connection refused"},
		{[]string{"revoke", "--yes", "--read-only", "--audit-log", file("a"), "/x/lock-0000000001"}, "--read-only forbids"},
		{[]string{"doctor", "--read-only", "--write"}, "problem"},
		{[]string{"watch", "--log-file", file("l"), "/x"}, "connection refused"},
		{[]string{"export", "--log-file", file("l"), "--listen", "127.0.0.1:0", "/x"}, "connection refused"},
		{[]string{"record", "--log-file", file("l"), "-f", file("r.zkrec"), "/x"}, "connection refused"},
		{[]string{"doctor", "--log-file", file("l")}, "problem"},
		{[]string{"ls", "--log-file", file("l"), "/x"}, "connection refused"},
		{[]string{"sessions", "--log-file", file("l"), "/x"}, "connection refused"},
		{[]string{"release", "--log-file", file("l"), "--force", "--yes", "/x/lock-0000000001"}, "connection refused"},
	}
	for _, tc := range taken {
		_, errOut, code := runBinary(t, nil, append([]string{dead, "--connect-timeout", "5s"}, tc.args...)...)
		assertOneLineFailure(t, errOut, code, tc.want)
	}
}

// TestCanonicalizeFlag: --sasl-canonicalize-hostname is on by default
// (the Java client's default), alone it stays on, =false turns it off,
// and a bad value is refused.
func TestCanonicalizeFlag(t *testing.T) {
	tests := []struct {
		args      []string
		asWritten bool
		bad       bool
	}{
		{args: nil},
		{args: []string{"--sasl-canonicalize-hostname"}},
		{args: []string{"--sasl-canonicalize-hostname=true"}},
		{args: []string{"--sasl-canonicalize-hostname=false"}, asWritten: true},
		{args: []string{"--sasl-canonicalize-hostname=maybe"}, bad: true},
	}
	for _, tt := range tests {
		g := &config.Flags{}
		cmd := &cobra.Command{Use: "x"}
		registerConnFlags(cmd, g)
		err := cmd.ParseFlags(tt.args)
		if (err != nil) != tt.bad || (!tt.bad && g.SASLHostAsWritten != tt.asWritten) {
			t.Errorf("%v: host as written %v, err %v; want %v (bad: %v)", tt.args, g.SASLHostAsWritten, err, tt.asWritten, tt.bad)
		}
	}
	cmd := &cobra.Command{Use: "x"}
	registerConnFlags(cmd, &config.Flags{})
	if got := cmd.PersistentFlags().Lookup("sasl-canonicalize-hostname").DefValue; got != "true" {
		t.Errorf("--help shows the default %q, want true", got)
	}
}
