package lockops

import (
	"context"

	"github.com/zklock/zklock/third_party/zk"
)

// The lock core's hooks that only tests use: the commands never make a
// lock's parents apart from acquiring, nor dial through another dialer.

// makeParents creates the lock parent and its ancestors as persistent
// nodes. Curator makes containers (the server deletes them once empty);
// persistent ones keep the path visible to the console between uses.
func (l *Lock) makeParents(ctx context.Context) error {
	return l.s.makePath(ctx, l.abs, l.cfg.acl)
}

// WithDialer replaces the TCP dialer (the tests cut links with it).
func WithDialer(d zk.Dialer) SessionOption {
	return func(c *sessionConfig) { c.dialer = d }
}
