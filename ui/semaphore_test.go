package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// kazooSlots is a Kazoo semaphore as zkview composes it: two leases held
// (one more than the parent's max_leases says), the admitted contender
// waiting for a lease on a children watch, one more in line.
func kazooSlots() model.Queue {
	k, m := ordering.RecipeKazoo, ordering.KindMutex
	lease := func(hex string, sess int64, data string, age time.Duration) model.Node {
		n := node(hex, 0, ordering.KindOther, k, ordering.RoleHolder, sess, "10.0.0.21:4000", data, age)
		n.Lease = true
		return n
	}
	lockDir := "/jobs/slots-__lock__"
	l5 := kazooName("5b801e0416834ba09e5ecf2d1f2b65ac", "lock", 5)
	l6 := kazooName("2c7c6e9a12f740dea45b6c5570169695", "lock", 6)
	admitted := waits(node(l5, 5, m, k, ordering.RoleWaiting, 0x30000c1, "10.0.0.22:4001", "reindex", 20*time.Second), "/jobs/slots", model.LinkInferred)
	admitted.SetParent(lockDir)
	next := waits(node(l6, 6, m, k, ordering.RoleWaiting, 0x30000c2, "10.0.0.23:4002", "backfill", 5*time.Second), l5, model.LinkVerified)
	next.SetParent(lockDir)
	a := lease("9f6ee7281e5c4f088109cbfec0123456", 0x30000a1, "export", 3*time.Minute)
	b := lease("64b8f0c9954c4056895ce5e4ed5781f8", 0x30000a2, "import", time.Minute)
	return model.Queue{Path: "/jobs/slots", State: model.PathPresent, Type: model.TypeSemaphore,
		Nodes: model.NodesOf(a, b, admitted, next),
	}.WithRare(model.QueueRare{
		Limit:       1,
		LimitSource: model.LimitFromData,
		Warnings: []model.Warning{{Code: model.WarnOverLimit, Nodes: []string{a.Name, b.Name},
			Message: fmt.Sprintf("2 leases held at once, limit 1 (max_leases in the parent's data): %s, %s", a.Name, b.Name)}},
	})
}

// TestSemaphoreView: the lock list says "holders 2/1" and flags the
// over-limit semaphore; its queue names the type, the holders against the
// limit, the leases as holders of kind lease, and the admitted contender
// waiting on a children watch, inferred.
func TestSemaphoreView(t *testing.T) {
	m := newTest("dark", 160, 48)
	snap := fleet()
	snap.Queues = model.QueuesOf(append([]model.Queue{kazooSlots()}, snap.Queues.Slice()...)...)
	m = step(m, updateMsg{model.Update{Snapshot: snap}})
	m = selectPath(m, "/jobs/slots")
	view := ansi.Strip(m.View())
	for _, want := range []string{
		"holders 2/1",
		"/jobs/slots · semaphore · holders 2/1 · kazoo · 4 nodes",
		"OVER LIMIT: holders 2/1: lease 9f6ee728…, lease 64b8f0c9…",
		"lease",
		"HOLDER",
		"9f6ee728…",
		"└─▶ waits for a lease: children of /jobs/slots ? inferred",
		"└─▶ watches #5 ✓ verified",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	leases := 0
	for _, l := range strings.Split(view, "\n") {
		if !strings.Contains(l, "HOLDER  lease") {
			continue
		}
		leases++
		if strings.Contains(l, "123456") || !strings.Contains(l, "  - ") {
			t.Errorf("a Kazoo lease's ten-digit tail read as a sequence: %q", l)
		}
	}
	if leases != 2 {
		t.Errorf("%d lease holder rows, want 2:\n%s", leases, view)
	}
	// The same semaphore at the smallest size still fits its frame.
	small := step(m, sizeMsg(80, 24))
	checkFrame(t, ansi.Strip(small.View()), 80, 24)
}
