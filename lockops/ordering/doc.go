// Package ordering is the vocabulary of a lock queue: a lock parent's
// children read as lock nodes (ParseName, the recipes' grammars), put in
// the one order every reader uses (Order: sequence order, never name
// order, surviving the counter's wrap), each node's role and the node it
// waits on by its own recipe (the replays), and which recipes can see each
// other (split holders, mixed recipes). The lock core decides with it, the
// console draws with it, and the readers of a published queue (model,
// zkview/queue, systems, sessions, timeline, ui) name things with its
// words (Kind, Recipe, Role, Style, LockState, Progress).
//
// It is pure: no I/O, no ZooKeeper client. It must never import lockops
// (the lock core imports it) nor any package of the console.
//
// Files:
//
//   - types.go: Kind, Recipe, Role.
//   - names.go: ParsedName and ParseName, the recipes' grammars; SeqLess,
//     the comparison that survives the counter's wrap; Style and
//     ParseStyle.
//   - order.go: Order, the ordering function, and the Ordering it returns
//     (BySequence: the same without the replays, what the lock core orders
//     every listing with).
//   - change.go: Ordering.Change, a queue's next order from the names added
//     and removed, for a queue of one recipe's mutex nodes (anything else
//     goes back to Order); Assemble.
//   - replay.go: each recipe's own decision replayed (who believes it
//     holds, what it watches): Curator, go-zookeeper, Kazoo 2.8.
//   - family.go: which recipes can see each other (Recipes, SplitHolders,
//     MixedRecipes); DetectStyle.
//   - progress.go: LockState and Progress, where one client's lock stands
//     (queued at a position, watching a node, holding, lost).
//   - outcome.go: what an operator's action on a named node can find
//     (ErrNoNode, ErrOwnerChanged, ErrNotLockNode), told by the console.
package ordering
