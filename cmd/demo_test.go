package cmd

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// freeLoopbackPort is a port of 127.0.0.1 that was free a moment ago.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestE2EDemoPort: `demo --port N` puts its ZooKeeper on 127.0.0.1:N, so a
// second zklock reads the demo's locks there.
func TestE2EDemoPort(t *testing.T) {
	bin := buildBinary(t)
	port := strconv.Itoa(freeLoopbackPort(t))
	p := startPane(t, 160, 48, e2eEnv(t), bin, "demo", "--port", port)
	p.waitText("zklock demo", "/demo/locks/billing")
	eventually(t, 30*time.Second, "ls on the demo's port to show billing's contenders", func() bool {
		out, errOut, code := runBinary(t, nil, "--servers=127.0.0.1:"+port, "ls", "--json", "/demo/locks/billing")
		if code != 0 {
			t.Fatalf("ls on the demo's port: code %d, stderr %q", code, errOut)
		}
		jp := lsJSON(t, out)[0]
		return jp.Exists && len(jp.Queue) > 0
	})
	p.keys("q")
	p.waitText("[exit 0]")
}

// TestDemoPortRefused: a --port in use is refused in one line before
// ZooKeeper is started, as are a port out of range and --port with an
// ensemble of the operator's.
func TestDemoPortRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"demo", "--port", busy}, "port " + busy + " on 127.0.0.1 is taken", exitFailure},
		{[]string{"demo", "--port", "70000"}, "want a port from 1 to 65535", exitUsage},
		{[]string{"--servers=127.0.0.1:1", "demo", "--port", busy}, "with --servers or --context the demo uses that ensemble", exitUsage},
	} {
		start := time.Now()
		_, errOut, code := runBinary(t, nil, tc.args...)
		assertOneLineFailure(t, errOut, code, tc.want)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.code)
		}
		if strings.Contains(errOut, "starting a local ZooKeeper") || time.Since(start) > hangGuard {
			t.Errorf("%v: refused only after starting ZooKeeper (%v)", tc.args, time.Since(start))
		}
	}
}
