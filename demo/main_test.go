package demo

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"zklock/sandbox"
)

// The package's tests share one standalone ZooKeeper, started by the first
// test that needs it and stopped by TestMain.
var shared struct {
	once sync.Once
	c    *sandbox.Cluster
	err  error
}

// testCluster is the shared server; its short tick allows the demo's
// short sessions.
func testCluster(t testing.TB) *sandbox.Cluster {
	t.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		shared.c, shared.err = sandbox.Start(ctx, sandbox.Options{Members: 1, TickTime: TickTime})
	})
	if shared.err != nil {
		t.Fatalf("these tests need a real ZooKeeper (make deps, or apt-get install zookeeper default-jre-headless): %v", shared.err)
	}
	return shared.c
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.c != nil {
		shared.c.Close()
	}
	os.Exit(code)
}
