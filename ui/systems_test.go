package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// systemsFleet is the fleet beside a Solr overseer election whose leader
// record lags (a leader-mismatch) and a Kafka controller, as zkview
// annotates them from package systems.
func systemsFleet() *model.Snapshot {
	s := *fleet()
	solrName := func(sess int64, host string, seq int32) string {
		return fmt.Sprintf("%d-%s:8983_solr-n_%010d", sess, host, seq)
	}
	p, m := ordering.RecipePlain, ordering.KindMutex
	s1, s2, s3 := int64(0x10000a3f2c0051), int64(0x10000a3f2c0052), int64(0x10000a3f2c0053)
	head := solrName(s1, "10.0.0.1", 3)
	lead := node(head, 3, m, p, ordering.RoleHolder, s1, "10.0.0.1:40112", "", 2*time.Minute)
	lead.SetIdentity("10.0.0.1:8983_solr")
	f1 := node(solrName(s2, "10.0.0.2", 4), 4, m, p, ordering.RoleWaiting, s2, "10.0.0.2:40113", "", 2*time.Minute)
	f1.SetIdentity("10.0.0.2:8983_solr")
	f2 := node(solrName(s3, "10.0.0.3", 7), 7, m, p, ordering.RoleWaiting, s3, "10.0.0.3:40114", "", 30*time.Second)
	f2.SetIdentity("10.0.0.3:8983_solr")
	solr := model.Queue{Path: "/solr/overseer_elect/election", State: model.PathPresent, Type: model.TypeElection, Nodes: model.NodesOf(lead, f1, f2)}.WithRare(model.QueueRare{
		System: "solr",
		Label:  "solr overseer",
		Warnings: []model.Warning{{Code: model.WarnLeaderMismatch, Key: "k", Since: ago(12 * time.Second),
			Nodes:   []string{"/solr/overseer_elect/leader", "/solr/overseer_elect/election/" + head},
			Message: "leader record /solr/overseer_elect/leader names " + f1.Name + "; the election's leader is " + head}},
	})
	ctl := node("controller", 0, m, ordering.RecipeEphemeral, ordering.RoleHolder, 0x10000a3f2c0061, "10.0.0.12:50022",
		`{"version":2,"brokerid":2,"timestamp":"1700000000000"}`, 5*time.Minute)
	ctl.SetIdentity("broker 2")
	kafka := model.Queue{Path: "/kafka/controller", State: model.PathPresent, Type: model.TypeElection, Nodes: model.NodesOf(ctl)}.WithRare(model.QueueRare{
		System: "kafka",
		Label:  "kafka controller",
	})
	s.Queues = model.QueuesOf(append([]model.Queue{kafka}, s.Queues.Slice()...)...)
	s.Queues = model.QueuesOf(append(s.Queues.Slice(), solr)...)
	return &s
}

// TestSystemsGolden: the lock list names each system after its path and
// the leader record's mismatch; the queue pane titles the system and
// shows each participant's identity (IDENTITY, only for a system's
// queue).
func TestSystemsGolden(t *testing.T) {
	for _, sz := range sizes {
		name := fmt.Sprintf("systems-solr-dark-%dx%d", sz[0], sz[1])
		t.Run(name, func(t *testing.T) {
			m := newTest("dark", sz[0], sz[1])
			m = step(m, updateMsg{model.Update{Snapshot: systemsFleet()}})
			m = selectPath(m, "/solr/overseer_elect/election")
			got := ansi.Strip(m.View())
			checkFrame(t, got, sz[0], sz[1])
			matchGolden(t, name, got)
			if sz[0] < 160 {
				return
			}
			for _, want := range []string{"solr overseer", "kafka controller", "broker 2", "IDENTITY", "10.0.0.3:8983_solr", "LEADER-MISMATCH"} {
				if !strings.Contains(got, want) {
					t.Errorf("view lacks %q:\n%s", want, got)
				}
			}
		})
	}
}

// TestListFollowsLabelAndFacts: a system's label or a recipe's facts can
// change while its nodes stay the same (a leader record rewritten, a
// barrier's waiters counted again); the lock list's row follows, as it
// does a change of nodes.
func TestListFollowsLabelAndFacts(t *testing.T) {
	s := systemsFleet()
	m := newTest("dark", 160, 48)
	m = step(m, updateMsg{model.Update{Snapshot: s}})
	if got := ansi.Strip(m.View()); !strings.Contains(got, "kafka controller") {
		t.Fatalf("the list does not name the kafka controller:\n%s", got)
	}
	next := *s
	q := *next.Queues.At(0)
	q.SetLabel("kafka ctl 9")
	next.Queues = next.Queues.Patch([]model.Queue{q}, nil)
	m = step(m, updateMsg{model.Update{Snapshot: &next}})
	if got := ansi.Strip(m.View()); !strings.Contains(got, "kafka ctl 9") {
		t.Fatalf("the list kept the old label after only the label changed:\n%s", got)
	}
}

// TestTakeRefusedOutsideLocks: t on a system's election or a recipe that
// is no lock says why, in one line, and asks the lock core for nothing;
// on a lock beside them it takes as before.
func TestTakeRefusedOutsideLocks(t *testing.T) {
	fb := &fakeBackend{}
	s := systemsFleet()
	gate := model.Queue{Path: "/jobs/gate", State: model.PathPresent, Type: model.TypeBarrier}
	s.Queues = model.QueuesOf(append(s.Queues.Slice(), gate)...)
	m := newTest("dark", 160, 48, func(o *Options) { o.Backend = fb })
	m = step(m, updateMsg{model.Update{Snapshot: s}})
	for _, c := range []struct{ path, says string }{
		{"/solr/overseer_elect/election", "is solr overseer, not a lock"},
		{"/kafka/controller", "is kafka controller, not a lock"},
		{"/jobs/gate", "is a barrier, not a lock"},
	} {
		m = selectPath(m, c.path)
		var cmd tea.Cmd
		m, cmd = press(m, "t")
		if cmd != nil || m.dialog != nil {
			t.Errorf("t on %s started something", c.path)
		}
		if got := ansi.Strip(m.View()); !strings.Contains(got, c.says) {
			t.Errorf("t on %s: the footer does not say %q:\n%s", c.path, c.says, got)
		}
	}
	m = selectPath(m, "/locks/job-a")
	_, cmd := press(m, "t")
	actionOf(t, cmd)
	if got := fb.Calls(); strings.Join(got, ",") != "take /locks/job-a mutex" {
		t.Fatalf("calls %v", got)
	}
}
