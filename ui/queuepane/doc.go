// Package queuepane is the console's right pane: the selected lock's
// queue, one row per node in the order the recipe grants it, with the
// banners above it and, for the operator's own node, a second line.
//
// Pane (queue.go) is a child model in Bubbles' shape: Update(msg) moves
// its cursor with the navigation keys, the wheel and a click; View draws
// the queue in the size, border and clock the root gives it (draw.Pane).
// Set shows a queue of a snapshot, with the operator's lock on its path
// as the pane shows it (Own); it costs nothing when the queue is the
// one already shown. The other files:
//
//   - queuecells.go: a node's cells (sequence, name, role, kind, recipe,
//     session, times, what it watches), each column sized from the
//     rows on screen.
//   - banners.go: the lines above the column header (stale data, the own
//     lock lost, the queue's warnings and what they mean).
//   - semaphore.go: a semaphore's holders, leases and chains.
//   - nodeindex.go: a queue's nodes by name, for the selection kept
//     across snapshots.
//   - names.go: a lock node's sequence and short name.
//   - health.go: silentHolder, which holders get the "silent 14s ·
//     expires ≤16s" line.
//
// Every name, datum and error from ZooKeeper is drawn through
// draw.Clean. queuepane imports draw and eventlog's NodeRefs, never the
// root ui.
package queuepane
