package model_test

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
)

// TestSelfWaitJoined: the self-wait warning of a queue that only grew at
// its tail, worked out from the last one, is the one a full read gives.
func TestSelfWaitJoined(t *testing.T) {
	for name, tc := range map[string]struct {
		before, joined []model.Node
	}{
		"none, none joins":   {[]model.Node{modeltest.Hold(1, 7, time.Minute), modeltest.Wait(2, 8, time.Minute)}, []model.Node{modeltest.Wait(3, 9, time.Second)}},
		"none, one joins":    {[]model.Node{modeltest.Hold(1, 7, time.Minute), modeltest.Wait(2, 8, time.Minute)}, []model.Node{modeltest.Wait(3, 7, time.Second)}},
		"one, two join":      {[]model.Node{modeltest.Hold(1, 7, time.Minute), modeltest.Wait(2, 7, time.Minute)}, []model.Node{modeltest.Wait(3, 8, time.Second), modeltest.Wait(4, 7, time.Second), modeltest.Wait(5, 7, time.Second)}},
		"one, none joins":    {[]model.Node{modeltest.Hold(1, 7, time.Minute), modeltest.Wait(2, 7, time.Minute)}, []model.Node{modeltest.Wait(3, 8, time.Second)}},
		"holder of no owner": {[]model.Node{modeltest.Hold(1, 0, time.Minute), modeltest.Wait(2, 0, time.Minute)}, []model.Node{modeltest.Wait(3, 0, time.Second)}},
	} {
		prev := modeltest.MutexQ("/a", tc.before...)
		if w, ok := model.SelfWaitWarning(&prev); ok {
			prev.SetWarnings([]model.Warning{w})
		}
		q := modeltest.MutexQ("/a", append(append([]model.Node(nil), tc.before...), tc.joined...)...)
		var want []model.Warning
		if w, ok := model.SelfWaitWarning(&q); ok {
			want = []model.Warning{w}
		}
		if got := model.SelfWaitJoined(&prev, &q, len(tc.before)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", name, got, want)
		}
	}
}

// TestSelfWaitLeft: the self-wait warning of a queue whose tail left,
// worked out from the last one, is the one a full read gives, and the
// last one's list of nodes is not altered by joins that follow.
func TestSelfWaitLeft(t *testing.T) {
	for name, tc := range map[string]struct {
		nodes []model.Node
		keep  int
	}{
		"none":             {[]model.Node{modeltest.Hold(1, 7, time.Minute), modeltest.Wait(2, 8, time.Minute), modeltest.Wait(3, 7, time.Minute)}, 2},
		"the last leaves":  {[]model.Node{modeltest.Hold(1, 7, time.Minute), modeltest.Wait(2, 7, time.Minute), modeltest.Wait(3, 7, time.Minute)}, 2},
		"all of them":      {[]model.Node{modeltest.Hold(1, 7, time.Minute), modeltest.Wait(2, 8, time.Minute), modeltest.Wait(3, 7, time.Minute), modeltest.Wait(4, 7, time.Minute)}, 2},
		"others leave":     {[]model.Node{modeltest.Hold(1, 7, time.Minute), modeltest.Wait(2, 7, time.Minute), modeltest.Wait(3, 8, time.Minute), modeltest.Wait(4, 9, time.Minute)}, 2},
		"first stays only": {[]model.Node{modeltest.Hold(1, 7, time.Minute), modeltest.Wait(2, 7, time.Minute), modeltest.Wait(3, 7, time.Minute), modeltest.Wait(4, 7, time.Minute)}, 2},
	} {
		prev := modeltest.MutexQ("/a", tc.nodes...)
		if w, ok := model.SelfWaitWarning(&prev); ok {
			prev.SetWarnings([]model.Warning{w})
		}
		before := append([]model.Warning(nil), prev.Warnings()...)
		if len(before) > 0 {
			before[0].Nodes = append([]string(nil), before[0].Nodes...)
		}
		q := modeltest.MutexQ("/a", tc.nodes[:tc.keep]...)
		var want []model.Warning
		if w, ok := model.SelfWaitWarning(&q); ok {
			want = []model.Warning{w}
		}
		got := model.SelfWaitLeft(&prev, &q, tc.keep)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", name, got, want)
		}
		joined := modeltest.MutexQ("/a", append(append([]model.Node(nil), tc.nodes[:tc.keep]...), modeltest.Wait(9, 7, 0))...)
		q.SetWarnings(got)
		model.SelfWaitJoined(&q, &joined, tc.keep)
		if !reflect.DeepEqual(prev.Warnings(), before) {
			t.Errorf("%s: prev's warning altered: %+v", name, prev.Warnings())
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
		var nodes []model.Node
		seq := int32(0)
		for i := range 2 + r.IntN(30) {
			n := modeltest.Wait(seq, int64(1+r.IntN(3)), 0)
			if i == 0 {
				n = modeltest.Hold(seq, n.Session, 0)
			}
			nodes = append(nodes, n)
			seq++
		}
		prev := modeltest.MutexQ("/a", nodes...)
		if w, ok := model.SelfWaitWarning(&prev); ok {
			prev.SetWarnings([]model.Warning{w})
		}
		var kept []model.Node
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
			kept = append(kept, modeltest.Wait(seq, int64(1+r.IntN(3)), 0))
			seq++
		}
		if r.IntN(4) == 0 { // created and removed between two builds
			removed = append(removed, modeltest.Wait(seq, 1, 0).Name)
			seq++
		}
		if len(kept) == 0 {
			continue
		}
		if holderLeft {
			kept[0] = modeltest.Hold(kept[0].Seq, kept[0].Session, 0)
		}
		q := modeltest.MutexQ("/a", kept...)
		var want []model.Warning
		if w, ok := model.SelfWaitWarning(&q); ok {
			want = []model.Warning{w}
		}
		got, ok := model.SelfWaitMerged(&prev, &q, removed)
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
