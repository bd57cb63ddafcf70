// Package zkview keeps a live, truthful model of lock queues: it owns every
// ZooKeeper watch the console needs, reads queues through lockops' ordering
// function (never a copy of it), asks the servers' four-letter words who
// each session is and which watches really exist, and publishes immutable
// snapshots and typed events for the console and `zklock ls`.
//
// zkview must never import ui or cmd: the commands' printing (the text of
// `ls` and `zklock sessions`, their --check exit codes) lives in package
// cmd. zkview holds the model's serialisable forms, the JSON schemas of
// `ls`, `sessions` and `watch` (ToJSON, SessionsJSON, Change.ToJSON;
// replay prints them too), so that they share one time format and one
// text of a node's data; and the one sanitizer every byte read from
// ZooKeeper passes through before reaching a terminal.
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
//   - ToJSON is a Snapshot as `ls --json` (and replay's --snapshots
//     lines) print it, schema on JSONPath; SessionsJSON is a Sessions
//     view (SessionsOf) as `sessions --json` prints it, schema on
//     JSONSessions.
//
// # Files
//
//   - snapshot.go: the published types (Snapshot, Queue, Node, Event...).
//     nodes.go: Nodes, a queue's nodes in chunks that snapshots share, so
//     that publishing a change copies the chunks it touches, not the queue.
//   - watcher.go: Watcher, Load, the connection state, the update pump.
//   - paths.go: one goroutine per watched path (its children watch,
//     absent and NoAuth paths, discovery under roots, fetching new nodes).
//   - recursive.go: the same path followed by one persistent recursive
//     watch (ZooKeeper 3.6+ addWatch, through the patched go-zookeeper in
//     third_party), its first listing sent right behind the addWatch
//     (one round trip): each batch of events applied at once without a
//     listing; within auditSoon after it (at most once per auditSoon) one
//     exists as a barrier that tells whether the server left a change
//     unreported; a listing again after a reconnection, a new session or
//     an overflow; children watches when the server refuses addWatch.
//   - queue.go: merging a listing into a queue (roles, hold and wait
//     times, handoffs, depth, events).
//   - delta.go: a watch's creates and deletes merged as changes
//     (lockops.Ordering.Change) where the queue's shape allows, through the
//     listing merge where it does not.
//   - deltabuild.go: a queue built from its last build when only such
//     changes separate them: the chunks of untouched nodes shared, the
//     others made again (mergeChanged).
//   - analyze.go: building a Queue (links, split-holders, mixed-recipes,
//     missing-watch, herd, deadlock, stale).
//   - election.go: which parents are leader elections (LeaderLatch
//     nodes, or Config.Elections) and the words for their roles.
//   - ephemeral.go: the plain ephemeral-node lock (one ephemeral node,
//     its waiters the sessions the servers show watching it).
//   - semaphore.go: semaphores (Curator InterProcessSemaphoreV2, Kazoo
//     Semaphore) on the wire, and the pure function composing one Queue
//     of a semaphore's leases and admission lock (limit, over-limit).
//   - semwatch.go: recognising a semaphore parent from its listing,
//     watching its leases/ and locks/ (or Kazoo's <path>-__lock__) as
//     auxiliary paths with no queue of their own, reading Kazoo's leases
//     and max_leases, and composing it at build time.
//   - serverview.go: `cons` and `wchc` on every member.
//   - fourletter/: the one four-letter-word client (Ask) and the parsers
//     of the replies zklock reads (cons, wchc, wchp, srvr, mntr); it
//     imports nothing from zklock, so that sandbox and tests use it too.
//   - lsjson.go: JSONPath and ToJSON, `ls --json`'s schema.
//   - sessions.go: the wait-for graph over sessions across every queue:
//     kept by the Watcher one changed queue at a time, its cycles
//     (cross-lock deadlocks, self-waits) and their age in
//     Snapshot.Deadlocks at every publish; the table of sessions, root
//     blocker first, built on demand (SessionsOf); judging a one-off
//     read's cycles by reading again (ConfirmCycles).
//     sessiongraph.go holds the graph and its cycles, sessionparts.go
//     what each queue brings to it (its waits, re-read by walking the
//     old ones alongside), sessiontable.go the table.
//   - sessionsjson.go: JSONSessions and SessionsJSON, `sessions --json`'s
//     schema.
//   - sanitize.go: the sanitizer, and Node.DataText (a node's data as the
//     text every output shows).
//   - stream.go: Diff, the changes between two snapshots (`zklock watch`).
//   - recording.go: Recorder and ReadRecording, the file of `zklock
//     record` (full snapshots and deltas, safe to kill).
//   - player.go: Player, a recording replayed as Updates on its clock.
//
// # What the servers cannot tell
//
// Persistent watches do not report children the monitor may not read
// (ZooKeeper checks the ACL of each child); the barrier's child version,
// read within auditSoon of any event and every few seconds on a quiet
// path, shows such changes, and the queue is listed again.
//
// `wchc` lists data watches only: a herd of sessions watching the
// parent's children (getChildren watches) is not visible and not judged.
// A watch cycle (the deadlock warning) is looked for within one lock
// parent. Across parents, the sessions view finds cycles of waits over
// sessions; a session is not a thread, so such a cycle may include a
// holder that would release on its own: it is called a deadlock only once
// it has stood DeadlockAfter with no handoff.
// Without the four-letter words, links are inferred and a deadlock is
// predicted from the recipes' rules and what the monitor saw happen.
package zkview
