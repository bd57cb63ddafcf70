package lockops

import (
	"os"
	"testing"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// The package's integration tests share one standalone ZooKeeper, started
// by the first test that needs it (the pure ordering tests never do) and
// stopped by TestMain. Its 100 ms tick allows session timeouts down to
// 200 ms, so tests of expiry take a second, not a minute.
var shared = &sandboxtest.Shared{Options: sandbox.Options{Members: 1, TickTime: 100 * time.Millisecond}, Hint: "lockops tests need a real ZooKeeper"}

func testCluster(t testing.TB) *sandbox.Cluster {
	t.Helper()
	return shared.Cluster(t)
}

func testServers(t testing.TB) []string { return testCluster(t).Servers() }

// fourLetter is fourletter.Ask, the name interop_test.go asks by.
var fourLetter = fourletter.Ask

// newTestProxy puts a proxy in front of the shared server, closed at the
// end of the test.
func newTestProxy(t testing.TB) *sandbox.Proxy {
	t.Helper()
	p, err := sandbox.NewProxy(testServers(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Close()
	sharedTLS.Close()
	os.Exit(code)
}
