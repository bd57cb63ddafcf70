package ordering

import "errors"

// What an operator's action on a named lock node can find (a
// force-release, a revoke), shared by the lock core that finds it and the
// console that tells it. They are told as the cause after the action and
// the node are named ("force-release #41: no such node"), so unlike
// other sentinels they name no package.
var (
	// ErrOwnerChanged: the node is no longer owned by the session the
	// operator saw; nothing was deleted.
	ErrOwnerChanged = errors.New("node owner changed")
	// ErrNoNode: the node does not exist (already released).
	ErrNoNode = errors.New("no such node")
	// ErrNotLockNode: the path is not an ephemeral lock node (a lock
	// parent, a persistent node, a name no recipe makes); refused.
	ErrNotLockNode = errors.New("not a lock node")
)
