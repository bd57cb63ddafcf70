package lockops

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/lockops/ordering"
)

// TestNoHerdWchc: with 32 waiters queued, the server's own watch list
// shows every waiter watching its predecessor and at most one more node,
// and the holder watched by at most two other sessions.
func TestNoHerdWchc(t *testing.T) {
	const waiters = 32
	p := lockPath(t)
	ctx := tctx(t, 40*time.Second)
	hs := connect(t)
	holder := NewLock(hs, p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu     sync.Mutex
		queued = map[int]bool{}
		wg     sync.WaitGroup
	)
	for i := range waiters {
		s := connect(t)
		l := NewLock(s, p, WithProgress(func(pr ordering.Progress) {
			if pr.State == ordering.LockQueued {
				mu.Lock()
				queued[i] = true
				mu.Unlock()
			}
		}))
		wg.Add(1)
		go func() { defer wg.Done(); _ = l.Acquire(wctx) }()
	}
	eventually(t, 20*time.Second, "all waiters queued", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(queued) == waiters
	})
	abs := hs.Abs(p)
	kids := children(t, hs, p)
	q := ordering.Order(kids)
	if len(q.Entries) != waiters+1 {
		t.Fatalf("%d lock nodes, want %d", len(q.Entries), waiters+1)
	}
	owner := map[string]int64{} // node -> session
	for _, e := range q.Entries {
		_, st, err := hs.conn.Get(abs + "/" + e.Name)
		if err != nil {
			t.Fatal(err)
		}
		owner[e.Name] = st.EphemeralOwner
	}
	// Judge the watches once the server lists every one the recipe sets
	// (each waiter's on its predecessor, the holder's on its own node,
	// armed ownWatchDelay after it holds): a watch armed late is then in
	// the list judged, never missed.
	var watches map[int64][]string
	eventually(t, 20*time.Second, "the server listing every waiter's watch and the holder's own", func() bool {
		out, err := fourletter.Ask(ctx, testServers(t)[0], "wchc")
		if err != nil {
			t.Fatal(err)
		}
		watches = fourletter.ParseWchc(out)
		for _, e := range q.Entries {
			want := e.Predecessor
			if want == "" {
				want = e.Name // the holder watches its own node
			}
			if !slices.Contains(watches[owner[e.Name]], abs+"/"+want) {
				return false
			}
		}
		return true
	})
	watchers := map[string][]int64{} // node -> sessions watching it
	for sess, paths := range watches {
		for _, wp := range paths {
			if path.Dir(wp) == abs {
				watchers[path.Base(wp)] = append(watchers[path.Base(wp)], sess)
			}
		}
	}
	for _, e := range q.Entries {
		sess := owner[e.Name]
		var mine []string
		for _, wp := range watches[sess] {
			if path.Dir(wp) == abs {
				mine = append(mine, path.Base(wp))
			}
		}
		others := 0
		for _, s := range watchers[e.Name] {
			if s != sess {
				others++
			}
		}
		if others > 2 {
			t.Errorf("%s watched by %d other sessions: a herd", e.Name, others)
		}
		if e.Predecessor == "" {
			continue // the holder
		}
		hasPred := false
		for _, m := range mine {
			hasPred = hasPred || m == e.Predecessor
		}
		if !hasPred || len(mine) > 2 {
			t.Errorf("waiter %s (session 0x%x) watches %v: want its predecessor %s and at most one more", e.Name, sess, mine, e.Predecessor)
		}
	}
	t.Logf("holder %s watched by %#x", q.Entries[0].Name, watchers[q.Entries[0].Name])
	cancel()
	wg.Wait()
	if c := children(t, hs, p); len(c) != 1 {
		t.Fatalf("children after cancelling the waiters: %d, want the holder alone", len(c))
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// parseWchc is fourletter.ParseWchc keyed by session ids written as
// "0x%x", for tests that compare them with such strings.
func parseWchc(out string) map[string][]string {
	w := map[string][]string{}
	for id, paths := range fourletter.ParseWchc(out) {
		w[fmt.Sprintf("0x%x", id)] = paths
	}
	return w
}

// findSess returns the key of w for the session written as "0x%x", or ""
// when that session watches nothing.
func findSess(w map[string][]string, id string) string {
	if _, ok := w[id]; ok {
		return id
	}
	return ""
}
