package cmd

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox/peers"
)

// TestWatchJSONStockClients: stock Curator and Kazoo clients queue on a
// lock and hand it over; every acquire and release they report appears in
// `watch --json` once, in their order, with their session and recipe.
func TestWatchJSONStockClients(t *testing.T) {
	for _, tc := range []struct {
		kind   peers.Kind
		recipe string
	}{{peers.Curator, "curator"}, {peers.Kazoo, "kazoo"}} {
		t.Run(string(tc.kind), func(t *testing.T) {
			p := testPath(t)
			c := testConn(t)
			mkdirs(t, c, p, nil)
			w := startBinary(t, nil, serversFlag(t), "watch", "--json", p)
			waitWatching(t, w, c, p)

			const n = 3
			proc := peers.StartT(t, tc.kind, peers.Options{Servers: testCluster(t).Servers(), Sessions: n})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			holds := make([]*peers.Hold, n)
			for i := range n {
				h, err := proc.Request(i, p, peers.Mutex)
				if err != nil {
					t.Fatal(err)
				}
				holds[i] = h
				// One at a time, so the queue's order is the clients'.
				eventually(t, 20*time.Second, "the request to queue", func() bool {
					k, _, _ := c.Children(p)
					return len(k) == i+1
				})
			}
			// The clients report their acquisitions; each is released once
			// the stream has told it.
			var order []string
			for range n {
				var h *peers.Hold
				for h == nil {
					for _, x := range holds {
						if x.Held() && !slices.Contains(order, x.Node()) {
							h = x
						}
					}
					if h == nil {
						select {
						case <-ctx.Done():
							t.Fatal("no client acquired")
						case <-time.After(10 * time.Millisecond):
						}
					}
				}
				order = append(order, h.Node())
				eventually(t, 20*time.Second, "the acquire in the stream", func() bool {
					return hasChange(watchLines(t, w.out.String()), "acquired", h.Node())
				})
				if err := h.Release(ctx); err != nil {
					t.Fatal(err)
				}
			}
			eventually(t, 20*time.Second, "the last release in the stream", func() bool {
				return hasChange(watchLines(t, w.out.String()), "released", order[n-1])
			})

			sessions := proc.Sessions()
			cs := watchLines(t, w.out.String())
			var acquired []string
			for _, h := range holds {
				var events []string
				for _, ch := range cs {
					if ch.Node != h.Node() {
						continue
					}
					events = append(events, ch.Event)
					if ch.Session != model.SessionHex(sessions[h.Client()]) || ch.Recipe != tc.recipe || ch.Path != p {
						t.Errorf("%s: %+v, want session %s, recipe %s", h.Node(), ch, model.SessionHex(sessions[h.Client()]), tc.recipe)
					}
					if ch.Event == "acquired" {
						acquired = append(acquired, ch.Node)
					}
				}
				if !slices.Equal(events, []string{"joined", "acquired", "released"}) {
					t.Errorf("%s: events %v, want joined, acquired, released once each", h.Node(), events)
				}
			}
			if !slices.Equal(acquired, order) {
				t.Errorf("acquired in the stream in order %v; the clients acquired in order %v", acquired, order)
			}
		})
	}
}
