package config

import (
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zklock/zklock/lockops"
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
		got, chroot, err := ParseServers(tt.in)
		if tt.wantErr {
			if err == nil || !errors.Is(err, ErrBadServers) {
				t.Errorf("parseServers(%q) = %v, %v; want errBadServers", tt.in, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) || chroot != tt.chroot {
			t.Errorf("parseServers(%q) = %v %q %v; want %v %q", tt.in, got, chroot, err, tt.want, tt.chroot)
		}
	}
}

func TestParseAuth(t *testing.T) {
	c, err := ParseAuth([]byte("# ops creds\n\nalice:s3cr:et\n"))
	if err != nil || c.User != "alice" || c.Password != "s3cr:et" {
		t.Fatalf("parseAuth = %+v, %v", c, err)
	}
	if c, err := ParseAuth([]byte("digest:bob:pw")); err != nil || c.User != "bob" {
		t.Fatalf("digest prefix: %+v %v", c, err)
	}
	for _, in := range []string{"", "# only a comment", "nouser", ":pw", "user:", "a:b\nc:d", "a:b\x1b[2J"} {
		_, err := ParseAuth([]byte(in))
		if !errors.Is(err, ErrBadAuth) {
			t.Errorf("parseAuth(%q) = %v, want errBadAuth", in, err)
		}
		if err != nil && strings.Contains(err.Error(), "b\x1b") {
			t.Errorf("parseAuth(%q) leaks the secret into its error", in)
		}
	}
}

// FuzzParseServers: never panics; an error is ErrBadServers and gives
// nothing; what it accepts is one entry per comma of the input, each
// host:port with the port the input wrote (2181 when it wrote none), in
// its one decimal form, and the list with its chroot reads back as the
// same list and chroot (the round trip a connect string makes through
// config files and ZK_SERVERS).
func FuzzParseServers(f *testing.F) {
	for _, s := range []string{"127.0.0.1:2181", "a,b:1/x", "[::1]:2181", "", "::", "[", "a:99999", "a:0080", "a:+80", " a , b:2 /c/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		servers, chroot, err := ParseServers(s)
		if err != nil {
			if len(servers) != 0 || chroot != "" || !errors.Is(err, ErrBadServers) {
				t.Fatalf("error %v with servers %v chroot %q", err, servers, chroot)
			}
			return
		}
		hosts, _, _ := strings.Cut(strings.TrimSpace(s), "/")
		parts := strings.Split(hosts, ",")
		if len(servers) == 0 || len(servers) != len(parts) {
			t.Fatalf("%q: %d servers %v for %d entries", s, len(servers), servers, len(parts))
		}
		for i, sv := range servers {
			host, port, err := net.SplitHostPort(sv)
			if err != nil || host == "" {
				t.Fatalf("accepted entry %q is not host:port: %v", sv, err)
			}
			n, err := strconv.Atoi(port)
			if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
				t.Fatalf("accepted entry %q has port %q", sv, port)
			}
			want := 2181
			if _, p, err := net.SplitHostPort(strings.TrimSpace(parts[i])); err == nil {
				want, _ = strconv.Atoi(p)
			}
			if n != want {
				t.Fatalf("entry %q of %q: port %d, the input wrote %d", sv, s, n, want)
			}
		}
		again, chroot2, err := ParseServers(strings.Join(servers, ",") + chroot)
		if err != nil || !slices.Equal(again, servers) || chroot2 != chroot {
			t.Fatalf("%q reads as %v %q, which read back as %v %q (%v)", s, servers, chroot, again, chroot2, err)
		}
		if chroot != "" && lockops.ValidPath(chroot) != nil {
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
		c, err := ParseAuth(b)
		if err != nil {
			if c != nil {
				t.Fatal("credentials with an error")
			}
			// The file holds a password: an error is one of the fixed
			// messages, so nothing of the input can leak through it
			// (checking for substrings of the input would trip on
			// inputs such as "user" that the fixed text itself holds).
			if !slices.Contains(fixedAuthErrors, strings.TrimPrefix(err.Error(), ErrBadAuth.Error()+": ")) {
				t.Fatalf("error not one of the fixed messages: %v", err)
			}
			return
		}
		if c.User == "" || c.Password == "" {
			t.Fatalf("accepted %+v", c)
		}
		for _, r := range c.User + c.Password {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("accepted control character in %q", c.User)
			}
		}
	})
}
