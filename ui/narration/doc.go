// Package narration tells a room watching the demo, one sentence at a
// time, which step of the lock recipe the screen just showed: node
// created, children listed, watch set on the predecessor, predecessor
// deleted, successor notified, holds (narrate.go).
//
// Line is the narration line the root draws above its status bar:
// Follow takes in a snapshot's changes and keeps the step on the queue
// on screen; View draws it, none while off. Narrate is the rule for one
// change; both are pure. Every name from ZooKeeper is drawn through
// draw.Clean. narration imports draw, never the root ui.
package narration
