package model

import (
	"fmt"
	"slices"
	"testing"

	"github.com/zklock/zklock/lockops/ordering"
)

// cur and kz are stock Curator and Kazoo mutex node names with sequence
// seq; who tells nodes of one sequence apart (its uuid).
func cur(who, seq int) string {
	return fmt.Sprintf("_c_%08x-2b4c-4d5e-8f90-1a2b3c4d5e6f-lock-%010d", who, seq)
}

func kz(who, seq int) string { return fmt.Sprintf("a%031x__lock__%010d", who, seq) }

func TestServerWaits(t *testing.T) {
	type node struct {
		name    string
		session int64
		watches []string // children its session holds a data watch on
	}
	const self = 99
	for _, tt := range []struct {
		name  string
		nodes []node // any order: ordered by ordering.Order
		want  []ServerWait
	}{
		{
			// Stock clients do not see each other: no watches, both hold
			// by their replays (split-holders stays).
			name:  "stock mixed queue",
			nodes: []node{{kz(1, 0), 1, nil}, {cur(2, 1), 2, nil}},
		},
		{
			// Kazoo holds; a Curator lock sorting by sequence waits on it.
			name:  "curator waits on kazoo",
			nodes: []node{{kz(1, 0), 1, nil}, {cur(2, 1), 2, []string{kz(1, 0)}}},
			want:  []ServerWait{{1, kz(1, 0)}},
		},
		{
			// Curator holds; Kazoo with extra_lock_patterns waits on it.
			name:  "kazoo waits on curator",
			nodes: []node{{cur(2, 0), 2, nil}, {kz(1, 1), 1, []string{cur(2, 0)}}},
			want:  []ServerWait{{1, cur(2, 0)}},
		},
		{
			// Stock Curator predicts cur 2 waits on cur 0 (it sorts the
			// Kazoo node last); the servers show it on the Kazoo node.
			name: "waiter watches another node than predicted",
			nodes: []node{
				{cur(1, 0), 1, nil},
				{kz(2, 1), 2, []string{cur(1, 0)}},
				{cur(3, 2), 3, []string{kz(2, 1)}},
			},
			want: []ServerWait{{1, cur(1, 0)}, {2, kz(2, 1)}},
		},
		{
			name:  "plain queue, every waiter on its predecessor",
			nodes: []node{{cur(1, 0), 1, nil}, {cur(2, 1), 2, []string{cur(1, 0)}}, {cur(3, 2), 3, []string{cur(2, 1)}}},
		},
		{
			// The lock core watches its predecessor and one further.
			name:  "a spare watch one further",
			nodes: []node{{cur(1, 0), 1, nil}, {cur(2, 1), 2, []string{cur(1, 0)}}, {cur(3, 2), 3, []string{cur(2, 1), cur(1, 0)}}},
		},
		{
			// A watch on a node after all the session's nodes (a wait that
			// timed out, or a monitor sharing the session) places no wait.
			name:  "watch on a later node",
			nodes: []node{{kz(1, 0), 1, []string{cur(2, 1)}}, {cur(2, 1), 2, nil}},
		},
		{
			// The monitor's watches tell no wait, even where its session
			// owns a node (a lock taken from the console).
			name:  "the monitor's own session",
			nodes: []node{{kz(1, 0), 1, nil}, {cur(2, 1), 2, nil}, {cur(9, 2), self, []string{kz(1, 0)}}},
		},
		{
			// Session 1 holds kz 0 and queued cur 2 from another thread:
			// its watch on cur 1 belongs to cur 2, its node after it.
			name: "two nodes of one session",
			nodes: []node{
				{kz(1, 0), 1, []string{cur(2, 1)}},
				{cur(2, 1), 2, []string{kz(1, 0)}},
				{cur(1, 2), 1, nil},
			},
			want: []ServerWait{{1, kz(1, 0)}},
		},
		{
			// Not predicted by either rule: the nearest node after the
			// watched one, on the node it watches.
			name: "nearest node after the watched one",
			nodes: []node{
				{kz(1, 0), 1, nil},
				{cur(2, 1), 2, []string{kz(1, 0)}},
				{cur(3, 2), 3, []string{kz(1, 0)}},
			},
			want: []ServerWait{{1, kz(1, 0)}, {2, kz(1, 0)}},
		},
		{
			// Two watches shown, neither predicted: the one nearest before.
			name: "several watches, nearest before wins",
			nodes: []node{
				{kz(1, 0), 1, nil},
				{kz(2, 1), 2, []string{kz(1, 0)}},
				{cur(3, 2), 3, []string{kz(1, 0), kz(2, 1)}},
			},
			want: []ServerWait{{2, kz(2, 1)}},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			owners := map[string]int64{}
			watchers := map[string][]int64{}
			var names []string
			for _, n := range tt.nodes {
				names = append(names, n.name)
				owners[n.name] = n.session
				for _, w := range n.watches {
					watchers[w] = append(watchers[w], n.session)
				}
			}
			q := ordering.Order(names)
			owner := func(i int) int64 { return owners[q.Entries[i].Name] }
			see := func(name string) []int64 { return watchers[name] }
			got := ServerWaits(q.Entries, owner, see, self)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("ServerWaits = %v, want %v", got, tt.want)
			}
			before := q.SplitHolders()
			if n := FollowServerWaits(q.Entries, owner, see, self); n != len(tt.want) {
				t.Fatalf("FollowServerWaits changed %d entries, want %d", n, len(tt.want))
			}
			for _, w := range tt.want {
				if e := q.Entries[w.Index]; e.Believes != ordering.RoleWaiting || e.Watches != w.On {
					t.Errorf("entry %d believes %v on %q, want waiting on %q", w.Index, e.Believes, e.Watches, w.On)
				}
			}
			// A node the servers show waiting is no believed holder.
			if tt.want != nil && before != nil && q.SplitHolders() != nil {
				t.Errorf("still split holders %v", q.SplitHolders())
			}
		})
	}
}

// BenchmarkServerWaits10000: a 10,000-node Curator queue where every
// waiter's session watches its predecessor, as the servers show a healthy
// queue: what following the servers adds to a rebuild with the server view.
func BenchmarkServerWaits10000(b *testing.B) {
	const n = 10000
	names := make([]string, n)
	watchers := make(map[string][]int64, n)
	for i := range n {
		names[i] = cur(i, i)
		if i > 0 {
			watchers[names[i-1]] = []int64{int64(i + 1)}
		}
	}
	q := ordering.Order(names)
	owners := make(map[string]int64, n)
	for i, e := range q.Entries {
		owners[e.Name] = int64(i + 1)
	}
	owner := func(i int) int64 { return owners[q.Entries[i].Name] }
	see := func(name string) []int64 { return watchers[name] }
	b.ReportAllocs()
	for b.Loop() {
		if ServerWaits(q.Entries, owner, see, 0) != nil {
			b.Fatal("a healthy queue changed")
		}
	}
}
