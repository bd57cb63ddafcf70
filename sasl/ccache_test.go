package sasl

import (
	"errors"
	"strings"
	"testing"
)

// TestCacheFile: which credential cache a client without a keytab reads,
// and the one line for a cache that is not a file, wherever its name
// came from (KRB5CCNAME or krb5.conf's default_ccache_name).
func TestCacheFile(t *testing.T) {
	u := cacheUser{uid: 1000, euid: 1000, name: "alice", temp: "/tmp"}
	conf := func(name string) string {
		return "[realms]\n default_ccache_name = FILE:/wrong\n[libdefaults]\n # a comment\n default_realm = EXAMPLE.COM\n default_ccache_name = " + name + "\n"
	}
	tests := []struct {
		name, env, conf string
		want            string // the file, or a part of the error
		bad             bool
	}{
		{"KRB5CCNAME FILE:", "FILE:/tmp/cc", "", "/tmp/cc", false},
		{"KRB5CCNAME a path", "/tmp/cc", "", "/tmp/cc", false},
		{"KRB5CCNAME file: in lower case", "file:/tmp/cc", "", "/tmp/cc", false},
		{"KRB5CCNAME KCM:", "KCM:1000", "", "KCM:1000 (KRB5CCNAME) is a KCM: cache", true},
		{"KRB5CCNAME KEYRING:", "KEYRING:persistent:1000", "", "KEYRING:persistent:1000 (KRB5CCNAME) is a KEYRING: cache", true},
		{"KRB5CCNAME DIR:", "DIR:/run/user/1000/krb5cc", "", "is a DIR: cache", true},
		{"KRB5CCNAME API:", "API:", "", "is a API: cache", true},
		{"KRB5CCNAME MEMORY:", "MEMORY:x", "", "is a MEMORY: cache", true},
		{"KRB5CCNAME over krb5.conf", "FILE:/tmp/cc", conf("KCM:"), "/tmp/cc", false},
		{"krb5.conf KEYRING", "", conf("KEYRING:persistent:%{uid}"), "KEYRING:persistent:1000 (default_ccache_name in /etc/krb5.conf) is a KEYRING: cache", true},
		{"krb5.conf KCM", "", conf("KCM:"), "KCM: (default_ccache_name in /etc/krb5.conf)", true},
		{"krb5.conf FILE with tokens", "", conf("FILE:%{TEMP}/krb5cc_%{uid}_%{username}"), "/tmp/krb5cc_1000_alice", false},
		{"krb5.conf a path", "", conf("/var/krb5/%{USERID}.cc"), "/var/krb5/1000.cc", false},
		{"krb5.conf without one", "", "[libdefaults]\n default_realm = EXAMPLE.COM\n", "/tmp/krb5cc_1000", false},
		{"no krb5.conf", "", "", "/tmp/krb5cc_1000", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, from := cacheName(tt.env, tt.conf, "/etc/krb5.conf", u)
			got, err := cacheFile(name, from, "alice@EXAMPLE.COM", u.uid)
			if !tt.bad {
				if err != nil || got != tt.want {
					t.Fatalf("%q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, ErrCCacheType) {
				t.Fatalf("%q, %v; want ErrCCacheType", got, err)
			}
			msg := err.Error()
			for _, w := range []string{tt.want, "KRB5CCNAME=FILE:/tmp/krb5cc_1000_zklock kinit alice@EXAMPLE.COM"} {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("%q is more than one line", msg)
			}
		})
	}
}
