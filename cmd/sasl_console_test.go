package cmd

import (
	"strings"
	"testing"

	"github.com/zklock/zklock/lockops/ordering"
)

// TestSASLConsoleHeader: the console authenticated as alice shows the
// queue of a parent only sasl:alice may read, and its header says whom
// the session authenticates as. Driven in tmux with the e2e helpers.
func TestSASLConsoleHeader(t *testing.T) {
	c := sharedSASL.Cluster(t)
	bin := buildBinary(t)
	alice := saslSession(t, c, "alice", "alice-secret")
	p := testPath(t)
	mkdirsAs(t, alice, p, aliceOnly)
	holder := holdOver(t, alice, p, ordering.LockHolding)
	args, env := saslFlags(c, "alice", "alice-secret")
	pane := startPane(t, 160, 48, e2eEnv(t, env...), append([]string{bin}, append(args, p)...)...)
	s := pane.waitText("sasl alice", holder.Node()[:11])
	if header := strings.SplitN(s, "\n", 2)[0]; !strings.Contains(header, "sasl alice") {
		t.Errorf("header %q does not say the SASL identity", header)
	}
	pane.keys("q")
	pane.waitText("[exit 0]")
}
