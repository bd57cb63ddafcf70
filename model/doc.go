// Package model is the picture of lock queues that zklock shows: the
// immutable Snapshot a zkview.Watcher publishes (queues, their nodes in
// sequence order, warnings, handoffs, depth, the connection), the
// Changes told beside it in an Update, and the pure rules that read a queue
// (self-waits, a semaphore's counts and limit, the words for roles, how
// well a hold's start is known). It also holds `ls --json`'s schema and
// the one sanitizer every byte read from ZooKeeper passes through before
// it reaches a terminal.
//
// Why a package of its own: every reader of the picture (the console in
// ui, the commands in cmd, the sessions graph, the timeline) needs these
// types, and none of them may reach a ZooKeeper connection. So model
// imports lockops/ordering (the ordering's words: Kind, Recipe, Role) and nothing
// else of zklock, and it does no I/O.
//
// # Files
//
//   - snapshot.go: the published types (Snapshot, Queue, Node, Warning,
//     Update and Update.Merge, Deadlock and Wait, the watch modes).
//   - node.go: Node's compact fields (its times as stamps, its data, the
//     fields a plain lock's node leaves empty behind one pointer, and its
//     Predecessor there too when it is not its Watches), their getters
//     and setters, and its JSON, the plain struct's byte for byte.
//   - change.go: Change, the one vocabulary of change: a typed value
//     (kind, path, node, session, holder and the node before it, how long
//     it held or waited, warning, connection...), never a sentence. Two
//     producers make it: the Watcher as it reads ZooKeeper (zkview,
//     zkview/queue: every node created or deleted, handoff, warning,
//     path, connection, server-view note) and timeline.Diff from two
//     snapshots (`zklock watch`). It has two renderings:
//   - changetext.go: Change.Text, the console's event log line (and
//     Deadlock.Text, CycleText), and ChangeKind.LogWord, its heading;
//   - changejson.go: Change.ToJSON, one line of `watch --json`
//     (JSONChange, StreamSchema).
//   - cause.go: Cause, why a session ended with its nodes (expired,
//     closed, unknown), and CauseOf, deciding it from what the servers
//     told of the session (SessionSeen).
//   - queuerare.go: Queue's fields most lock parents leave empty behind
//     one copy-on-write pointer (QueueRare), their getters and setters,
//     ListedAt, and Queue's JSON, the plain struct's byte for byte.
//   - nodes.go: Nodes, a queue's nodes in chunks that snapshots share, so
//     that publishing a change copies the chunks it touches (Extend,
//     Prefix, MergeChanged), never the queue.
//   - queues.go: Queues, a snapshot's queues in chunks that snapshots
//     share, so that publishing a change in one lock parent copies the
//     chunk it is in (Patch), never the list of 100,000 parents.
//   - waits.go: who waits on whom inside one queue (QueueWaits) and the
//     self-wait warning, worked out in full or from the last build.
//   - serverwaits.go: ServerWaits and FollowServerWaits, the waits the
//     servers' watches show in one queue, whatever the names predict.
//   - queuetext.go: a semaphore's counts and limit, a node's kind and
//     name relative to its queue, Node.DataText (its data as sanitized
//     text), and RoleWord.
//   - health.go: Health, what the servers know of a node's session's
//     liveness (member, last heard, timeout, expiry; memberview), kept in
//     Node's rare fields; its JSON fields and the console's words.
//   - tenure.go: since when a node holds or waits, and how well that is
//     known (Bound).
//   - names.go: short forms of node names and session ids, the typed
//     confirmation of destructive actions, GapText.
//   - lsjson.go: JSONPath, ToJSON and PathJSON (one path, for a streaming writer), `ls --json`'s schema (LsSchema), and Warning.JSON (a warning as ls and why write it).
//   - sanitize.go: Sanitize and SanitizeString.
//   - discovery.go: DiscoveryText, how far the first reads of the roots
//     have come, and Grouped (digits in groups of three).
//   - recipes.go: the library recipes that are no lock (barriers, queues,
//     counters): a node's Part in one and the RecipeFacts it states.
//   - zxid.go: a zxid's epoch and counter, and ZxidWarnRatio (how near
//     the counter's end doctor warns).
//   - modeltest/: model values for tests (nodes of a session holding or
//     waiting since a moment; mutex queues of them).
package model
