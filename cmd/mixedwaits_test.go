package cmd

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox/peers"
)

// lsPaths runs `zklock ls --json` with args and decodes it.
func lsPaths(t *testing.T, args ...string) ([]model.JSONPath, int) {
	t.Helper()
	out, errOut, code := runBinary(t, nil, append([]string{serversFlag(t), "ls", "--json"}, args...)...)
	var paths []model.JSONPath
	if err := json.Unmarshal([]byte(out), &paths); err != nil {
		t.Fatalf("ls --json %v: %v (code %d, stderr %q)\n%s", args, err, code, errOut, out)
	}
	return paths, code
}

// TestMixedRecipesServersDecide: one Kazoo and one Curator client, each
// in its own session.
//
// Stock, on one path, they do not see each other: both are granted the
// lock, neither watches the other, and `ls` says split-holders (FACTS.md).
//
// Configured to see each other (Kazoo's extra_lock_patterns, a Curator
// lock driver sorting by sequence), they wait on each other's nodes, and
// taking A and B in opposite orders deadlocks. Their stock replays still
// predict two holders on each path; the servers' watches (wchc) decide:
// `ls --json` shows each waiter waiting on the other's node, verified,
// with no split-holders, and `sessions --check` names the cross-lock
// deadlock of the two sessions and exits 2, as `ls --check` does.
func TestMixedRecipesServersDecide(t *testing.T) {
	base := testPath(t)
	cfg := peers.Options{Servers: testCluster(t).Servers(), Sessions: 1}
	kz := peers.StartT(t, peers.Kazoo, cfg)
	cu := peers.StartT(t, peers.Curator, cfg)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	kzs, cus := model.SessionHex(kz.Session(0)), model.SessionHex(cu.Session(0))

	t.Run("stock clients split", func(t *testing.T) {
		p := base + "/stock"
		k, err := kz.Acquire(ctx, 0, p, peers.Mutex)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cu.Acquire(ctx, 0, p, peers.Mutex)
		if err != nil {
			t.Fatal(err)
		}
		paths, code := lsPaths(t, "--check", p)
		if code != exitCheck || len(paths) != 1 || len(paths[0].Queue) != 2 {
			t.Fatalf("ls --check: code %d, %+v", code, paths)
		}
		var split []string
		for _, w := range paths[0].Warnings {
			if w.Code == model.WarnSplitHolders {
				split = w.Nodes
			}
		}
		if !sameSet(split, []string{k.Node(), c.Node()}) {
			t.Errorf("split-holders %v, want %s and %s; warnings %+v", split, k.Node(), c.Node(), paths[0].Warnings)
		}
		for _, n := range paths[0].Queue {
			if n.Believes != "holder" || n.Watches != "" {
				t.Errorf("node %+v: want a believed holder watching nothing", n)
			}
		}
		if err := k.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("configured clients deadlock", func(t *testing.T) {
		a, b := base+"/a", base+"/b"
		ka, err := kz.Acquire(ctx, 0, a, peers.SeqMutex)
		if err != nil {
			t.Fatal(err)
		}
		cb, err := cu.Acquire(ctx, 0, b, peers.SeqMutex)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kz.Request(0, b, peers.SeqMutex); err != nil {
			t.Fatal(err)
		}
		if _, err := cu.Request(0, a, peers.SeqMutex); err != nil {
			t.Fatal(err)
		}
		holders := map[string][2]string{a: {ka.Node(), kzs}, b: {cb.Node(), cus}}
		waiters := map[string]string{a: cus, b: kzs}
		// Until both waiters have set their watches and a poll saw them.
		var paths []model.JSONPath
		eventually(t, 30*time.Second, "both waits verified by the servers", func() bool {
			paths, _ = lsPaths(t, a, b)
			return len(paths) == 2 && slices.IndexFunc(paths, func(jp model.JSONPath) bool {
				return len(jp.Queue) != 2 || jp.Queue[1].WatchVerified == nil || !*jp.Queue[1].WatchVerified
			}) < 0
		})
		for _, jp := range paths {
			h, w := jp.Queue[0], jp.Queue[1]
			if h.Node != holders[jp.Path][0] || h.Session != holders[jp.Path][1] || h.Believes != "holder" {
				t.Errorf("%s: holder %+v, want %v", jp.Path, h, holders[jp.Path])
			}
			if w.Session != waiters[jp.Path] || w.Believes != "waiting" || w.Watches != h.Node {
				t.Errorf("%s: waiter %+v, want session %s waiting on %s", jp.Path, w, waiters[jp.Path], h.Node)
			}
			for _, x := range jp.Warnings {
				if x.Code == model.WarnSplitHolders || x.Code == model.WarnMissingWatch {
					t.Errorf("%s: warning %+v: the servers show one holder and one waiter", jp.Path, x)
				}
			}
		}

		js, errOut, code := sessionsJSON(t, "--check", a, b)
		if code != exitCheck || len(js.Deadlocks) != 1 {
			t.Fatalf("sessions --check: code %d, stderr %q, %+v", code, errOut, js)
		}
		checkCycle(t, js.Deadlocks[0], model.CycleDeadlock, []string{kzs, cus}, []string{a, b})
		if _, errOut, code := runBinary(t, nil, serversFlag(t), "ls", "--check", a, b); code != exitCheck {
			t.Errorf("ls --check: code %d, stderr %q", code, errOut)
		}
	})
}
