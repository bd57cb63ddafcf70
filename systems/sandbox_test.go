package systems

import (
	"context"
	"errors"
	"os"
	"path"
	"testing"
	"time"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// The integration tests share one standalone ZooKeeper, started by the
// first test that needs it (the pure tests never do) and stopped by
// TestMain.
var shared = &sandboxtest.Shared{Options: sandbox.Options{Members: 1, TickTime: 100 * time.Millisecond},
	Hint: "systems integration tests build each system's layout on a real ZooKeeper"}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Close()
	os.Exit(code)
}

// sessionTimeout is long enough that no test session expires while a
// test runs on a loaded machine; sessions end by Close, on purpose.
const sessionTimeout = 10 * time.Second

// connect opens n sessions to the shared server.
func connect(t *testing.T, n int) []*zk.Conn {
	t.Helper()
	servers := shared.Cluster(t).Servers()
	conns := make([]*zk.Conn, n)
	for i := range conns {
		conns[i] = sandboxtest.Connect(t, servers, sessionTimeout)
	}
	return conns
}

// sessionsOf lists the connections' session ids, the owners specs name.
func sessionsOf(conns []*zk.Conn) []int64 {
	ids := make([]int64, len(conns))
	for i, c := range conns {
		ids[i] = c.SessionID()
	}
	return ids
}

var openACL = zk.WorldACL(zk.PermAll)

// zkBuild creates specs on the server as the systems do: parents made
// persistent and empty (a recipe's ensurePath), each
// node by its owner's session with its mode (a persistent node's owner
// is only the session that makes it). It returns the paths made.
func zkBuild(t *testing.T, conns []*zk.Conn, specs ...spec) []string {
	t.Helper()
	var made []string
	for _, s := range specs {
		c := conns[s.owner]
		ensureParents(t, c, path.Dir(s.path))
		var flags int32
		if s.eph {
			flags = zk.FlagEphemeral
		}
		if s.seq {
			flags |= zk.FlagSequence
		}
		p, err := c.Create(s.path, s.data, flags, openACL)
		if err != nil {
			t.Fatalf("create %s: %v", s.path, err)
		}
		made = append(made, p)
	}
	return made
}

func ensureParents(t *testing.T, c *zk.Conn, p string) {
	t.Helper()
	if p == "/" {
		return
	}
	ensureParents(t, c, path.Dir(p))
	if _, err := c.Create(p, nil, 0, openACL); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("create %s: %v", p, err)
	}
}

// readWait bounds a wait for the server to show a change.
const readWait = 20 * time.Second

// waitGone waits, on an exists watch, until p no longer exists (a closed
// session's ephemeral nodes go when the server processes the close).
func waitGone(t *testing.T, c *zk.Conn, p string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), readWait)
	defer cancel()
	for {
		ok, _, ch, err := c.ExistsW(p)
		if err != nil {
			t.Fatalf("exists %s: %v", p, err)
		}
		if !ok {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("%s still exists after %v", p, readWait)
		}
	}
}

// readRecognize reads root from the server and recognises p in it.
func readRecognize(t *testing.T, c *zk.Conn, root, p string) Recognition {
	t.Helper()
	tree, err := ReadTree(t.Context(), c, root, 10000)
	if err != nil {
		t.Fatalf("read %s: %v", root, err)
	}
	return recognizeOne(t, tree, p)
}
