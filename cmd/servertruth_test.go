package cmd

import (
	"context"
	"encoding/json"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
)

// TestLsCheckUnwatchedWaiter: a waiter that set no watch (a raw
// ephemeral-sequential node) is flagged missing-watch by one `ls --check`
// (exit 2), on a server as deployed (default whitelist, AdminServer) and
// on one that allows every four-letter word; a waiter that watches is
// not; and it stays flagged once the holder has gone.
func TestLsCheckUnwatchedWaiter(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opts sandbox.Options
	}{
		{"default whitelist with the AdminServer", sandbox.Options{FourLetterWords: sandbox.ZooKeeperDefaultWords, AdminServer: &sandbox.AdminOptions{}}},
		{"four-letter words", sandbox.Options{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cl := sandboxtest.Start(t, tt.opts)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			p := "/locks/stuck"
			connect := func() *lockops.Session {
				s, err := lockops.Connect(ctx, cl.Servers())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(s.Close)
				return s
			}
			holder := lockops.NewLock(connect(), p)
			if err := holder.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
			waiter := lockops.NewLock(connect(), p)
			go func() { _ = waiter.Acquire(ctx) }()
			eventually(t, 20*time.Second, "the waiter", func() bool { return waiter.State() == ordering.LockQueued })
			raw := sandboxtest.Connect(t, cl.Servers(), 10*time.Second)
			node, err := raw.Create(p+"/lock-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
			if err != nil {
				t.Fatal(err)
			}
			_, stat, err := raw.Get(node)
			if err != nil {
				t.Fatal(err)
			}
			// The rule: older than the grace (1 s) by its ctime.
			eventually(t, 10*time.Second, "the raw node older than the grace", func() bool {
				return time.Since(time.UnixMilli(stat.Ctime)) > 1500*time.Millisecond
			})
			args := []string{"--servers", cl.ConnectString(), "--admin-port", "0"}
			if m := cl.Members()[0]; m.AdminAddr() != "" {
				_, port, _ := net.SplitHostPort(m.AdminAddr())
				args[3] = port
			}
			checkMissing := func(when string) {
				t.Helper()
				out, errOut, code := runBinary(t, nil, append(args, "ls", "--json", "--check", p)...)
				var paths []model.JSONPath
				if err := json.Unmarshal([]byte(out), &paths); err != nil || len(paths) != 1 {
					t.Fatalf("%s: %v (stderr %q)\n%s", when, err, errOut, out)
				}
				var flagged []string
				for _, w := range paths[0].Warnings {
					if w.Code == model.WarnMissingWatch {
						flagged = w.Nodes
					}
				}
				if code != exitCheck || !slices.Equal(flagged, []string{node[len(p)+1:]}) {
					t.Errorf("%s: exit %d, missing-watch on %v; want 2 and %s\n%s", when, code, flagged, node, out)
				}
			}
			checkMissing("behind a holder")
			if err := holder.Release(ctx); err != nil {
				t.Fatal(err)
			}
			eventually(t, 20*time.Second, "the waiter to hold", func() bool { return waiter.State() == ordering.LockHolding })
			checkMissing("once the holder went")
		})
	}
}
