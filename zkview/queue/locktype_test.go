package queue

import (
	"testing"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

func TestLockType(t *testing.T) {
	for _, tt := range []struct {
		kinds []ordering.Kind
		want  model.QueueType
	}{
		{nil, model.TypeUnknown},
		{[]ordering.Kind{ordering.KindMutex}, model.TypeMutex},
		{[]ordering.Kind{ordering.KindMutex, ordering.KindMutex}, model.TypeMutex},
		{[]ordering.Kind{ordering.KindWrite}, model.TypeRWLock},
		{[]ordering.Kind{ordering.KindMutex, ordering.KindRead}, model.TypeRWLock},
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
