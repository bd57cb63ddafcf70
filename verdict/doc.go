// Package verdict is `zklock why`: one lock's verdict from all zklock
// knows at one read, for a chat or a runbook where the console is not
// open. Who holds it and since when (with the bound, as `ls` gives
// since_bound), whether its client is alive (silent, expiring when),
// who waits and whether each will wake (a watch the servers confirm, one
// they show missing, a cycle of waits), what happens next ("when #12
// releases, #13 holds", by the one ordering), and the one command to act.
//
// Why a package of its own: the verdict is a judgement over a snapshot,
// apart from reading ZooKeeper (cmd reads the snapshot as `ls` does and
// hands it in) and from drawing; one typed Verdict with two renderings,
// Text and JSON. It imports model, sessions (the JSON of a cycle over
// sessions) and lockops/ordering, never zkview, ui or cmd, and does no
// I/O.
//
// # Files
//
//   - verdict.go: Verdict, Holder, Waiter, State, Options and Judge.
//   - liveness.go: Liveness (model.Health), the one place where a
//     session's silence and expiry come in (NodeLiveness reads it from
//     the snapshot), and Alive.
//   - wake.go: whether each waiter will wake (Wakes) and why (the Reason
//     codes).
//   - next.go: Next, what happens when the holders go.
//   - act.go: Action, the one command to run, and NodePath.
//   - text.go: Text, the verdict as `zklock why` prints it.
//   - json.go: JSON, `zklock why -o json`'s schema (WhySchema).
package verdict
