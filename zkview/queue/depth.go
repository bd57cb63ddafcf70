package queue

import (
	"time"

	"github.com/zklock/zklock/model"
)

// sharedDepths is how many depths (0 to sharedDepths-1) a Watcher's
// models share their first sample of: a root's quiet parents hold one
// node or two, listed once.
const sharedDepths = 4

// depthCache is the first depth samples a Watcher's models share
// (Hooks): one read-only array of one sample for each small depth of the
// second sampled last. A root lists its parents in a few seconds, and
// most of them never sample again: they keep no array of their own.
// Guarded by the Watcher's lock, as the models are.
type depthCache struct {
	sec     int64 // the second of the samples, Unix nanoseconds
	byDepth [sharedDepths]*[]model.DepthSample
}

// first is the shared samples holding the one sample (sec, depth), nil
// when depth is not one shared.
func (c *depthCache) first(sec time.Time, depth int) *[]model.DepthSample {
	if depth < 0 || depth >= sharedDepths {
		return nil
	}
	if ns := sec.UnixNano(); c.sec != ns {
		c.sec, c.byDepth = ns, [sharedDepths]*[]model.DepthSample{}
	}
	if p := c.byDepth[depth]; p != nil && (*p)[0].At == sec {
		return p // the same instant in the same zone: the same sample
	}
	one := []model.DepthSample{{At: sec, Depth: depth}}
	c.byDepth[depth] = &one
	return &one
}

// sampleDepth keeps the largest depth of each second.
func (q *Model) sampleDepth(at time.Time, depth int) {
	sec := at.Truncate(time.Second)
	var d []model.DepthSample
	if q.depth != nil {
		d = *q.depth
	}
	n := len(d)
	if n > 0 && d[n-1].At.Equal(sec) {
		if depth > d[n-1].Depth {
			d = q.ownDepth(0)
			d[n-1].Depth = depth
		}
		return
	}
	if n == 0 && q.hooks != nil {
		if shared := q.hooks.depths.first(sec, depth); shared != nil {
			// Read-only: the next sample copies it (ownDepth).
			q.depth = shared
			q.set(flagDepthShared, true)
			return
		}
	}
	d = append(q.ownDepth(1), model.DepthSample{At: sec, Depth: depth})
	if over := len(d) - depthSamples; over > 0 {
		d = append([]model.DepthSample(nil), d[over:]...)
	}
	*q.depth = d
}

// publishedDepth is the depth samples for a Queue being built: the
// model's own, shared with it until the next sample (ownDepth), as most
// of a root's parents never take another.
func (q *Model) publishedDepth() []model.DepthSample {
	if q.depth == nil {
		return nil
	}
	d := *q.depth
	if len(d) > 0 {
		q.set(flagDepthShared, true)
	}
	return d[:len(d):len(d)]
}

// ownDepth is the model's depth samples, made its own (copied, with room
// for more) when a published Queue or other models share them: a sample
// changes only the model's.
func (q *Model) ownDepth(more int) []model.DepthSample {
	switch {
	case q.depth == nil:
		q.depth = &[]model.DepthSample{}
	case q.is(flagDepthShared):
		d := append(make([]model.DepthSample, 0, len(*q.depth)+more), *q.depth...)
		q.depth = &d
		q.set(flagDepthShared, false)
	}
	return *q.depth
}
