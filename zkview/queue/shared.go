package queue

import (
	"time"

	"github.com/zklock/zklock/model"
)

// modelExtra is what a Tracker keeps that most of a Watcher's models hold
// alike: the hooks, the depth samples (a root lists its parents in a few
// seconds, and most of them, one node each, never sample again), the
// last listing when Kids cannot derive it and the children that are not
// lock nodes. A Tracker shares one with the
// models that hold the same until it changes one of them (ownExtra): a
// quiet parent keeps none of its own.
type modelExtra struct {
	hooks *Hooks
	depth []model.DepthSample
	kids  []string // the last listing, when not Order's names (Kids)
	other []string // Order's other children (setOrder)
}

// sharedDepths is how many depths (0 to sharedDepths-1) a Watcher's
// models share their first sample of.
const sharedDepths = 4

// sharedExtras are the extras a Watcher's models share (Hooks): one with
// no depth sample, for the models not listed yet, and one for each small
// depth sampled first in the second sampled last. Guarded by the
// Watcher's lock, as the models are; read-only once made.
type sharedExtras struct {
	empty   *modelExtra
	sec     int64 // the second of byDepth's samples, Unix nanoseconds
	byDepth [sharedDepths]*modelExtra
}

// none is the extra of a model that has not sampled its depth yet:
// shared, or the model's own without hooks.
func (h *Hooks) none() *modelExtra {
	if h == nil {
		return &modelExtra{}
	}
	if h.shared.empty == nil {
		h.shared.empty = &modelExtra{hooks: h}
	}
	return h.shared.empty
}

// firstDepth is the shared extra whose one depth sample is (sec, depth),
// nil when depth is not one shared.
func (h *Hooks) firstDepth(sec time.Time, depth int) *modelExtra {
	c := &h.shared
	if depth < 0 || depth >= sharedDepths {
		return nil
	}
	if ns := sec.UnixNano(); c.sec != ns {
		c.sec, c.byDepth = ns, [sharedDepths]*modelExtra{}
	}
	if x := c.byDepth[depth]; x != nil && x.depth[0].At == sec {
		return x // the same instant in the same zone: the same sample
	}
	x := &modelExtra{hooks: h, depth: []model.DepthSample{{At: sec, Depth: depth}}}
	c.byDepth[depth] = x
	return x
}
