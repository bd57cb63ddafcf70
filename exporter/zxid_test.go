package exporter

import (
	"math"
	"testing"

	"github.com/zklock/zklock/model"
)

// TestExportZxidCounterRatio: zklock_zxid_counter_ratio is the counter of
// the highest czxid over every lock parent, towards 2^32-1; absent when
// no lock node's czxid was read.
func TestExportZxidCounterRatio(t *testing.T) {
	snap := &model.Snapshot{Queues: model.QueuesOf(
		model.Queue{Path: "/a", State: model.PathPresent, Nodes: model.NodesOf(model.Node{Name: "n1", Czxid: 0x3_10000000})},
		model.Queue{Path: "/b", State: model.PathPresent, Nodes: model.NodesOf(model.Node{Name: "n2", Czxid: 0x3_f0000000}, model.Node{Name: "n3", Czxid: 0x2_ffffff00})},
	)}
	fams := scrape(t, New(func() *model.Snapshot { return snap }, testConfig))
	want := float64(0xf0000000) / 0xffffffff
	if got, ok := metricValue(fams, "zklock_zxid_counter_ratio"); !ok || math.Abs(got-want) > 1e-9 {
		t.Errorf("zklock_zxid_counter_ratio = %v (%v), want %v", got, ok, want)
	}
	none := &model.Snapshot{Queues: model.QueuesOf(model.Queue{Path: "/a", State: model.PathPresent})}
	fams = scrape(t, New(func() *model.Snapshot { return none }, testConfig))
	if got, ok := metricValue(fams, "zklock_zxid_counter_ratio"); ok {
		t.Errorf("zklock_zxid_counter_ratio = %v with no lock node, want absent", got)
	}
}
