package lockops

import (
	"testing"

	"github.com/zklock/zklock/lockops/ordering"
)

func TestParentInfo(t *testing.T) {
	const (
		lock  = "_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-lock-0000000001"
		latch = "_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-latch-0000000002"
		hex   = "0123456789abcdef0123456789012345" // ends in ten digits: still a lease
	)
	for _, tt := range []struct {
		name      string
		in        ParentInfo
		sem       bool
		style     ordering.Style
		latchWant bool
	}{
		{"absent", ParentInfo{}, false, ordering.StyleCurator, false},
		{"curator", ParentInfo{Exists: true, Children: []string{"leases", "locks"}}, true, ordering.StyleCurator, false},
		{"curator leases only", ParentInfo{Exists: true, Children: []string{"leases"}}, true, ordering.StyleCurator, false},
		{"kazoo leases", ParentInfo{Exists: true, Children: []string{hex}}, true, ordering.StyleKazoo, false},
		{"kazoo data", ParentInfo{Exists: true, Data: []byte("3")}, true, ordering.StyleKazoo, false},
		{"kazoo sibling", ParentInfo{Exists: true, LockSibling: true}, true, ordering.StyleKazoo, false},
		{"lock queue with numeric data", ParentInfo{Exists: true, Children: []string{lock}, Data: []byte("7")}, false, ordering.StyleCurator, false},
		{"latch", ParentInfo{Exists: true, Children: []string{latch}}, false, ordering.StyleCurator, true},
		{"latch and lock", ParentInfo{Exists: true, Children: []string{latch, lock}}, false, ordering.StyleCurator, false},
		{"words", ParentInfo{Exists: true, Data: []byte("config v2")}, false, ordering.StyleCurator, false},
	} {
		st, ok := tt.in.Semaphore()
		if ok != tt.sem || st != tt.style {
			t.Errorf("%s: Semaphore() = %s %v, want %s %v", tt.name, st, ok, tt.style, tt.sem)
		}
		if got := tt.in.Latch(); got != tt.latchWant {
			t.Errorf("%s: Latch() = %v", tt.name, got)
		}
	}
}
