package model_test

import (
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// TestTenure: a holder found holding is bounded by its creation (an upper
// bound on the hold), not by the first listing; what the Watcher saw
// begin is exact; without a creation time only a lower bound is left.
func TestTenure(t *testing.T) {
	now := time.Date(2026, 11, 25, 3, 0, 10, 0, time.UTC)
	ctime, seen := now.Add(-2*time.Second), now.Add(-150*time.Microsecond)
	tests := []struct {
		name  string
		n     model.Node
		start time.Time
		bound model.Bound
		text  string
	}{
		{"holder found holding", model.Node{Role: ordering.RoleHolder}.WithSince(seen).WithCtime(ctime), ctime, model.BoundEarliest, "≤2.0s"},
		{"handoff seen", model.Node{Role: ordering.RoleHolder, SinceExact: true}.WithSince(seen).WithCtime(ctime), seen, model.BoundExact, "150µs"},
		{"holder not yet read", model.Node{Role: ordering.RoleHolder}.WithSince(seen), seen, model.BoundLatest, "≥150µs"},
		{"waiter", model.Node{Role: ordering.RoleWaiting, SinceExact: true}.WithSince(ctime).WithCtime(ctime), ctime, model.BoundExact, "2.0s"},
		{"unknown", model.Node{Role: ordering.RoleWaiting}, time.Time{}, model.BoundLatest, ""},
	}
	for _, tt := range tests {
		start, b := tt.n.Tenure()
		if !start.Equal(tt.start) || b != tt.bound {
			t.Errorf("%s: Tenure = %v %v, want %v %v", tt.name, start, b, tt.start, tt.bound)
		}
		if got := tt.n.TenureText(now); got != tt.text {
			t.Errorf("%s: TenureText = %q, want %q", tt.name, got, tt.text)
		}
	}
}
