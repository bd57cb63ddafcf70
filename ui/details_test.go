package ui

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/model"
)

// TestDetailsOfDeletedNode: a details dialog whose node is deleted while
// it is open says so, rather than showing the old node as current.
func TestDetailsOfDeletedNode(t *testing.T) {
	m := selectPath(newTest("dark", 160, 48), "/locks/job-a")
	m, _ = press(m, "tab", "enter")
	d, ok := m.dialog.(*detailsDialog)
	if !ok {
		t.Fatalf("enter on a node opened %T", m.dialog)
	}
	if strings.Contains(ansi.Strip(m.View()), "DELETED") {
		t.Fatal("a node that exists is shown as deleted")
	}
	// The same snapshot without that node.
	s := *fleet()
	qs := s.Queues.Slice()
	for i, q := range qs {
		if q.Path == d.path {
			q.Nodes = model.NodesOf(slices.DeleteFunc(q.Nodes.Slice(), func(n model.Node) bool { return n.Name == d.node.Name })...)
			qs[i] = q
		}
	}
	s.Queues = model.QueuesOf(qs...)
	m = step(m, updateMsg{model.Update{Snapshot: &s}})
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "DELETED: this node is gone") {
		t.Fatalf("the dialog does not say its node is gone:\n%s", view)
	}
	if !strings.Contains(view, model.NodeRef(d.node.Name, 24)) {
		t.Errorf("the dialog lost what was known of the node:\n%s", view)
	}
}

// TestDetailsShowsFencingToken: the details dialog shows the node's czxid,
// its holder's fencing token, when the monitor read it.
func TestDetailsShowsFencingToken(t *testing.T) {
	const czxid = 4294967310
	s := *fleet()
	qs := s.Queues.Slice()
	for i, q := range qs {
		nodes := q.Nodes.Slice()
		for j := range nodes {
			nodes[j].Czxid = czxid + int64(j)
		}
		q.Nodes = model.NodesOf(nodes...)
		qs[i] = q
	}
	s.Queues = model.QueuesOf(qs...)
	m := step(newTest("dark", 160, 48), updateMsg{model.Update{Snapshot: &s}})
	m = selectPath(m, "/locks/job-a")
	m, _ = press(m, "tab", "enter")
	d, ok := m.dialog.(*detailsDialog)
	if !ok {
		t.Fatalf("enter on a node opened %T", m.dialog)
	}
	view := ansi.Strip(m.View())
	want := "Token      " + strconv.FormatInt(d.node.Czxid, 10) + " (czxid"
	if d.node.Czxid < czxid || !strings.Contains(view, want) {
		t.Fatalf("the dialog lacks %q:\n%s", want, view)
	}
}
