package cmd

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGSSAPIServerNamesCLI: zklock names the server's principal as the
// Java client 3.8 does. On a parent only alice may use, `ls` as alice
// works with a connect string of 127.0.0.1 (canonicalized to the
// realm's zookeeper/localhost), with the principal named outright
// (canonicalization off), and from a JAAS section other than Client (a
// keytab, or the ticketCache kinit filled).
func TestGSSAPIServerNamesCLI(t *testing.T) {
	k, server := kerberosZK(t)
	alice := gssapiConn(t, k, server, "alice")
	p := testPath(t)
	mkdirs(t, alice, p, kerberosOnly(k, "alice"))
	_, port, _ := net.SplitHostPort(server)
	ip := "127.0.0.1:" + port
	dir := t.TempDir()
	jaas, cc := filepath.Join(dir, "jaas.conf"), filepath.Join(dir, "alice.cc")
	if err := k.Kinit(t.Context(), "alice", cc, 0); err != nil {
		t.Fatal(err)
	}
	text := "Client { org.apache.zookeeper.server.auth.DigestLoginModule required username=\"nobody\" password=\"x\"; };\n" +
		"ZkForKafka { com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab=\"" + k.Keytab("alice") +
		"\" principal=\"" + k.Principal("alice") + "\"; };\n" +
		"FromCache { com.sun.security.auth.module.Krb5LoginModule required useTicketCache=true ticketCache=\"" + cc + "\"; };\n"
	if err := os.WriteFile(jaas, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"an address, canonicalized", gssapiFlags(k, ip, "alice")},
		{"the principal named, canonicalization off", append(gssapiFlags(k, ip, "alice"),
			"--sasl-server-principal", k.Principal("zookeeper/localhost"), "--sasl-canonicalize-hostname=false")},
		{"a JAAS section of its own", []string{"--servers=" + ip, "--jaas", jaas, "--jaas-section", "ZkForKafka", "--krb5-conf", k.Krb5Conf()}},
		{"a JAAS ticketCache", []string{"--servers=" + ip, "--jaas", jaas, "--jaas-section", "FromCache", "--krb5-conf", k.Krb5Conf()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runBinary(t, nil, append(tt.args, "ls", "--json", p)...)
			if code != 0 {
				t.Fatalf("ls: code %d, stderr %q", code, errOut)
			}
			if jp := lsJSON(t, out)[0]; jp.Path != p {
				t.Fatalf("ls: %+v, want %s", jp, p)
			}
		})
	}
}

// TestGSSAPICacheTypes: a credential cache zklock cannot read (KCM: or
// KEYRING:, from KRB5CCNAME or krb5.conf's default_ccache_name) is one
// line, at once, naming KRB5CCNAME=FILE:... as the fix.
func TestGSSAPICacheTypes(t *testing.T) {
	k, server := kerberosZK(t)
	conf, err := os.ReadFile(k.Krb5Conf())
	if err != nil {
		t.Fatal(err)
	}
	keyring := filepath.Join(t.TempDir(), "krb5.conf")
	text := strings.Replace(string(conf), "[libdefaults]\n", "[libdefaults]\n default_ccache_name = KEYRING:persistent:%{uid}\n", 1)
	if err := os.WriteFile(keyring, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  []string
		conf string
		want string
	}{
		{"KRB5CCNAME=KCM:", []string{"KRB5CCNAME=KCM:"}, k.Krb5Conf(), "KCM: (KRB5CCNAME) is a KCM: cache"},
		{"KRB5CCNAME=KEYRING:", []string{"KRB5CCNAME=KEYRING:persistent:1000"}, k.Krb5Conf(), "KEYRING:persistent:1000 (KRB5CCNAME) is a KEYRING: cache"},
		{"default_ccache_name KEYRING:", []string{"KRB5CCNAME="}, keyring, "(default_ccache_name in " + keyring + ") is a KEYRING: cache"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, errOut, code := runBinary(t, tt.env, "--servers="+server, "--sasl", "GSSAPI", "--krb5-conf", tt.conf, "--connect-timeout", "30s", "ls", "/")
			t.Logf("failed in %v: %s", time.Since(start), strings.TrimSpace(errOut))
			assertOneLineFailure(t, errOut, code, tt.want)
			if !strings.Contains(errOut, "KRB5CCNAME=FILE:") {
				t.Errorf("the line does not name KRB5CCNAME=FILE:...")
			}
		})
	}
}
