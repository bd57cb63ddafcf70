// Package sessions reads the model's queues as one wait-for graph over
// ZooKeeper sessions: what each session holds and waits on across every
// watched lock, how many sessions it blocks (the root blocker first), and
// the cycles of waits that are cross-lock deadlocks, judged by how long
// they have stood with no handoff (DeadlockAfter).
//
// Why a package of its own: the graph is a concept apart from following
// ZooKeeper (it reads model.Queue values only) and from drawing; the
// Watcher in zkview keeps a Graph up to date one changed queue at a time
// and puts its cycles in each Snapshot, while `zklock sessions` and the
// console's sessions pane build the table (SessionsOf) from a snapshot.
// It imports model and lockops/ordering, never zkview, ui or cmd.
//
// # Files
//
//   - graph.go: Graph, kept across snapshots (Update, Cycles), its
//     cycles and their age; FindDeadlocks and JudgeAgain for one-off
//     reads (a cycle's words are model.Deadlock.Text and model.CycleText).
//   - prove.go: ProveCycles, the age of a one-off read's cycles that the
//     read itself proves (its parents' pzxid against its newest node).
//   - parts.go: what each queue brings to the graph (its waits, re-read
//     by walking the old ones alongside).
//   - sessions.go: the types of the sessions table (Sessions,
//     SessionInfo, SessionNode) and the constants the readers share.
//   - table.go: SessionsOf, the table of a snapshot, sorted by how many
//     sessions each one blocks.
//   - json.go: JSONSessions and SessionsJSON, `sessions --json`'s schema.
package sessions
