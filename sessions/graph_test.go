package sessions

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
)

// TestGraphUpdateChanged: a graph told only what changed (UpdateChanged)
// finds the same cycles, dated the same, as one brought to every queue
// of each snapshot (Update), through random churn over many queues and
// few sessions (so that cycles form and clear): queues changing, added
// and removed.
func TestGraphUpdateChanged(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	queues := map[string]model.Queue{}
	var full, inc Graph
	withCycles := 0
	for step := range 300 {
		now := modeltest.T0.Add(time.Duration(step) * time.Second)
		var touched []string
		for range 1 + r.IntN(4) {
			p := fmt.Sprintf("/locks/e%03d", r.IntN(60))
			touched = append(touched, p)
			if r.IntN(4) == 0 {
				delete(queues, p)
				continue
			}
			// A holder and a waiter of sessions 1..6: cycles come and go.
			h, w := int64(1+r.IntN(6)), int64(1+r.IntN(6))
			queues[p] = modeltest.MutexQ(p, modeltest.Hold(int32(step), h, 0), modeltest.Wait(int32(step+1), w, 0))
			if r.IntN(3) == 0 { // a holder alone: no wait
				queues[p] = modeltest.MutexQ(p, modeltest.Hold(int32(step), h, 0))
			}
		}
		var qs []model.Queue
		for _, q := range queues {
			qs = append(qs, q)
		}
		slices.SortFunc(qs, func(a, b model.Queue) int { return strings.Compare(a.Path, b.Path) })
		list := model.QueuesOf(qs...)
		full.Update(list, now)
		var changed []*model.Queue
		var removed []string
		for _, p := range touched {
			if i, ok := list.Find(p); ok {
				changed = append(changed, list.At(i))
			} else {
				removed = append(removed, p)
			}
		}
		inc.UpdateChanged(changed, removed, now)
		if a, b := full.Cycles(now), inc.Cycles(now); !reflect.DeepEqual(a, b) {
			t.Fatalf("step %d: cycles differ:\nfull %+v\nincremental %+v", step, a, b)
		} else if len(a) > 0 {
			withCycles++
		}
		if len(inc.parts) != len(full.parts) || len(inc.parts) > len(queues) {
			t.Fatalf("step %d: %d parts, %d by Update, for %d queues", step, len(inc.parts), len(full.parts), len(queues))
		}
	}
	if withCycles < 30 {
		t.Errorf("cycles in %d steps of 300: the churn tests too little", withCycles)
	}
}

// TestGraphLongQueuesReread: long queues read again and again (each
// reading reusing the room of an earlier one, pairsRoom) keep exactly
// the waits of their queue, each dated from the step it first stood.
func TestGraphLongQueuesReread(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	type wait struct {
		waiter, holder int64
		wnode, hnode   string
	}
	paths := []string{"/locks/a", "/locks/b"}
	nodes := map[string][]model.Node{}
	next := int32(0)
	for _, p := range paths {
		nodes[p] = []model.Node{modeltest.Hold(next, 1, 0)}
		for range graphLongQueue + 10 {
			next++
			nodes[p] = append(nodes[p], modeltest.Wait(next, int64(1+r.IntN(5)), 0))
		}
	}
	var g Graph
	since := map[string]map[wait]time.Time{}
	for step := range 40 {
		now := modeltest.T0.Add(time.Duration(step) * time.Second) // > graphLongEvery: read every time
		var changed []*model.Queue
		for _, p := range paths {
			if step > 0 && r.IntN(3) == 0 {
				continue
			}
			ns := nodes[p]
			for range 1 + r.IntN(20) { // waiters leave anywhere, others join
				i := 1 + r.IntN(len(ns)-1)
				ns = slices.Delete(slices.Clone(ns), i, i+1)
				next++
				ns = append(ns, modeltest.Wait(next, int64(1+r.IntN(5)), 0))
			}
			nodes[p] = ns
			q := modeltest.MutexQ(p, ns...)
			changed = append(changed, &q)
		}
		g.UpdateChanged(changed, nil, now)
		for _, q := range changed {
			var fresh Graph
			want, _ := fresh.readPairs(q, nil, now)
			got := g.parts[q.Path].pairs
			if len(got) != len(want) {
				t.Fatalf("step %d %s: %d waits, want %d", step, q.Path, len(got), len(want))
			}
			was := since[q.Path]
			since[q.Path] = map[wait]time.Time{}
			for i := range want {
				k := wait{want[i].waiter, want[i].holder, want[i].wnode, want[i].hnode}
				if gk := (wait{got[i].waiter, got[i].holder, got[i].wnode, got[i].hnode}); gk != k {
					t.Fatalf("step %d %s: wait %d is %+v, want %+v", step, q.Path, i, gk, k)
				}
				at, ok := was[k]
				if !ok {
					at = now
				}
				if !got[i].seen.Equal(at) {
					t.Fatalf("step %d %s: wait %+v seen %v, want %v", step, q.Path, k, got[i].seen, at)
				}
				since[q.Path][k] = at
			}
		}
	}
	if g.spare == nil {
		t.Errorf("no spare room after %d readings of long queues", 40)
	}
}

