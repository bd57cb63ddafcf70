package peers

import (
	"context"
	"testing"
	"time"
)

// startTWait bounds StartT's start: a first compile of the Curator driver
// and a JVM start on a loaded 2-core machine take seconds, not minutes.
const startTWait = 2 * time.Minute

// StartT starts a driver for a test or benchmark and closes it when the
// test ends. When the client library is missing, or the driver does not
// start, the test fails (it does not skip: a test that needs a peer and
// silently skips tests nothing) with an error that names what to install.
// A test that fails later gets the driver's last stderr lines.
func StartT(t testing.TB, kind Kind, cfg Options) *Proc {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), startTWait)
	defer cancel()
	p, err := Start(ctx, kind, cfg)
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			if tail := p.LogTail(40); tail != "" {
				t.Logf("%s driver stderr:\n%s", kind, tail)
			}
		}
		if err := p.Close(); err != nil {
			t.Errorf("close %s driver: %v", kind, err)
		}
	})
	return p
}
