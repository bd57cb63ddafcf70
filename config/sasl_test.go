package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveSASL(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pwFile := write("pw", "s3cret\n")
	jaas := write("jaas.conf", `Client { org.apache.zookeeper.server.auth.DigestLoginModule required username="jay" password="jaas-pw"; };`)
	krbJAAS := write("krb.conf", `Client { com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true keyTab="/k.keytab" principal="me@R"; };`)
	krb5 := write("krb5.conf", "[libdefaults]\n default_realm = R\n")
	keyring := write("krb5-keyring.conf", "[libdefaults]\n default_realm = R\n default_ccache_name = KEYRING:persistent:%{uid}\n")
	sections := write("sections.conf", `Client { org.apache.zookeeper.server.auth.DigestLoginModule required username="jay" password="jaas-pw"; };
ZkForKafka { org.apache.zookeeper.server.auth.DigestLoginModule required username="kafka" password="kafka-pw"; };`)
	off, on := false, true
	t.Setenv("KRB5CCNAME", "FILE:"+filepath.Join(dir, "no-cache"))
	tests := []struct {
		name    string
		flags   Flags
		ctx     *ContextSASL
		env     string
		ccname  string // KRB5CCNAME, when not the missing file
		canon   bool   // --sasl-canonicalize-hostname given
		want    *SASL  // nil: no SASL (when err is "")
		wantErr string
	}{
		{name: "off", flags: Flags{}},
		{name: "digest with a password file", flags: Flags{SASL: "digest-md5", SASLUser: "alice", SASLPasswordFile: pwFile},
			want: &SASL{Mechanism: MechDigest, User: "alice", Password: "s3cret"}},
		{name: "digest, password from the environment", flags: Flags{SASL: "DIGEST-MD5", SASLUser: "alice"}, env: "from-env",
			want: &SASL{Mechanism: MechDigest, User: "alice", Password: "from-env"}},
		{name: "digest without a password", flags: Flags{SASL: "DIGEST-MD5", SASLUser: "alice"}, wantErr: "ZKLOCK_SASL_PASSWORD"},
		{name: "digest without a user", flags: Flags{SASL: "DIGEST-MD5"}, env: "x", wantErr: "--sasl-user"},
		{name: "jaas digest", flags: Flags{JAAS: jaas}, want: &SASL{Mechanism: MechDigest, User: "jay", Password: "jaas-pw"}},
		{name: "flags over jaas", flags: Flags{JAAS: jaas, SASLUser: "other", SASLPasswordFile: pwFile},
			want: &SASL{Mechanism: MechDigest, User: "other", Password: "s3cret"}},
		{name: "jaas kerberos", flags: Flags{JAAS: krbJAAS}, wantErr: "GSSAPI"},
		{name: "context block", ctx: &ContextSASL{Mechanism: "DIGEST-MD5", User: "ctx", PasswordFile: pwFile},
			want: &SASL{Mechanism: MechDigest, User: "ctx", Password: "s3cret"}},
		{name: "gssapi, no keytab and no ticket cache", flags: Flags{SASL: "GSSAPI", SASLPrincipal: "me@R", Krb5Conf: krb5},
			wantErr: "credential cache " + filepath.Join(dir, "no-cache")},
		{name: "gssapi, missing keytab", flags: Flags{SASL: "GSSAPI", SASLPrincipal: "me", SASLKeytab: filepath.Join(dir, "no.keytab"), Krb5Conf: krb5},
			wantErr: "keytab " + filepath.Join(dir, "no.keytab")},
		{name: "gssapi, keytab without principal", flags: Flags{SASL: "GSSAPI", SASLKeytab: filepath.Join(dir, "no.keytab"), Krb5Conf: krb5},
			wantErr: "--sasl-principal"},
		{name: "gssapi, missing krb5.conf", flags: Flags{SASL: "GSSAPI", SASLPrincipal: "me", SASLKeytab: filepath.Join(dir, "no.keytab"), Krb5Conf: filepath.Join(dir, "no-krb5.conf")},
			wantErr: "krb5.conf " + filepath.Join(dir, "no-krb5.conf")},
		{name: "unknown mechanism", flags: Flags{SASL: "PLAIN"}, wantErr: "unknown mechanism"},
		{name: "user without mechanism", flags: Flags{SASLUser: "alice"}, wantErr: "without --sasl MECH"},
		{name: "missing jaas file", flags: Flags{JAAS: filepath.Join(dir, "nope")}, wantErr: "--jaas"},
		{name: "jaas section", flags: Flags{JAAS: sections, JAASSection: "ZkForKafka"},
			want: &SASL{Mechanism: MechDigest, User: "kafka", Password: "kafka-pw"}},
		{name: "jaas section from the context", ctx: &ContextSASL{JAAS: sections, JAASSection: "ZkForKafka"},
			want: &SASL{Mechanism: MechDigest, User: "kafka", Password: "kafka-pw"}},
		{name: "jaas section flag over the context's", flags: Flags{JAASSection: "Client"}, ctx: &ContextSASL{JAAS: sections, JAASSection: "ZkForKafka"},
			want: &SASL{Mechanism: MechDigest, User: "jay", Password: "jaas-pw"}},
		{name: "jaas section missing", flags: Flags{JAAS: sections, JAASSection: "Nope"}, wantErr: "no Nope section (has: "},
		{name: "jaas section without jaas", flags: Flags{SASL: "DIGEST-MD5", SASLUser: "a", JAASSection: "ZkForKafka"}, env: "x", wantErr: "--jaas-section ZkForKafka without --jaas FILE"},
		{name: "server principal without a mechanism", flags: Flags{SASLServerPrincipal: "zookeeper/zk1"}, wantErr: "without --sasl MECH"},
		{name: "server principal of a bad form", flags: Flags{SASL: "GSSAPI", SASLServerPrincipal: "zookeeper", Krb5Conf: krb5},
			wantErr: "want SERVICE/HOST or SERVICE/HOST@REALM"},
		{name: "canonicalization by default", flags: Flags{SASL: "DIGEST-MD5", SASLUser: "a", SASLServerPrincipal: "zookeeper/zk1@R"}, env: "x",
			want: &SASL{Mechanism: MechDigest, User: "a", Password: "x", ServerPrincipal: "zookeeper/zk1@R"}},
		{name: "canonicalization off by the context", flags: Flags{SASL: "DIGEST-MD5", SASLUser: "a"}, ctx: &ContextSASL{CanonicalizeHostname: &off}, env: "x",
			want: &SASL{Mechanism: MechDigest, User: "a", Password: "x", HostAsWritten: true}},
		{name: "canonicalization on by the flag over the context", flags: Flags{SASL: "DIGEST-MD5", SASLUser: "a"}, canon: true, ctx: &ContextSASL{CanonicalizeHostname: &off}, env: "x",
			want: &SASL{Mechanism: MechDigest, User: "a", Password: "x"}},
		{name: "canonicalization off by the flag", flags: Flags{SASL: "DIGEST-MD5", SASLUser: "a", SASLHostAsWritten: true}, canon: true, ctx: &ContextSASL{CanonicalizeHostname: &on}, env: "x",
			want: &SASL{Mechanism: MechDigest, User: "a", Password: "x", HostAsWritten: true}},
		{name: "gssapi, a KCM cache", flags: Flags{SASL: "GSSAPI", SASLPrincipal: "me@R", Krb5Conf: krb5}, ccname: "KCM:1000",
			wantErr: "KCM:1000 (KRB5CCNAME) is a KCM: cache, and zklock reads only FILE: caches: run KRB5CCNAME=FILE:"},
		{name: "gssapi, a KEYRING default in krb5.conf", flags: Flags{SASL: "GSSAPI", Krb5Conf: keyring}, ccname: "-",
			wantErr: "(default_ccache_name in " + keyring + ") is a KEYRING: cache"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ZKLOCK_SASL_PASSWORD", tt.env)
			switch tt.ccname {
			case "":
			case "-":
				t.Setenv("KRB5CCNAME", "")
			default:
				t.Setenv("KRB5CCNAME", tt.ccname)
			}
			got, err := resolveSASL(&tt.flags, tt.ctx, tt.canon)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (tt.want == nil) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			if got == nil {
				return
			}
			if got.Mechanism != tt.want.Mechanism || got.User != tt.want.User || got.Password != tt.want.Password ||
				got.Keytab != tt.want.Keytab || got.Principal != tt.want.Principal ||
				got.ServerPrincipal != tt.want.ServerPrincipal || got.HostAsWritten != tt.want.HostAsWritten {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if got.Service != DefaultSASLService {
				t.Errorf("service = %q, want the default", got.Service)
			}
		})
	}
}

// TestContextSASLKeys: a context's sasl: block takes the Java client's
// three settings under their own keys, decoded strictly.
func TestContextSASLKeys(t *testing.T) {
	f, err := decodeFile([]byte(`contexts:
  kafka:
    servers: [zk1:2181]
    sasl:
      mechanism: GSSAPI
      server_principal: zookeeper/zk1.example.com@EXAMPLE.COM
      canonicalize_hostname: false
      jaas: /etc/kafka/jaas.conf
      jaas_section: ZkForKafka
`))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Contexts["kafka"].SASL
	if s == nil || s.ServerPrincipal != "zookeeper/zk1.example.com@EXAMPLE.COM" || s.CanonicalizeHostname == nil || *s.CanonicalizeHostname ||
		s.JAASSection != "ZkForKafka" {
		t.Fatalf("sasl: %+v", s)
	}
}