// TestDescribeOldestWait: a cycle's step is told by its oldest wait,
// the first of equally old ones in path order then wait order, however
// the waits of a part run (describe looks a step up once a run of waits
// that share it): checked against every wait read one by one.
func TestDescribeOldestWait(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	checked := 0
	for round := range 50 {
		var g Graph
		g.init()
		var parts []*graphPart
		for k := range 1 + r.IntN(3) {
			var nodes []model.Node
			p := &graphPart{path: fmt.Sprintf("/locks/p%d", 2-k)}
			for i := range 5 + r.IntN(40) {
				nodes = append(nodes, model.Node{Name: fmt.Sprintf("%s-n%03d", p.path, i), Seq: int32(i)})
				// Runs of one step, sessions 1..3 waiting on each other and themselves.
				waiter, holder := int64(1+r.IntN(3)), int64(1+r.IntN(3))
				if i > 0 && r.IntN(3) > 0 {
					waiter, holder = p.pairs[i-1].waiter, p.pairs[i-1].holder
				}
				p.pairs = append(p.pairs, pairRec{waiter: waiter, holder: holder, wnode: nodes[i].Name, hnode: "h",
					seen: modeltest.T0.Add(time.Duration(r.IntN(4)) * time.Second), wi: int32(i), wseq: int32(i)})
			}
			p.nodes = model.NodesOf(nodes...)
			g.parts[p.path] = p
			g.apply(p, 1)
			parts = append(parts, p)
		}
		found := g.findCycles()
		got := g.describe(found, modeltest.T0)
		slices.SortFunc(parts, func(a, b *graphPart) int { return strings.Compare(a.path, b.path) })
		oldest := func(from, to int64) *pairRec {
			var best *pairRec
			for _, p := range parts {
				for i := range p.pairs {
					if q := &p.pairs[i]; q.waiter == from && q.holder == to && (best == nil || q.seen.Before(best.seen)) {
						best = q
					}
				}
			}
			return best
		}
		for _, d := range got {
			for i, w := range d.Waits {
				want := oldest(d.Sessions[i], d.Sessions[(i+1)%len(d.Sessions)])
				if want == nil || w.Node != want.wnode || !w.Since.Equal(want.seen) {
					t.Fatalf("round %d: cycle %v step %d told by %s at %v, want %+v", round, d.Sessions, i, w.Node, w.Since, want)
				}
				checked++
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d steps of cycles checked", checked)
	}
}

// TestPairsRoomReusedAsLengthWanders: a long queue a few nodes longer
// than at its last reading reads its waits into that reading's room,
// not into a new list of its length.
func TestPairsRoomReusedAsLengthWanders(t *testing.T) {
	var g Graph
	n := graphLongQueue + 100
	first := g.pairsRoom(n)
	g.spare = first // as rebuildPart hands a reading's waits back
	next := g.pairsRoom(n + 3)
	if cap(next) == 0 || &next[:1][0] != &first[:1][0] {
		t.Error("a reading 3 nodes longer did not reuse the last reading's room")
	}
}
