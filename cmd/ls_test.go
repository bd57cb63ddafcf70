package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// queueOf starts n clients on p, each in its own session, the first
// holding and the others queued in order.
func queueOf(t *testing.T, p string, n int) []*lockops.Lock {
	t.Helper()
	var locks []*lockops.Lock
	for i := range n {
		s := testSession(t)
		l := lockops.NewLock(s, p, lockops.WithNote(fmt.Sprintf("client-%d", i)))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = l.Acquire(ctx) }()
		t.Cleanup(func() { cancel(); <-done; _ = l.Release(context.Background()) })
		want := ordering.LockQueued
		if i == 0 {
			want = ordering.LockHolding
		}
		eventually(t, 20*time.Second, fmt.Sprintf("client %d to be %v", i, want), func() bool {
			return l.State() == want && l.Node() != ""
		})
		locks = append(locks, l)
	}
	return locks
}

// TestLsJSONAndCheck: `ls --json` on a real queue carries every field of
// PRODUCT.md with ZooKeeper's truth; --check is 0 on a healthy queue and 2
// on a split one.
func TestLsJSONAndCheck(t *testing.T) {
	p := testPath(t)
	locks := queueOf(t, p, 3)
	c := testConn(t)

	out, errOut, code := runBinary(t, nil, serversFlag(t), "ls", "--json", "--check", p)
	if code != 0 {
		t.Fatalf("healthy queue: code %d, stderr %q\n%s", code, errOut, out)
	}
	// The exact field set, by name.
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil || len(raw) != 1 {
		t.Fatalf("ls --json: %v\n%s", err, out)
	}
	if got := slices.Sorted(maps.Keys(raw[0])); !slices.Equal(got, []string{"exists", "other", "path", "queue", "schema", "type", "warnings"}) {
		t.Errorf("path fields %v", got)
	}
	if string(raw[0]["schema"]) != strconv.Itoa(model.LsSchema) {
		t.Errorf("schema %s, want %d", raw[0]["schema"], model.LsSchema)
	}
	if string(raw[0]["type"]) != `"mutex"` {
		t.Errorf("type %s, want \"mutex\"", raw[0]["type"])
	}
	var rawQ []map[string]json.RawMessage
	if err := json.Unmarshal(raw[0]["queue"], &rawQ); err != nil || len(rawQ) != 3 {
		t.Fatalf("queue: %v", err)
	}
	wantFields := []string{"believes", "client", "ctime", "czxid", "data", "expires_in_s", "kind", "member", "node", "recipe", "role",
		"seq", "session", "silent_s", "since", "since_bound", "timeout_s", "watch_verified", "watches"}
	if got := slices.Sorted(maps.Keys(rawQ[0])); !slices.Equal(got, wantFields) {
		t.Errorf("node fields %v, want %v", got, wantFields)
	}

	var paths []model.JSONPath
	if err := json.Unmarshal([]byte(out), &paths); err != nil {
		t.Fatal(err)
	}
	jp := paths[0]
	if jp.Path != p || !jp.Exists || len(jp.Warnings) != 0 || len(jp.Queue) != 3 {
		t.Fatalf("ls --json: %+v", jp)
	}
	for i, n := range jp.Queue {
		l := locks[i]
		_, st, err := c.Exists(p + "/" + n.Node)
		if err != nil {
			t.Fatal(err)
		}
		if n.Czxid == 0 || n.Czxid != st.Czxid || i == 0 && n.Czxid != l.FencingToken() {
			t.Errorf("node %d: czxid %d, ZooKeeper reads %d, the holder's token %d", i, n.Czxid, st.Czxid, l.FencingToken())
		}
		if n.Node != l.Node() || n.Session != fmt.Sprintf("0x%x", st.EphemeralOwner) || n.Kind != "mutex" || n.Recipe != "curator" {
			t.Errorf("node %d: %+v, want %s owned by 0x%x", i, n, l.Node(), st.EphemeralOwner)
		}
		if !strings.Contains(n.Data, fmt.Sprintf("client-%d", i)) || n.Client == "" {
			t.Errorf("node %d: data %q client %q", i, n.Data, n.Client)
		}
		if _, err := time.Parse(time.RFC3339, n.Ctime); err != nil {
			t.Errorf("node %d: ctime %q: %v", i, n.Ctime, err)
		}
		if i == 0 {
			if n.Role != "holder" || n.Believes != "holder" || n.Watches != "" || n.WatchVerified != nil {
				t.Errorf("holder: %+v", n)
			}
			continue
		}
		if n.Role != "waiting" || n.Watches != jp.Queue[i-1].Node || n.WatchVerified == nil || !*n.WatchVerified {
			t.Errorf("waiter %d: %+v", i, n)
		}
	}

	// Text output: the path and every node.
	text, errOut, code := runBinary(t, nil, serversFlag(t), "ls", p)
	if code != 0 {
		t.Fatalf("ls: code %d, stderr %q", code, errOut)
	}
	for _, l := range locks {
		if !strings.Contains(text, l.Node()) {
			t.Errorf("ls text lacks %s:\n%s", l.Node(), text)
		}
	}

	// A stock Curator holder and a stock Kazoo holder on one parent:
	// split-holders, --check exits 2 with one line, the JSON names both.
	split := testPath(t)
	mkdirs(t, c, split, nil)
	cn := createNode(t, c, split, curatorPrefix, "java")
	kn := createNode(t, c, split, kazooPrefix, "python")
	out, errOut, code = runBinary(t, nil, serversFlag(t), "ls", "--json", "--check", split, p)
	if code != exitCheck {
		t.Fatalf("split queue: code %d, want 2; stderr %q", code, errOut)
	}
	assertOneLineFailure(t, errOut, code, "check failed: "+split+" split-holders")
	paths = nil
	if err := json.Unmarshal([]byte(out), &paths); err != nil || len(paths) != 2 {
		t.Fatalf("%v\n%s", err, out)
	}
	// ls sorts by path: find the split queue by its path (testPath's
	// numbers do not sort as numbers: -10 comes before -9).
	si := slices.IndexFunc(paths, func(jp model.JSONPath) bool { return jp.Path == split })
	if si < 0 {
		t.Fatalf("ls --json lacks %s:\n%s", split, out)
	}
	var codes []string
	for _, w := range paths[si].Warnings {
		codes = append(codes, w.Code)
		if w.Code == model.WarnSplitHolders && !slices.Equal(w.Nodes, []string{cn, kn}) {
			t.Errorf("split-holders names %v, want %v", w.Nodes, []string{cn, kn})
		}
	}
	if !slices.Contains(codes, model.WarnSplitHolders) || !slices.Contains(codes, model.WarnMixedRecipes) {
		t.Errorf("split queue warnings %v (%+v)", codes, paths[si])
	}

	// A missing path is absent, not an error.
	out, _, code = runBinary(t, nil, serversFlag(t), "ls", "--json", "--check", "/no/such/lock")
	if code != 0 || !strings.Contains(out, `"exists": false`) {
		t.Errorf("absent path: code %d\n%s", code, out)
	}
}

