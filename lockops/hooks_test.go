package lockops

import (
	"context"
)

// The lock core's hooks that only tests use: the commands never make a
// lock's parents apart from acquiring.

// makeParents creates the lock parent and its ancestors as persistent
// nodes. Curator makes containers (the server deletes them once empty);
// persistent ones keep the path visible to the console between uses.
func (l *Lock) makeParents(ctx context.Context) error {
	return l.s.makePath(ctx, l.abs, l.cfg.acl)
}
