package lockops

import (
	"bufio"
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"testing"
	"time"
)

// parseWchc turns `wchc` output (a session id line, then one tab-indented
// path per watch) into session -> watched paths.
func parseWchc(out string) map[string][]string {
	w := map[string][]string{}
	var cur string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "0x"):
			cur = strings.TrimSpace(line)
		case strings.HasPrefix(line, "\t") && cur != "":
			w[cur] = append(w[cur], strings.TrimSpace(line))
		}
	}
	return w
}

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
		l := NewLock(s, p, WithProgress(func(pr Progress) {
			if pr.State == LockQueued {
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
	time.Sleep(3 * ownWatchDelay) // the holder's own-node watch is armed by now

	out, err := fourLetter(ctx, testServers(t)[0], "wchc")
	if err != nil {
		t.Fatal(err)
	}
	watches := parseWchc(out)
	abs := hs.Abs(p)
	kids := children(t, hs, p)
	q := Order(kids)
	if len(q.Entries) != waiters+1 {
		t.Fatalf("%d lock nodes, want %d", len(q.Entries), waiters+1)
	}
	owner := map[string]string{} // node -> session "0x..."
	for _, e := range q.Entries {
		_, st, err := hs.Conn().Get(abs + "/" + e.Name)
		if err != nil {
			t.Fatal(err)
		}
		owner[e.Name] = fmt.Sprintf("0x%x", st.EphemeralOwner)
	}
	watchers := map[string][]string{} // node -> sessions watching it
	for sess, paths := range watches {
		for _, wp := range paths {
			if path.Dir(wp) == abs {
				watchers[path.Base(wp)] = append(watchers[path.Base(wp)], normID(sess))
			}
		}
	}
	for _, e := range q.Entries {
		sess := owner[e.Name]
		var mine []string
		for _, wp := range watches[findSess(watches, sess)] {
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
			t.Errorf("waiter %s (session %s) watches %v: want its predecessor %s and at most one more", e.Name, sess, mine, e.Predecessor)
		}
	}
	t.Logf("holder %s watched by %v", q.Entries[0].Name, watchers[q.Entries[0].Name])
	cancel()
	wg.Wait()
	if c := children(t, hs, p); len(c) != 1 {
		t.Fatalf("children after cancelling the waiters: %d, want the holder alone", len(c))
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
}

// normID writes a session id as fmt's %x does (wchc pads it).
func normID(s string) string {
	return "0x" + strings.TrimLeft(strings.ToLower(strings.TrimPrefix(s, "0x")), "0")
}

func findSess(w map[string][]string, norm string) string {
	for k := range w {
		if normID(k) == norm {
			return k
		}
	}
	return ""
}
