// Package zkview keeps a live, truthful model of lock queues: it owns every
// ZooKeeper watch the console needs, reads queues through lockops' ordering
// function (never a copy of it), asks the servers' four-letter words who
// each session is and which watches really exist, and publishes immutable
// snapshots and typed events for the console and `zklock ls`.
//
// zkview must never import ui. It also holds the one sanitizer every byte
// read from ZooKeeper passes through before reaching a terminal.
//
// # API
//
//   - Watch(ctx, session, Config) starts a Watcher: Updates() delivers
//     the newest Snapshot with the Events since the previous Update
//     (never a backlog: a slow consumer gets one merged Update, the
//     oldest events dropped and counted), Snapshot() reads the model now,
//     Refresh() polls the servers now, Close() stops and closes Updates.
//   - Load(ctx, session, Config) reads one Snapshot without setting any
//     watch (`zklock ls`), with one server poll when Config.ServerView.
//   - WriteText, WriteJSON (schema on JSONPath) and CheckCode are `ls`.
//
// # Files
//
//   - snapshot.go: the published types (Snapshot, Queue, Node, Event...).
//   - watcher.go: Watcher, Load, the connection state, the update pump.
//   - paths.go: one goroutine per watched path (its children watch,
//     absent and NoAuth paths, discovery under roots, fetching new nodes).
//   - queue.go: merging a listing into a queue (roles, hold and wait
//     times, handoffs, depth, events).
//   - analyze.go: building a Queue (links, split-holders, mixed-recipes,
//     missing-watch, herd, deadlock, stale).
//   - serverview.go: `cons` and `wchc` on every member.
//   - ls.go: `zklock ls` output.
//   - sanitize.go: the sanitizer.
//
// # What the servers cannot tell
//
// `wchc` lists data watches only: a herd of sessions watching the
// parent's children (getChildren watches) is not visible and not judged.
// Deadlocks are looked for within one lock parent; a cycle through two
// locks held by one session is not judged (a session is not a thread).
// Without the four-letter words, links are inferred and a deadlock is
// predicted from the recipes' rules and what the monitor saw happen.
package zkview
