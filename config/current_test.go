package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDefaultContext: which ensemble a command line names, in order:
// --context, ZKLOCK_CONTEXT, --servers, ZKLOCK_SERVERS (or ZK_SERVERS),
// then the config file's current_context, then the default server.
func TestDefaultContext(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("current_context: staging\ncontexts:\n  prod:\n    servers: [zk-prod:2181]\n  staging:\n    servers: [zk-staging:2181]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ZKLOCK_CONFIG", cfg)
	for _, env := range []string{"ZKLOCK_CONTEXT", "ZKLOCK_SERVERS", "ZK_SERVERS"} {
		t.Setenv(env, "")
	}
	resolve := func(g Flags) (string, []string, error) {
		t.Helper()
		g.SessionTimeout, g.ConnectTimeout = 10*time.Second, 10*time.Second
		s, err := g.Resolve(func(string) bool { return false })
		if err != nil {
			return "", nil, err
		}
		return s.ContextName, s.Servers, nil
	}
	check := func(what string, g Flags, wantCtx, wantServer string) {
		t.Helper()
		ctx, servers, err := resolve(g)
		if err != nil || ctx != wantCtx || !slices.Equal(servers, []string{wantServer}) {
			t.Errorf("%s: context %q servers %v (%v); want %q %s", what, ctx, servers, err, wantCtx, wantServer)
		}
	}
	check("nothing given: current_context", Flags{}, "staging", "zk-staging:2181")
	check("--context", Flags{Context: "prod"}, "prod", "zk-prod:2181")
	check("--servers beats current_context", Flags{Servers: "zk9:2181"}, "", "zk9:2181")
	t.Setenv("ZK_SERVERS", "zk-old:2181")
	check("ZK_SERVERS (the alias) beats current_context", Flags{}, "", "zk-old:2181")
	t.Setenv("ZKLOCK_SERVERS", "zk-new:2181")
	check("ZKLOCK_SERVERS beats its alias", Flags{}, "", "zk-new:2181")
	t.Setenv("ZKLOCK_CONTEXT", "prod")
	check("ZKLOCK_CONTEXT names a context", Flags{}, "prod", "zk-prod:2181")
	check("--context beats ZKLOCK_CONTEXT", Flags{Context: "staging"}, "staging", "zk-staging:2181")
	t.Setenv("ZKLOCK_CONTEXT", "nope")
	if _, _, err := resolve(Flags{}); err == nil || !strings.Contains(err.Error(), `context "nope" is not in`) || !strings.Contains(err.Error(), "named by ZKLOCK_CONTEXT") {
		t.Errorf("an unknown ZKLOCK_CONTEXT: %v", err)
	}
	// No config file: the default server, no error.
	t.Setenv("ZKLOCK_CONTEXT", "")
	t.Setenv("ZKLOCK_SERVERS", "")
	t.Setenv("ZK_SERVERS", "")
	t.Setenv("ZKLOCK_CONFIG", filepath.Join(dir, "missing.yaml"))
	check("no config file", Flags{}, "", DefaultServers)
	// A context named with no config file: the line names the context,
	// what named it, the file looked for and how contexts are made.
	for _, c := range []struct {
		g      Flags
		env    string
		source string
	}{{Flags{Context: "nope"}, "", "--context"}, {Flags{}, "nope", "ZKLOCK_CONTEXT"}} {
		t.Setenv("ZKLOCK_CONTEXT", c.env)
		_, _, err := resolve(c.g)
		for _, want := range []string{`"nope"`, "named by " + c.source, filepath.Join(dir, "missing.yaml"), "config set-context nope"} {
			if err == nil || !errors.Is(err, ErrNoContext) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("a context named by %s with no config file: %v; want one line with %s", c.source, err, want)
			}
		}
	}
}

// TestErrorsNameTheContext: an error in a context names that context
// however it was chosen (--context, ZKLOCK_CONTEXT or current_context),
// not the empty --context flag.
func TestErrorsNameTheContext(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	const file = `current_context: slow
contexts:
  slow:
    servers: [zk1:2181]
    session_timeout: soon
  jks:
    servers: [zk2:2281]
    tls:
      zookeeper.ssl.trustStore.location: truststore.jks
      zookeeper.ssl.trustStore.type: JKS
`
	if err := os.WriteFile(cfg, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ZKLOCK_CONFIG", cfg)
	for _, env := range []string{"ZKLOCK_CONTEXT", "ZKLOCK_SERVERS", "ZK_SERVERS"} {
		t.Setenv(env, "")
	}
	for _, c := range []struct {
		what, flag, env, want string
	}{
		{"current_context", "", "", `context "slow": bad session_timeout "soon"`},
		{"ZKLOCK_CONTEXT", "", "slow", `context "slow": bad session_timeout "soon"`},
		{"--context", "slow", "", `context "slow": bad session_timeout "soon"`},
		{"TLS, ZKLOCK_CONTEXT", "", "jks", `context "jks": tls: zookeeper.ssl.trustStore.type is JKS`},
		{"TLS, --context", "jks", "", `context "jks": tls: zookeeper.ssl.trustStore.type is JKS`},
	} {
		t.Setenv("ZKLOCK_CONTEXT", c.env)
		g := Flags{Context: c.flag, SessionTimeout: 10 * time.Second, ConnectTimeout: 10 * time.Second}
		_, err := g.Resolve(func(string) bool { return false })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s", c.what, err, c.want)
		}
	}
}
