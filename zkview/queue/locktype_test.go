package queue

import (
	"testing"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
)

func TestLockType(t *testing.T) {
	for _, tt := range []struct {
		kinds []lockops.Kind
		want  model.QueueType
	}{
		{nil, model.TypeUnknown},
		{[]lockops.Kind{lockops.KindMutex}, model.TypeMutex},
		{[]lockops.Kind{lockops.KindMutex, lockops.KindMutex}, model.TypeMutex},
		{[]lockops.Kind{lockops.KindWrite}, model.TypeRWLock},
		{[]lockops.Kind{lockops.KindMutex, lockops.KindRead}, model.TypeRWLock},
	} {
		nodes := make([]model.Node, len(tt.kinds))
		for i, k := range tt.kinds {
			nodes[i].Kind = k
		}
		if got := lockType(nodes); got != tt.want {
			t.Errorf("lockType(%v) = %v, want %v", tt.kinds, got, tt.want)
		}
	}
}
