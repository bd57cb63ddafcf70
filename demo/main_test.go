package demo

import (
	"os"
	"testing"

	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// The package's tests share one standalone ZooKeeper, started by the first
// test that needs it and stopped by TestMain.
var shared = &sandboxtest.Shared{Options: sandbox.Options{Members: 1, TickTime: TickTime}}

// testCluster is the shared server; its short tick allows the demo's
// short sessions.
func testCluster(t testing.TB) *sandbox.Cluster {
	t.Helper()
	return shared.Cluster(t)
}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Close()
	os.Exit(code)
}
