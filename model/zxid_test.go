package model

import (
	"testing"
)

// TestZxidSplit: the epoch is the high 32 bits, the counter the low 32,
// and the warning starts at 90% of the counter.
func TestZxidSplit(t *testing.T) {
	tests := []struct {
		z              int64
		epoch, counter uint32
		near           bool
	}{
		{0, 0, 0, false},
		{0x5000001a3, 5, 0x1a3, false},
		{0x7_e6666665, 7, 0xe6666665, false}, // just under 90%
		{0x7_e6666666, 7, 0xe6666666, true},  // 90%
		{0x12_fffffffe, 0x12, 0xfffffffe, true},
		{0x12_ffffffff, 0x12, 0xffffffff, true},
		{0x13_00000000, 0x13, 0, false}, // the new epoch after the rollover
	}
	for _, tt := range tests {
		if e, c, n := ZxidEpoch(tt.z), ZxidCounter(tt.z), ZxidNearRollover(tt.z); e != tt.epoch || c != tt.counter || n != tt.near {
			t.Errorf("zxid %#x: epoch %#x counter %#x near %v, want %#x %#x %v", tt.z, e, c, n, tt.epoch, tt.counter, tt.near)
		}
	}
	if r := ZxidCounterRatio(0x3_ffffffff); r != 1 {
		t.Errorf("ratio at the last counter = %v, want 1", r)
	}
}

// TestHighestCzxid: the highest czxid over every queue's nodes; 0 with
// none read.
func TestHighestCzxid(t *testing.T) {
	s := &Snapshot{Queues: QueuesOf(
		Queue{Nodes: NodesOf(Node{Name: "a", Czxid: 0x5_00000010}, Node{Name: "b"})},
		Queue{Nodes: NodesOf(Node{Name: "c", Czxid: 0x5_00000020}, Node{Name: "d", Czxid: 0x4_ffffff00})},
		Queue{},
	)}
	if got := s.HighestCzxid(); got != 0x5_00000020 {
		t.Errorf("HighestCzxid = %#x, want 0x500000020", got)
	}
	if got := (&Snapshot{}).HighestCzxid(); got != 0 {
		t.Errorf("HighestCzxid of an empty snapshot = %#x", got)
	}
}