// TestDigestAuth: an ACL-protected lock parent is readable (ls) and
// lockable (run) with the right credentials from --auth-file or ZK_AUTH,
// and gives one clear NoAuth line without them.
func TestDigestAuth(t *testing.T) {
	base := testPath(t)
	p := base + "/secure"
	c := testConn(t)
	if err := c.AddAuth("digest", []byte("alice:s3cret")); err != nil {
		t.Fatal(err)
	}
	mkdirs(t, c, p, zk.DigestACL(zk.PermAll, "alice", "s3cret"))
	node := createNode(t, c, p, curatorPrefix, "alice's job")
	authFile := writeFile(t, "alice.auth", "# ops\nalice:s3cret\n")

	for _, how := range []struct {
		name string
		env  []string
		args []string
	}{
		{"auth file", nil, []string{"--auth-file", authFile}},
		{"ZK_AUTH", []string{"ZK_AUTH=alice:s3cret"}, nil},
	} {
		args := append(append([]string{serversFlag(t)}, how.args...), "ls", "--json", p)
		out, errOut, code := runBinary(t, how.env, args...)
		if code != 0 || !strings.Contains(out, node) || !strings.Contains(out, "alice's job") {
			t.Errorf("%s: code %d, stderr %q\n%s", how.name, code, errOut, out)
		}
		if strings.Contains(out+errOut, "s3cret") {
			t.Errorf("%s: the password was printed", how.name)
		}
	}
	_, errOut, code := runBinary(t, nil, serversFlag(t), "ls", p)
	assertOneLineFailure(t, errOut, code, p+": not readable with these credentials (NoAuth")
	// Wrong credentials: ZooKeeper takes any digest (it only adds an
	// identity), so the failure is known at the first read, and said
	// then, naming the path, without the password.
	start := time.Now()
	_, errOut, code = runBinary(t, []string{"ZK_AUTH=alice:wrong-password"}, serversFlag(t), "ls", p)
	assertOneLineFailure(t, errOut, code, p+": not readable with these credentials (NoAuth")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("wrong credentials said after %v", took)
	}
	if strings.Contains(errOut, "wrong-password") {
		t.Errorf("the password was printed: %q", errOut)
	}

	// run under the protected parent: allowed with credentials, one
	// NoAuth line without.
	if _, errOut, code := runBinary(t, []string{"ZK_AUTH=alice:s3cret"}, serversFlag(t), "--audit-log", writeFile(t, "a", ""),
		"run", "--timeout", "1s", p+"/inner", "--", "true"); code != 0 {
		t.Errorf("run with credentials: code %d, stderr %q", code, errOut)
	}
	_, errOut, code = runBinary(t, nil, serversFlag(t), "--audit-log", writeFile(t, "b", ""), "run", "--timeout", "5s", p+"/inner2", "--", "true")
	assertOneLineFailure(t, errOut, code, "")
	if !strings.Contains(strings.ToLower(errOut), "noauth") && !strings.Contains(errOut, "not authenticated") {
		t.Errorf("run without credentials: %q does not say NoAuth", errOut)
	}
	t.Logf("run without credentials: %s", errOut)
}

