package sasl

// Which credential cache a client without a keytab reads, found as MIT's
// libraries find it: KRB5CCNAME, else krb5.conf's default_ccache_name,
// else FILE:/tmp/krb5cc_<uid>. gokrb5 reads cache files only (as Java
// does), so a cache of another type (KCM:, KEYRING:, API:, DIR:,
// MEMORY:) is refused with the one fix that works: a FILE: cache.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
)

// ErrCCacheType means the credential cache is not a file (KCM:,
// KEYRING:...), which zklock cannot read.
var ErrCCacheType = errors.New("sasl: a credential cache zklock cannot read")

// cacheUser is what default_ccache_name's %{...} tokens expand to.
type cacheUser struct {
	uid, euid int
	name      string // the user name, for %{username}
	temp      string // %{TEMP}
}

// thisUser is the running process's cacheUser.
func thisUser() cacheUser {
	u := cacheUser{uid: os.Getuid(), euid: os.Geteuid(), temp: os.Getenv("TMPDIR")}
	if u.temp == "" {
		u.temp = "/tmp"
	}
	if cur, err := user.Current(); err == nil {
		u.name = cur.Username
	}
	return u
}

// cacheName returns the credential cache's name (as KRB5CCNAME writes it)
// and where it came from, given KRB5CCNAME's value and krb5.conf's text.
func cacheName(env, krb5conf, confPath string, u cacheUser) (name, from string) {
	if env != "" {
		return env, "KRB5CCNAME"
	}
	if d := defaultCCacheName(krb5conf); d != "" {
		return expandCCacheName(d, u), "default_ccache_name in " + confPath
	}
	return fmt.Sprintf("FILE:/tmp/krb5cc_%d", u.uid), "the default"
}

// cacheFile returns the file of the cache name: FILE:PATH, or a name
// with no type (a path). Any other type is ErrCCacheType, one line that
// says where the name came from and how to make a FILE: cache.
func cacheFile(name, from, principal string, uid int) (string, error) {
	kind, rest, ok := strings.Cut(name, ":")
	switch {
	case !ok || strings.HasPrefix(name, "/"):
		return name, nil
	case strings.EqualFold(kind, "FILE"):
		return rest, nil
	}
	if principal == "" {
		principal = "NAME@REALM"
	}
	file := fmt.Sprintf("FILE:/tmp/krb5cc_%d_zklock", uid)
	return "", fmt.Errorf("%w: %s (%s) is a %s: cache, and zklock reads only FILE: caches: run KRB5CCNAME=%s kinit %s, then zklock with the same KRB5CCNAME=%s (or give a keytab)",
		ErrCCacheType, name, from, strings.ToUpper(kind), file, principal, file)
}

// defaultCCacheName is default_ccache_name of krb5.conf's [libdefaults],
// "" when it has none.
func defaultCCacheName(text string) string {
	section := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			section = strings.Trim(line, "[] \t")
		case section == "libdefaults":
			k, v, ok := strings.Cut(line, "=")
			if ok && strings.TrimSpace(k) == "default_ccache_name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return ""
}

// expandCCacheName expands the %{...} tokens of a default_ccache_name
// that name the user (MIT krb5.conf(5), "PARAMETER EXPANSION"); others
// are left as they are, so the line that cannot open the file shows them.
func expandCCacheName(s string, u cacheUser) string {
	return strings.NewReplacer(
		"%{uid}", strconv.Itoa(u.uid),
		"%{USERID}", strconv.Itoa(u.uid),
		"%{euid}", strconv.Itoa(u.euid),
		"%{username}", u.name,
		"%{TEMP}", u.temp,
		"%{null}", "",
	).Replace(s)
}
