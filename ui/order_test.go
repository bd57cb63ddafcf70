package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/locklist"
)

// TestLockListHoldsOrder: sorted by contention, the list does not
// re-sort under an operator moving through it: j goes to the row shown
// below, the selection stays on its lock while queues change; once they
// stop for holdOrder, the sort applies again, the selection still kept.
func TestLockListHoldsOrder(t *testing.T) {
	m := newTest("mono", 160, 48)
	shown := func() []string {
		var out []string
		for _, i := range m.list.Visible {
			out = append(out, m.list.Rows[i].Path)
		}
		return out
	}
	before := shown()
	c := m.list.Cursor
	m, _ = press(m, "down")
	sel := m.list.Selected
	if sel != before[c+1] {
		t.Fatalf("j from row %d selected %s, want %s", c, sel, before[c+1])
	}
	// The last but one lock's queue grows longest: by contention it moves up.
	snap := fleet()
	snap.At = t0.Add(time.Second)
	for i := range snap.Queues.Len() {
		if snap.Queues.At(i).Path == before[len(before)-2] {
			q := curatorJob()
			q.Path = snap.Queues.At(i).Path
			nodes := []model.Node{}
			for _, n := range q.Nodes.All() {
				nodes = append(nodes, *n)
			}
			for range 3 {
				nodes = append(nodes, nodes[len(nodes)-1])
			}
			q.Nodes = model.NodesOf(nodes...)
			snap.Queues = snap.Queues.Patch([]model.Queue{q}, nil)
		}
	}
	m = step(m, updateMsg{model.Update{Snapshot: snap}})
	if got := shown(); strings.Join(got, " ") != strings.Join(before, " ") || m.list.Selected != sel {
		t.Fatalf("the list moved under the cursor: %v (selected %s), was %v (selected %s)", got, m.list.Selected, before, sel)
	}
	if foot := ansi.Strip(m.View()); !strings.Contains(foot, "sort: contention · held while you move") {
		t.Errorf("the held order is not said")
	}
	m, _ = press(m, "down")
	if m.list.Selected != before[c+2] {
		t.Errorf("j went to %s, want the row shown below, %s", m.list.Selected, before[c+2])
	}
	sel = m.list.Selected
	// Ticks within the hold keep it; after it, the sort applies.
	m = step(m, tickMsg(t0.Add(locklist.HoldOrder-time.Second)))
	if strings.Join(shown(), " ") != strings.Join(before, " ") {
		t.Errorf("re-sorted before the hold ran out")
	}
	m = step(m, tickMsg(t0.Add(locklist.HoldOrder+time.Second)))
	grown := before[len(before)-2]
	if got := shown(); indexOf(got, grown) >= indexOf(before, grown) || m.list.Selected != sel {
		t.Errorf("after the hold: %v, selected %s; want %s moved up and %s still selected", got, m.list.Selected, grown, sel)
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestOwnStepsLoggedInOrder: the operator's own steps are logged in the
// order they happened, in order with zkview's events: the take's answer
// ("take queued": the node was created) before the lock core's first
// report of the lock ("waiting at 5"), whichever of the two feeds brings
// its news first, though the answer returns after the report is made.
func TestOwnStepsLoggedInOrder(t *testing.T) {
	n45 := curatorName("c9d8e7f6-a5b4-4c3d-8e2f-1a0b9c8d7e6f", 45)
	at := t0.Add(1500 * time.Millisecond)
	report := ownMsg{[]OwnLock{{Path: "/locks/idle", Node: n45, State: OwnQueued, Position: 5, Since: at}}}
	answer := actionMsg{verb: "take", path: "/locks/idle", at: at.Add(100 * time.Millisecond)}
	for _, answerFirst := range []bool{false, true} {
		m := selectPath(newTest("mono", 160, 48), "/locks/idle")
		// zkview saw the node a little before the lock core's report came;
		// the console's clock still says t0 (it ticks once a second).
		m = step(m, updateMsg{model.Update{Changes: []model.Change{{At: t0.Add(time.Second), Kind: model.ChangeJoined, Path: "/locks/idle", Said: "#45 created"}}}})
		m, _ = press(m, "t")
		if answerFirst {
			m = step(m, answer)
			m = step(m, report)
		} else {
			m = step(m, report)
			m = step(m, answer)
		}
		m = step(m, updateMsg{model.Update{Changes: []model.Change{{At: t0.Add(1200 * time.Millisecond), Kind: model.ChangeInfo, Path: "/locks/idle", Note: "late zkview event"}}}})
		var last time.Time
		var texts []string
		for i := range len(m.log.Ring) {
			e := m.log.At(i)
			if e.At.Before(last) {
				t.Errorf("entry %d %q at %s after one at %s", i, e.Text, e.At.Format("15:04:05.000"), last.Format("15:04:05.000"))
			}
			last = e.At
			texts = append(texts, e.Text)
		}
		all := strings.Join(texts, "|")
		if want := "#45 created|late zkview event|take queued|waiting at 5"; !strings.HasSuffix(all, want) {
			t.Errorf("answer first %v: log %q does not end %q", answerFirst, all, want)
		}
		if strings.Contains(all, "  ") || strings.Contains(all, "take done") {
			t.Errorf("log %q", all)
		}
		if len(m.taking) != 0 {
			t.Errorf("answer first %v: the take is still pending: %v", answerFirst, m.taking)
		}
	}
}