// TestContexts: --context picks servers, chroot and roots from the config
// file; a read-only context acts only with --write.
func TestContexts(t *testing.T) {
	c := testConn(t)
	chroot := testPath(t)
	mkdirs(t, c, chroot+"/locks/job", nil)
	node := createNode(t, c, chroot+"/locks/job", curatorPrefix, "in-context")
	var cfg bytes.Buffer
	fmt.Fprintf(&cfg, "contexts:\n  staging:\n    servers: [%s]\n    chroot: %s\n    roots: [/locks]\n    read_only: true\n",
		testCluster(t).ConnectString(), chroot)
	env := []string{"ZKLOCK_CONFIG=" + writeFile(t, "config.yaml", cfg.String()), "ZK_SERVERS=127.0.0.1:1"}

	// Paths are inside the chroot; the context's servers beat ZK_SERVERS.
	out, errOut, code := runBinary(t, env, "--context", "staging", "ls", "--json", "/locks/job")
	if code != 0 || !strings.Contains(out, node) || !strings.Contains(out, `"path": "/locks/job"`) {
		t.Fatalf("ls in context: code %d, stderr %q\n%s", code, errOut, out)
	}
	// The context's roots are discovered when no path is given.
	out, errOut, code = runBinary(t, env, "--context", "staging", "ls", "--json")
	if code != 0 || !strings.Contains(out, `"path": "/locks/job"`) {
		t.Fatalf("ls of the context's roots: code %d, stderr %q\n%s", code, errOut, out)
	}
	// Read-only: refused without --write, done with it.
	_, errOut, code = runBinary(t, env, "--context", "staging", "run", "/locks/other", "--", "true")
	assertOneLineFailure(t, errOut, code, `context "staging" is read-only; pass --write`)
	if _, errOut, code := runBinary(t, env, "--context", "staging", "--write", "--audit-log", writeFile(t, "a", ""),
		"run", "/locks/other", "--", "true"); code != 0 {
		t.Fatalf("--write run: code %d, stderr %q", code, errOut)
	}
	if ok, _, _ := c.Exists(chroot + "/locks/other"); !ok {
		t.Errorf("run in the context did not use the chroot")
	}
}

