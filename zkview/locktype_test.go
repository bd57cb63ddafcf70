package zkview

import (
	"testing"

	"github.com/zklock/zklock/lockops"
)

func TestLockType(t *testing.T) {
	for _, tt := range []struct {
		kinds []lockops.Kind
		want  QueueType
	}{
		{nil, TypeUnknown},
		{[]lockops.Kind{lockops.KindMutex}, TypeMutex},
		{[]lockops.Kind{lockops.KindMutex, lockops.KindMutex}, TypeMutex},
		{[]lockops.Kind{lockops.KindWrite}, TypeRWLock},
		{[]lockops.Kind{lockops.KindMutex, lockops.KindRead}, TypeRWLock},
	} {
		nodes := make([]Node, len(tt.kinds))
		for i, k := range tt.kinds {
			nodes[i].Kind = k
		}
		if got := lockType(nodes); got != tt.want {
			t.Errorf("lockType(%v) = %v, want %v", tt.kinds, got, tt.want)
		}
	}
}
