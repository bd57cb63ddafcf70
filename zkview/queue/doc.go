// Package queue is the model of one lock parent as the Watcher follows
// it: what is known of each lock node between listings (a Record: its
// stat and data, read once, and the roles it was seen in), how a listing
// or a change merges into it (Tracker.Apply, Tracker.ApplyChange: roles, hold
// and wait times, handoffs, depth, and the events that tell them), and
// the immutable model.Queue built from it (Build: the links judged with
// the servers' watches when they tell, split-holders, mixed-recipes,
// missing-watch, herd, deadlock, stale, silent-holder; BuildChanged: the same Queue
// from the last one when only changes separate them).
//
// It holds no connection and starts no goroutine: zkview reads
// ZooKeeper and hands this package what it read (Fetched nodes, a
// ServerView of what the members told), under the Watcher's lock. That
// cut is why it exists: how a queue is read and judged can be changed
// and tested without a server, and zkview is left with following
// ZooKeeper. It imports model and lockops/ordering (the one ordering function);
// only zkview and zkview/layouts (the ServerView an Overlay is handed)
// import it.
//
// # Files
//
//   - queue.go: Tracker, its state and flags, the order of its children
//     (kept, or derived for a parent of one lock node, which keeps no
//     entries), the children as listed, and its depth samples.
//   - merge.go: merging into a Tracker a listing (Apply) or a watch's
//     creates and deletes as changes (ApplyChange), its state when it
//     could not be listed, and the events each tells (created, deleted,
//     handoffs).
//   - record.go, records.go: Record, a lock node's stat and data, and a
//     Tracker's records by name.
//   - shared.go: what the Watcher's models share until one changes it
//     (hooks, depth samples, a kept listing: Hooks' extras).
//   - delta.go: Prior, what merging creates and deletes as changes
//     (ordering.Ordering.Change) needs of the order before them.
//   - deltabuild.go: a Queue built from its last build when only such
//     changes separate them: the chunks of untouched nodes shared, the
//     others made again (model.MergeChanged).
//   - analyze.go: building a Queue (links, split-holders, mixed-recipes,
//     missing-watch, herd, deadlock, stale, silent-holder; each node's
//     Health).
//   - election.go: which parents are leader elections (LeaderLatch
//     nodes, or the config's names).
//   - ephemeral.go: the plain ephemeral-node lock (one ephemeral node,
//     its waiters the sessions the servers show watching it).
//   - duplicates.go: one participant with nodes of two sessions in an
//     election (duplicate-participant).
//   - semaphore.go: semaphores (Curator InterProcessSemaphoreV2, Kazoo
//     Semaphore) on the wire, ComposeSemaphore making one Queue of a
//     semaphore's leases and admission lock (limit, over-limit), and the
//     events of its changes.
//   - serverviewdata.go: ServerView, one poll of what every member
//     knows (memberview), merged: clients, watches, sessions' Health.
//   - queuebounds.go: the bounds of a queue's history.
package queue
