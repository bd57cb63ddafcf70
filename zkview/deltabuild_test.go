package zkview

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestSelfWaitJoined: the self-wait warning of a queue that only grew at
// its tail, worked out from the last one, is the one a full read gives.
func TestSelfWaitJoined(t *testing.T) {
	for name, tc := range map[string]struct {
		before, joined []Node
	}{
		"none, none joins":   {[]Node{hold(1, 7, time.Minute), wait(2, 8, time.Minute)}, []Node{wait(3, 9, time.Second)}},
		"none, one joins":    {[]Node{hold(1, 7, time.Minute), wait(2, 8, time.Minute)}, []Node{wait(3, 7, time.Second)}},
		"one, two join":      {[]Node{hold(1, 7, time.Minute), wait(2, 7, time.Minute)}, []Node{wait(3, 8, time.Second), wait(4, 7, time.Second), wait(5, 7, time.Second)}},
		"one, none joins":    {[]Node{hold(1, 7, time.Minute), wait(2, 7, time.Minute)}, []Node{wait(3, 8, time.Second)}},
		"holder of no owner": {[]Node{hold(1, 0, time.Minute), wait(2, 0, time.Minute)}, []Node{wait(3, 0, time.Second)}},
	} {
		prev := mutexQ("/a", tc.before...)
		if w, ok := selfWaitWarning(&prev); ok {
			prev.Warnings = []Warning{w}
		}
		q := mutexQ("/a", append(append([]Node(nil), tc.before...), tc.joined...)...)
		var want []Warning
		if w, ok := selfWaitWarning(&q); ok {
			want = []Warning{w}
		}
		if got := selfWaitJoined(&prev, &q, len(tc.before)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", name, got, want)
		}
	}
}

// TestSelfWaitLeft: the self-wait warning of a queue whose tail left,
// worked out from the last one, is the one a full read gives, and the
// last one's list of nodes is not altered by joins that follow.
func TestSelfWaitLeft(t *testing.T) {
	for name, tc := range map[string]struct {
		nodes []Node
		keep  int
	}{
		"none":             {[]Node{hold(1, 7, time.Minute), wait(2, 8, time.Minute), wait(3, 7, time.Minute)}, 2},
		"the last leaves":  {[]Node{hold(1, 7, time.Minute), wait(2, 7, time.Minute), wait(3, 7, time.Minute)}, 2},
		"all of them":      {[]Node{hold(1, 7, time.Minute), wait(2, 8, time.Minute), wait(3, 7, time.Minute), wait(4, 7, time.Minute)}, 2},
		"others leave":     {[]Node{hold(1, 7, time.Minute), wait(2, 7, time.Minute), wait(3, 8, time.Minute), wait(4, 9, time.Minute)}, 2},
		"first stays only": {[]Node{hold(1, 7, time.Minute), wait(2, 7, time.Minute), wait(3, 7, time.Minute), wait(4, 7, time.Minute)}, 2},
	} {
		prev := mutexQ("/a", tc.nodes...)
		if w, ok := selfWaitWarning(&prev); ok {
			prev.Warnings = []Warning{w}
		}
		before := append([]Warning(nil), prev.Warnings...)
		if len(before) > 0 {
			before[0].Nodes = append([]string(nil), before[0].Nodes...)
		}
		q := mutexQ("/a", tc.nodes[:tc.keep]...)
		var want []Warning
		if w, ok := selfWaitWarning(&q); ok {
			want = []Warning{w}
		}
		got := selfWaitLeft(&prev, &q, tc.keep)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", name, got, want)
		}
		joined := mutexQ("/a", append(append([]Node(nil), tc.nodes[:tc.keep]...), wait(9, 7, 0))...)
		q.Warnings = got
		selfWaitJoined(&q, &joined, tc.keep)
		if !reflect.DeepEqual(prev.Warnings, before) {
			t.Errorf("%s: prev's warning altered: %+v", name, prev.Warnings)
		}
	}
}

// TestSelfWaitMerged: the self-wait warning worked out from the last one
// after random changes (waiters leaving anywhere, nodes joining at the
// tail, the holder staying or going) is the one a full read gives
// whenever selfWaitMerged takes the change, and it takes every change
// that keeps the holder.
func TestSelfWaitMerged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 400 {
		var nodes []Node
		seq := int32(0)
		for i := range 2 + r.IntN(30) {
			n := wait(seq, int64(1+r.IntN(3)), 0)
			if i == 0 {
				n = hold(seq, n.Session, 0)
			}
			nodes = append(nodes, n)
			seq++
		}
		prev := mutexQ("/a", nodes...)
		if w, ok := selfWaitWarning(&prev); ok {
			prev.Warnings = []Warning{w}
		}
		var kept []Node
		var removed []string
		holderLeft := false
		for i, n := range nodes {
			if r.IntN(5) == 0 && (i > 0 || r.IntN(4) == 0) {
				removed = append(removed, n.Name)
				holderLeft = holderLeft || i == 0
				continue
			}
			kept = append(kept, n)
		}
		for range r.IntN(4) {
			kept = append(kept, wait(seq, int64(1+r.IntN(3)), 0))
			seq++
		}
		if r.IntN(4) == 0 { // created and removed between two builds
			removed = append(removed, wait(seq, 1, 0).Name)
			seq++
		}
		if len(kept) == 0 {
			continue
		}
		if holderLeft {
			kept[0] = hold(kept[0].Seq, kept[0].Session, 0)
		}
		q := mutexQ("/a", kept...)
		var want []Warning
		if w, ok := selfWaitWarning(&q); ok {
			want = []Warning{w}
		}
		got, ok := selfWaitMerged(&prev, &q, removed)
		if !ok {
			if !holderLeft {
				t.Fatalf("round %d: refused a change that kept the holder", round)
			}
			continue
		}
		if holderLeft {
			t.Fatalf("round %d: took a change of holder", round)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d:\ngot  %+v\nwant %+v", round, got, want)
		}
	}
}
