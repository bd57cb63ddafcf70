package queue

import "time"

// Bounds of one queue's model that are not worth a knob.
const (
	// MaxEventsPerListing: a listing that adds or removes more nodes than
	// this (a first load, a mass expiry) is told as one summary event.
	MaxEventsPerListing = 32
	// maxHandoffs and depthSamples bound each queue's history.
	maxHandoffs  = 64
	depthSamples = 300 // one per second: five minutes
	// missingGrace: a waiter is only judged to have no watch once its
	// watch target has been the same for this long before the poll began;
	// a client needs a few round trips to set the watch after a change.
	missingGrace = time.Second
	// herdExtra is how many sessions beyond the recipes' prediction may
	// watch one node before it is a herd: one stray watcher (a tool, an
	// operator's probe) is not a herd, several are.
	herdExtra = 1
)
