package model

import (
	"fmt"
	"testing"
)

// TestFindName: a name is found at the list's head or by its sequence,
// and only the very name.
func TestFindName(t *testing.T) {
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("lock-%010d", 2*i))
	}
	for _, tc := range []struct {
		name string
		seq  int32
		want int
	}{
		{"lock-0000000000", 0, 0},
		{"lock-0000000006", 6, 3},   // at the head
		{"lock-0000000060", 60, 30}, // searched
		{"lock-0000000078", 78, 39},
		{"lock-0000000061", 61, -1}, // between two
		{"lock-0000000100", 100, -1},
		{"x-0000000060", 60, -1}, // another name of that sequence
	} {
		if got := findName(names, tc.name, tc.seq); got != tc.want {
			t.Errorf("findName(%s) = %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := findName(nil, "lock-0000000000", 0); got != -1 {
		t.Errorf("findName in no names = %d", got)
	}
}
