package main

import (
	"errors"
	"slices"
	"strings"
	"testing"
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
			if len(b) > 3 && strings.Contains(err.Error(), string(b)) {
				t.Fatalf("error repeats the input: %v", err)
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
