// Package holds decides what taking a path means and hands out the held
// thing, for both `zklock run` and the console's lock manager: one Take
// (a lock of a kind, one lease of a semaphore in its clients' protocol
// under a stated, configured or deduced limit, or a participant's place
// in a LeaderLatch election or in an election the config names on a
// mutex) and one Hold (Acquire, Release, Done and Err for a loss, the
// fencing token, the own node and the audit's kind). Its Manager is the
// console's lock manager: the operator's holds by path, taken, released
// and ended on Close, their progress told in order on Own.
//
// It sits on the lock core (lockops) and reads the queue through zkview
// for a deduced limit. It must not import cmd or ui: the Manager's
// methods are ui.Backend's by shape, and its reports are made by a
// function the caller hands in (ui.OwnFromProgress). Messages that name
// a flag (--kind, --limit) are only returned for what only `run` asks
// (Want.Explicit, Want.Limit).
//
// # Files
//
//   - take.go: Want and Take (the decision), the lease's limit (stated,
//     configured, deduced; refused above the clients'), ParseKind.
//   - hold.go: Hold and the kinds beyond the lock kinds (lease,
//     election).
//   - manager.go: Manager (Take, Release, Revoke, ForceRelease, Owned,
//     Own, Close), Config, the refusals the console shows.
//   - feed.go: the in-order, never-blocking carrier of progress reports
//     from the lock core's goroutines to Own.
package holds
