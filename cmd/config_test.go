package cmd

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestParseServers(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		chroot  string
		wantErr bool
	}{
		{in: "127.0.0.1:2181", want: []string{"127.0.0.1:2181"}},
		{in: "zk1:2181,zk2:2182, zk3", want: []string{"zk1:2181", "zk2:2182", "zk3:2181"}},
		{in: "[::1]:2181,[fe80::1]", want: []string{"[::1]:2181", "[fe80::1]:2181"}},
		{in: "zk1:2181,zk2:2181/app/locks", want: []string{"zk1:2181", "zk2:2181"}, chroot: "/app/locks"},
		{in: "", wantErr: true},
		{in: ",", wantErr: true},
		{in: "zk1:2181,,zk2", wantErr: true},
		{in: "zk1:0", wantErr: true},
		{in: "zk1:65536", wantErr: true},
		{in: "zk1:http", wantErr: true},
		{in: "zk 1:2181", wantErr: true},
		{in: "::1:2181", wantErr: true},
		{in: "zk1:2181/", wantErr: true},
		{in: "zk1:2181/a//b", wantErr: true},
		{in: "-zk:2181", wantErr: true},
	}
	for _, tt := range tests {
		got, chroot, err := parseServers(tt.in)
		if tt.wantErr {
			if err == nil || !errors.Is(err, errBadServers) {
				t.Errorf("parseServers(%q) = %v, %v; want errBadServers", tt.in, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) || chroot != tt.chroot {
			t.Errorf("parseServers(%q) = %v %q %v; want %v %q", tt.in, got, chroot, err, tt.want, tt.chroot)
		}
	}
}

func TestValidatePath(t *testing.T) {
	good := []string{"/", "/locks", "/locks/job-1", "/a b/ü", "/zookeeper"}
	bad := []string{"", "locks", "/locks/", "/a//b", "/a/./b", "/a/..", "/a\x00b", "/a\x1bb", "/a\u0085"}
	for _, p := range good {
		if err := validatePath(p); err != nil {
			t.Errorf("validatePath(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range bad {
		if err := validatePath(p); !errors.Is(err, errBadPath) {
			t.Errorf("validatePath(%q) = %v, want errBadPath", p, err)
		}
	}
}

func TestParseAuth(t *testing.T) {
	c, err := parseAuth([]byte("# ops creds\n\nalice:s3cr:et\n"))
	if err != nil || c.user != "alice" || c.password != "s3cr:et" {
		t.Fatalf("parseAuth = %+v, %v", c, err)
	}
	if c, err := parseAuth([]byte("digest:bob:pw")); err != nil || c.user != "bob" {
		t.Fatalf("digest prefix: %+v %v", c, err)
	}
	for _, in := range []string{"", "# only a comment", "nouser", ":pw", "user:", "a:b\nc:d", "a:b\x1b[2J"} {
		_, err := parseAuth([]byte(in))
		if !errors.Is(err, errBadAuth) {
			t.Errorf("parseAuth(%q) = %v, want errBadAuth", in, err)
		}
		if err != nil && strings.Contains(err.Error(), "b\x1b") {
			t.Errorf("parseAuth(%q) leaks the secret into its error", in)
		}
	}
}

// FuzzParseServers: never panics; what it accepts is non-empty, each entry
// host:port with a valid port, and the chroot is a valid path.
func FuzzParseServers(f *testing.F) {
	for _, s := range []string{"127.0.0.1:2181", "a,b:1/x", "[::1]:2181", "", "::", "[", "a:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		servers, chroot, err := parseServers(s)
		if err != nil {
			if len(servers) != 0 {
				t.Fatalf("error with servers %v", servers)
			}
			return
		}
		if len(servers) == 0 {
			t.Fatal("accepted an empty list")
		}
		for _, sv := range servers {
			if _, _, err := parseServers(sv); err != nil {
				t.Fatalf("accepted entry %q does not re-parse: %v", sv, err)
			}
		}
		if chroot != "" && validatePath(chroot) != nil {
			t.Fatalf("accepted bad chroot %q", chroot)
		}
	})
}

var fixedAuthErrors = []string{"more than one credentials line", "want user:password",
	"empty user or password", "control character", "no user:password line"}

// FuzzParseAuth: never panics, never accepts an empty user or password or a
// control character, and never puts the input into its error text.
func FuzzParseAuth(f *testing.F) {
	for _, s := range []string{"a:b", "#x\na:b", "digest:a:b:c", "", "\n\n", "a:b\nc:d"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseAuth(b)
		if err != nil {
			if c != nil {
				t.Fatal("credentials with an error")
			}
			// The file holds a password: an error is one of the fixed
			// messages, so nothing of the input can leak through it
			// (checking for substrings of the input would trip on
			// inputs such as "user" that the fixed text itself holds).
			if !slices.Contains(fixedAuthErrors, strings.TrimPrefix(err.Error(), errBadAuth.Error()+": ")) {
				t.Fatalf("error not one of the fixed messages: %v", err)
			}
			return
		}
		if c.user == "" || c.password == "" {
			t.Fatalf("accepted %+v", c)
		}
		for _, r := range c.user + c.password {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("accepted control character in %q", c.user)
			}
		}
	})
}

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

	resolve := func(args ...string) (*settings, error) {
		g := &globalFlags{}
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		g.register(cmd)
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		return g.resolve(cmd)
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
		if got := strings.Join(s.servers, ","); got != tt.servers || s.readOnly != tt.readOnly || s.readOnlyContext != tt.fromContext ||
			s.theme != tt.theme || strings.Join(s.roots, ",") != tt.roots {
			t.Errorf("%v: servers %s readOnly %v/%v theme %q roots %v", tt.args, got, s.readOnly, s.readOnlyContext, s.theme, s.roots)
		}
		err = s.requireWrite("act")
		if (err != nil) != tt.readOnly || (err != nil && !errors.Is(err, errReadOnly)) {
			t.Errorf("%v: requireWrite = %v", tt.args, err)
		}
	}
	if _, err := resolve("--context", "bad"); err == nil || !strings.Contains(err.Error(), `unknown theme "neon"`) {
		t.Errorf("a context's unknown theme: %v", err)
	}
}
