package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
)

// holdEnvScript writes CMD's view of its hold to $OUT, then holds until
// $STOP exists, so that the node can be read while it is held.
const holdEnvScript = `echo "$ZKLOCK_NODE ${ZKLOCK_FENCING_TOKEN-unset} ${ZKLOCK_SEQ-unset} ${ZKLOCK_SESSION-unset}" > "$OUT.tmp"; mv "$OUT.tmp" "$OUT"; while [ ! -e "$STOP" ]; do sleep 0.05; done`

// runHoldEnv runs zklock run with args while CMD reports its environment,
// and returns the fields CMD saw (node, token, seq, session) with the
// node's stat read from ZooKeeper while CMD held it. env goes to zklock.
func runHoldEnvAndStat(t *testing.T, env []string, args ...string) ([]string, int64, int64) {
	t.Helper()
	dir := t.TempDir()
	out, stop := filepath.Join(dir, "env"), filepath.Join(dir, "stop")
	env = append(env, "OUT="+out, "STOP="+stop)
	pr := startBinary(t, env, append([]string{serversFlag(t), "run"}, append(args, "--", "sh", "-c", holdEnvScript)...)...)
	var fields []string
	eventually(t, 30*time.Second, "CMD to start", func() bool {
		b, _ := os.ReadFile(out)
		fields = strings.Fields(string(b))
		return len(fields) == 4
	})
	c := testConn(t)
	if _, err := c.Sync("/"); err != nil {
		t.Fatal(err)
	}
	ok, st, err := c.Exists(fields[0])
	if err != nil || !ok {
		t.Fatalf("ZKLOCK_NODE %q: %v %v", fields[0], ok, err)
	}
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := pr.wait(t, binaryLimit); code != 0 {
		t.Fatalf("code %d: %s", code, pr.err.String())
	}
	return fields, st.Czxid, st.EphemeralOwner
}

// TestRunFencingEnv: CMD's ZKLOCK_FENCING_TOKEN is its node's czxid and
// ZKLOCK_SESSION its owner, both as ZooKeeper reads them; ZKLOCK_SEQ is
// the node's sequence, and is unset for a node without one (a Kazoo
// lease) even when an outer run had set it; a later hold's token is
// higher.
func TestRunFencingEnv(t *testing.T) {
	p := testPath(t)
	f, czxid, owner := runHoldEnvAndStat(t, nil, p)
	t.Logf("CMD saw %v; the node's czxid %d, owner 0x%x", f, czxid, owner)
	n, ok := ordering.ParseName(filepath.Base(f[0]))
	if !ok || !strings.HasPrefix(f[0], p+"/") {
		t.Fatalf("ZKLOCK_NODE %q is not a lock node under %s", f[0], p)
	}
	if f[1] != strconv.FormatInt(czxid, 10) || f[2] != strconv.Itoa(int(n.Seq)) || f[3] != fmt.Sprintf("0x%x", owner) {
		t.Fatalf("CMD saw token %s seq %s session %s; the node: czxid %d, seq %d, owner 0x%x", f[1], f[2], f[3], czxid, n.Seq, owner)
	}

	lease := testPath(t)
	g, leaseCzxid, leaseOwner := runHoldEnvAndStat(t, []string{"ZKLOCK_SEQ=999"}, "--kind", "lease", "--limit", "1", "--style", "kazoo", lease)
	t.Logf("CMD saw %v; the lease's czxid %d, owner 0x%x", g, leaseCzxid, leaseOwner)
	if g[1] != strconv.FormatInt(leaseCzxid, 10) || g[2] != "unset" || g[3] != fmt.Sprintf("0x%x", leaseOwner) {
		t.Fatalf("CMD saw token %s seq %s session %s; the lease: czxid %d, no sequence, owner 0x%x", g[1], g[2], g[3], leaseCzxid, leaseOwner)
	}
	if leaseCzxid <= czxid {
		t.Fatalf("the later hold's token %d is not above %d", leaseCzxid, czxid)
	}
}
