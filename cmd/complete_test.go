package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completions runs zklock __complete with args and returns its offers
// (the directive line dropped).
func completions(t *testing.T, args ...string) []string {
	t.Helper()
	out, errOut, code := runBinary(t, nil, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: code %d, stderr %q", args, code, errOut)
	}
	var offers []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, ":") && l != "" {
			offers = append(offers, l)
		}
	}
	return offers
}

// TestCompletion: flag values, and lock paths and node paths read from
// the ensemble the command line names, through cobra's __complete.
func TestCompletion(t *testing.T) {
	if got := completions(t, "--theme", ""); !slices.Equal(got, []string{"dark", "high-contrast", "light", "mono"}) {
		t.Errorf("--theme: %v", got)
	}
	// --theme where a console draws: the root, demo and replay.
	for _, cmd := range []string{"demo", "replay"} {
		if got := completions(t, cmd, "--theme", ""); !slices.Equal(got, []string{"dark", "high-contrast", "light", "mono"}) {
			t.Errorf("%s --theme: %v", cmd, got)
		}
	}
	// -o: each command its own formats; record's -o is a file.
	if got := completions(t, "ls", "-o", ""); !slices.Equal(got, []string{"text", "json", "name"}) {
		t.Errorf("ls -o: %v", got)
	}
	for _, cmd := range []string{"sessions", "doctor", "watch", "version"} {
		if got := completions(t, cmd, "-o", ""); !slices.Equal(got, []string{"text", "json"}) {
			t.Errorf("%s -o: %v", cmd, got)
		}
	}
	if out, _, _ := runBinary(t, nil, "__complete", "record", "-o", ""); strings.Contains(out, "json") || !strings.Contains(out, ":0\n") {
		t.Errorf("record -o offers formats, or not the shell's file names: %q", out)
	}
	if got := completions(t, "run", "--style", ""); !slices.Equal(got, []string{"curator", "kazoo"}) {
		t.Errorf("run --style: %v", got)
	}

	p := testPath(t) // /t/TestCompletion-N
	c := testConn(t)
	mkdirs(t, c, p+"/billing", nil)
	mkdirs(t, c, p+"/orders", nil)
	node := createNode(t, c, p+"/billing", curatorPrefix, "x")
	srv := serversFlag(t)
	if got := completions(t, srv, "ls", p+"/"); !slices.Equal(got, []string{p + "/billing", p + "/orders"}) {
		t.Errorf("ls %s/: %v", p, got)
	}
	if got := completions(t, srv, "ls", p+"/bi"); !slices.Equal(got, []string{p + "/billing"}) {
		t.Errorf("ls %s/bi: %v", p, got)
	}
	// A lock parent's lock nodes are offered where a node is wanted.
	if got := completions(t, srv, "release", "--force", p+"/billing/"); !slices.Equal(got, []string{p + "/billing/" + node}) {
		t.Errorf("release %s/billing/: %v", p, got)
	}
	if got := completions(t, srv, "ls", p+"/billing/"); len(got) != 0 {
		t.Errorf("ls offers lock nodes as lock parents: %v", got)
	}
	// why takes one lock parent, and no more.
	if got := completions(t, srv, "why", p+"/bi"); !slices.Equal(got, []string{p + "/billing"}) {
		t.Errorf("why %s/bi: %v", p, got)
	}
	if got := completions(t, srv, "why", p+"/billing", p+"/"); len(got) != 0 {
		t.Errorf("why completes a second PATH: %v", got)
	}
	// After run's --, the command is the shell's to complete.
	if got := completions(t, srv, "run", p+"/billing", "--", ""); slices.Contains(got, p+"/billing") {
		t.Errorf("run completes CMD with lock paths: %v", got)
	}
	// An unreachable ensemble: nothing, quickly (bounded).
	if got := completions(t, "--servers", closedPort(t), "ls", "/x"); len(got) != 0 {
		t.Errorf("unreachable: %v", got)
	}

	// Contexts from the config file.
	dir := t.TempDir()
	cfg := filepath.Join(dir, "zklock", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("contexts:\n  prod:\n    servers: [zk1:2181]\n  staging:\n    servers: [zk2:2181]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runBinary(t, []string{"ZKLOCK_CONFIG=" + cfg}, "__complete", "--context", "")
	if !strings.Contains(out, "prod\nstaging\n") {
		t.Errorf("--context: %q", out)
	}
}

// TestGenMan: gen-man writes a page per command.
func TestGenMan(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := runBinary(t, nil, "gen-man", dir); code != 0 {
		t.Fatalf("gen-man: code %d, stderr %q", code, errOut)
	}
	for _, page := range []string{"zklock.1", "zklock-ls.1", "zklock-run.1", "zklock-sessions.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil || !strings.Contains(string(b), ".TH \"ZKLOCK\"") {
			t.Errorf("%s: %v", page, err)
		}
	}
	// A page lists the flags its command takes, and no other.
	for page, want := range map[string]bool{"zklock.1": true, "zklock-demo.1": true, "zklock-ls.1": false, "zklock-sessions.1": false} {
		if b, _ := os.ReadFile(filepath.Join(dir, page)); strings.Contains(string(b), "theme") != want {
			t.Errorf("%s mentions --theme: %v, want %v", page, !want, want)
		}
	}
}