// TestHostileData: node names and data full of terminal escapes, binary
// and huge data never reach the terminal raw, in ls, ls --json and the
// force-release facts.
func TestHostileData(t *testing.T) {
	p := testPath(t)
	c := testConn(t)
	mkdirs(t, c, p, nil)
	evil := "\x1b[2J\x1b]0;pwned\x07\xff\xfe\u202e"
	createNode(t, c, p, "x-\u202eevil-", evil)
	createNode(t, c, p, curatorPrefix, strings.Repeat("\x00\x01big", 100_000))
	for _, args := range [][]string{{"ls", p}, {"ls", "--json", p}} {
		out, errOut, code := runBinary(t, nil, append([]string{serversFlag(t)}, args...)...)
		if code != 0 {
			t.Fatalf("%v: code %d, stderr %q", args, code, errOut)
		}
		if strings.ContainsAny(out+errOut, "\x1b\x07\x00\u202e") || !utf8Valid(out) {
			t.Fatalf("%v printed raw control bytes:\n%q", args, out)
		}
		if !strings.Contains(out, `\x1b[2J`) {
			t.Errorf("%v: the escape is not shown escaped:\n%s", args, out)
		}
		if len(out) > 64<<10 {
			t.Errorf("%v: %d bytes of output for a huge datum", args, len(out))
		}
	}
	kids, _, _ := c.Children(p)
	for _, k := range kids {
		if strings.HasPrefix(k, "x-") {
			out, errOut, code := runBinary(t, nil, serversFlag(t), "release", "--force", p+"/"+k)
			if strings.ContainsAny(out+errOut, "\x1b\x07\u202e") {
				t.Fatalf("force-release facts printed raw control bytes:\n%q\n%q", out, errOut)
			}
			assertOneLineFailure(t, errOut, code, "pass --yes")
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// TestLsWithoutFourLetterWords: on an ensemble that refuses `cons` and
// `wchc` (most production ensembles), ls still answers at once, with the
// links inferred (watch_verified null, client empty) and a note.
func TestLsWithoutFourLetterWords(t *testing.T) {
	t.Parallel()
	cl := sandboxtest.Start(t, sandbox.Options{ExtraConfig: []string{"4lw.commands.whitelist=srvr,ruok"}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := lockops.Connect(ctx, cl.Servers())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := "/locks/quiet"
	l1 := lockops.NewLock(s, p)
	if err := l1.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	s2, err := lockops.Connect(ctx, cl.Servers())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	l2 := lockops.NewLock(s2, p)
	go func() { _ = l2.Acquire(ctx) }()
	eventually(t, 20*time.Second, "the waiter", func() bool { return l2.State() == ordering.LockQueued && l2.Node() != "" })

	start := time.Now()
	out, errOut, code := runBinary(t, nil, "--servers", cl.ConnectString(), "ls", "--json", "--check", p)
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("ls took %v on an ensemble without four-letter words", took)
	}
	var paths []model.JSONPath
	if err := json.Unmarshal([]byte(out), &paths); err != nil || len(paths) != 1 || len(paths[0].Queue) != 2 {
		t.Fatalf("%v\n%s", err, out)
	}
	w := paths[0].Queue[1]
	if w.WatchVerified != nil || w.Client != "" || w.Watches != l1.Node() {
		t.Errorf("waiter without server view: %+v", w)
	}
	text, _, _ := runBinary(t, nil, "--servers", cl.ConnectString(), "ls", p)
	t.Logf("ls text:\n%s", text)
}
