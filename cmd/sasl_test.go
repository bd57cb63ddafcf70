package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/sasl"
	"github.com/zklock/zklock/third_party/zk"
)

// sharedSASL is a 3-member ensemble that requires SASL of every client
// (DIGEST-MD5 users alice and bob), for every SASL test of the package.
var sharedSASL = &sandboxtest.Shared{
	Options: sandbox.Options{Members: 3, SASL: &sandbox.SASLOptions{
		Users: map[string]string{"alice": "alice-secret", "bob": "bob-secret"}}},
	Hint: "cmd SASL tests need a real ZooKeeper",
}

// saslFlags are the flags and environment that make zklock authenticate
// as user (the password through the environment, never argv).
func saslFlags(c *sandbox.Cluster, user, password string) (args, env []string) {
	return []string{"--servers=" + c.ConnectString(), "--sasl", "DIGEST-MD5", "--sasl-user", user},
		[]string{"ZKLOCK_SASL_PASSWORD=" + password}
}

// saslSession is a lock-core session authenticated as user.
func saslSession(t *testing.T, c *sandbox.Cluster, user, password string) *lockops.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := lockops.Connect(ctx, c.Servers(), lockops.WithSASL(&sasl.Digest{User: user, Password: password}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// aliceOnly is the ACL of a lock parent only alice may use.
var aliceOnly = []zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "alice"}}

// TestSASLLsRunRelease: on a parent only sasl:alice may use, zklock as
// alice lists the queue, force-releases the holder and runs; as bob it is
// refused with NoAuth.
func TestSASLLsRunRelease(t *testing.T) {
	c := sharedSASL.Cluster(t)
	alice := saslSession(t, c, "alice", "alice-secret")
	p := testPath(t)
	mkdirsAs(t, alice, p, aliceOnly)
	holder := holdOver(t, alice, p, ordering.LockHolding)

	args, env := saslFlags(c, "alice", "alice-secret")
	out, errOut, code := runBinary(t, env, append(args, "ls", "--json", p)...)
	if code != 0 {
		t.Fatalf("ls as alice: code %d, stderr %q", code, errOut)
	}
	if jp := lsJSON(t, out)[0]; len(jp.Queue) != 1 || jp.Queue[0].Node != holder.Node() {
		t.Fatalf("ls as alice: %+v", jp)
	}
	bobArgs, bobEnv := saslFlags(c, "bob", "bob-secret")
	_, errOut, code = runBinary(t, bobEnv, append(bobArgs, "ls", "--json", p)...)
	assertOneLineFailure(t, errOut, code, "NoAuth")

	_, errOut, code = runBinary(t, env, append(args, "release", "--force", "--yes", p+"/"+holder.Node())...)
	if code != 0 {
		t.Fatalf("release --force as alice: code %d, stderr %q", code, errOut)
	}
	select {
	case <-holder.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the force-released holder was not told its lock is lost")
	}
	out, errOut, code = runBinary(t, env, append(args, "run", p, "--", "sh", "-c", `echo "$ZKLOCK_NODE"`)...)
	if code != 0 || !strings.HasPrefix(out, p+"/") {
		t.Fatalf("run as alice: code %d, out %q, stderr %q", code, out, errOut)
	}
}

// TestSASLRefusals: each way to fail is one line naming the fix, and
// zklock stops at once instead of retrying until --connect-timeout.
func TestSASLRefusals(t *testing.T) {
	c := sharedSASL.Cluster(t)
	plain := testCluster(t)
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("alice-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"wrong password", []string{"--servers=" + c.ConnectString(), "--sasl", "DIGEST-MD5", "--sasl-user", "alice"},
			[]string{"ZKLOCK_SASL_PASSWORD=wrong"}, "unknown user or wrong password"},
		// Not alice's password: ZooKeeper 3.8.0 checks an unknown user
		// against the last user who logged in (ZOOKEEPER-4839, fixed in 3.9.3).
		{"unknown user", []string{"--servers=" + c.ConnectString(), "--sasl", "DIGEST-MD5", "--sasl-user", "mallory"},
			[]string{"ZKLOCK_SASL_PASSWORD=mallory-secret"}, "unknown user or wrong password"},
		{"no SASL to a server that requires it", []string{"--servers=" + c.ConnectString()}, nil, "requires SASL authentication and zklock sent none: give --sasl"},
		{"SASL to a server without it", []string{"--servers=" + plain.ConnectString(), "--sasl", "DIGEST-MD5", "--sasl-user", "alice", "--sasl-password-file", pwFile},
			nil, "has no SASL configured"},
		{"no password", []string{"--servers=" + c.ConnectString(), "--sasl", "DIGEST-MD5", "--sasl-user", "alice"}, nil, "ZKLOCK_SASL_PASSWORD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			// --connect-timeout is long so that a client that retried
			// instead of stopping would show in the figure logged below.
			_, errOut, code := runBinary(t, tt.env, append(tt.args, "--connect-timeout", "30s", "ls", "/")...)
			t.Logf("failed in %v: %s", time.Since(start), strings.TrimSpace(errOut))
			assertOneLineFailure(t, errOut, code, tt.want)
		})
	}
}

// TestSASLLeaderKill: the leader dies while an in-process holder (alice)
// holds a lock on a parent only sasl:alice may use and `zklock run` as
// alice waits behind it. Every member drops its clients at the election;
// both sessions come back only if they authenticate again, and run can
// list the parent (to see its turn) only then.
func TestSASLLeaderKill(t *testing.T) {
	c := sharedSASL.Cluster(t)
	alice := saslSession(t, c, "alice", "alice-secret")
	p := testPath(t)
	mkdirsAs(t, alice, p, aliceOnly)
	holder := holdOver(t, alice, p, ordering.LockHolding)
	args, env := saslFlags(c, "alice", "alice-secret")
	pr := startBinary(t, env, append(args, "run", p, "--", "sh", "-c", `echo "$ZKLOCK_NODE"`)...)
	eventually(t, 20*time.Second, "run's node to queue", func() bool {
		kids, _, _ := alice.ChildrenStat(context.Background(), p)
		return len(kids) == 2
	})
	gen := alice.Generation()
	leader, err := c.Leader(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Members()[leader].Kill(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Members()[leader].Restart(context.Background()) })
	eventually(t, 30*time.Second, "the holder's session to be suspended by the election", func() bool {
		return alice.State() != lockops.SessionConnected
	})
	eventually(t, 30*time.Second, "the holder's session to come back, authenticated", func() bool {
		return alice.State() == lockops.SessionConnected
	})
	if alice.Generation() != gen {
		t.Fatalf("the holder's session was replaced: the test wants the same session after the election")
	}
	if _, _, err := alice.ChildrenStat(context.Background(), p); err != nil {
		t.Fatalf("the alice-only parent after the reconnect: %v", err)
	}
	if err := holder.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code := pr.wait(t, 30*time.Second); code != 0 || !strings.HasPrefix(pr.out.String(), p+"/") {
		t.Fatalf("run after the election: code %d, out %q, stderr %q", code, pr.out.String(), pr.err.String())
	}
}

// mkdirsAs makes p and its parents through s (a SASL session: the raw
// test connections cannot authenticate), p itself with acl.
func mkdirsAs(t testing.TB, s *lockops.Session, p string, acl []zk.ACL) {
	t.Helper()
	cur := ""
	for _, seg := range strings.Split(strings.Trim(p, "/"), "/") {
		cur += "/" + seg
		a := zk.WorldACL(zk.PermAll)
		if cur == p {
			a = acl
		}
		if _, err := s.Create(context.Background(), cur, nil, 0, a); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			t.Fatalf("create %s: %v", cur, err)
		}
	}
}
