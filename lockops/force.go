package lockops

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

// What an action on a named node found, told to the operator as the
// cause: the values are ordering's, so that the console, which never
// imports the lock core, tells them apart with errors.Is.
var (
	// ErrOwnerChanged: the node is no longer owned by the session the
	// operator saw; nothing was deleted.
	ErrOwnerChanged = ordering.ErrOwnerChanged
	// ErrNoNode: the node does not exist (already released).
	ErrNoNode = ordering.ErrNoNode
	// ErrNotLockNode: the path is not an ephemeral lock node (a lock
	// parent, a persistent node, a name no recipe makes); refused.
	ErrNotLockNode = ordering.ErrNotLockNode
)

// lockNodeStat checks that nodePath names an ephemeral, childless lock
// node (or a semaphore's lease: Curator's are named like lock nodes,
// Kazoo's by 32 hex digits) and returns its stat.
func lockNodeStat(ctx context.Context, s *Session, nodePath string) (string, *zk.Stat, error) {
	if err := ValidPath(nodePath); err != nil {
		return "", nil, err
	}
	if n, ok := ordering.ParseName(path.Base(nodePath)); (!ok || n.Kind == ordering.KindOther) && !ordering.IsHex32(path.Base(nodePath)) {
		return "", nil, fmt.Errorf("%w: %s is not named like a lock node", ErrNotLockNode, nodePath)
	}
	abs := s.Abs(nodePath)
	type got struct {
		ok   bool
		stat *zk.Stat
	}
	g, err := retry(ctx, s, func() (got, error) {
		ok, st, err := s.conn.Exists(abs)
		return got{ok, st}, err
	})
	switch {
	case err != nil:
		return "", nil, err
	case !g.ok:
		return "", nil, fmt.Errorf("%w: %s", ErrNoNode, nodePath)
	case g.stat.EphemeralOwner == 0:
		return "", nil, fmt.Errorf("%w: %s is persistent (lock nodes are ephemeral)", ErrNotLockNode, nodePath)
	case g.stat.NumChildren > 0:
		return "", nil, fmt.Errorf("%w: %s has children (a lock parent?)", ErrNotLockNode, nodePath)
	}
	return abs, g.stat, nil
}

// ForceRelease deletes the lock node at nodePath (as the user sees it)
// only if its ephemeralOwner is still owner, the session the operator saw.
// The delete carries the version just read, so a node changed in between
// (a revoke, say) is looked at again rather than deleted blind. The holder
// is not told: it may still act until it notices (a zklock holder's Done()
// closes). Errors: ErrOwnerChanged (node intact), ErrNoNode, ErrNotLockNode.
func ForceRelease(ctx context.Context, s *Session, nodePath string, owner int64) error {
	const tries = 3 // a node whose data keeps changing is not worth more
	maybeDeleted := false
	for range tries {
		abs, st, err := lockNodeStat(ctx, s, nodePath)
		if errors.Is(err, ErrNoNode) && maybeDeleted {
			return nil // our delete went through before the link dropped
		}
		if err != nil {
			return fmt.Errorf("force-release: %w", err)
		}
		if st.EphemeralOwner != owner {
			return fmt.Errorf("force-release %s: %w: owned by session 0x%x, not 0x%x", nodePath, ErrOwnerChanged, st.EphemeralOwner, owner)
		}
		_, err = do(ctx, func() (struct{}, error) { return struct{}{}, s.conn.Delete(abs, st.Version) })
		switch {
		case err == nil:
			return nil
		case errors.Is(err, zk.ErrBadVersion):
			// Changed since we looked: look again.
		case errors.Is(err, zk.ErrNoNode):
			return fmt.Errorf("force-release %s: %w", nodePath, ErrNoNode)
		case ConnLoss(err):
			maybeDeleted = true
			if _, werr := s.waitConnected(ctx); werr != nil {
				return fmt.Errorf("force-release %s: %w", nodePath, werr)
			}
		default:
			return fmt.Errorf("force-release %s: %w", nodePath, err)
		}
	}
	return fmt.Errorf("force-release %s: node kept changing, gave up after %d tries", nodePath, tries)
}

// Revoke politely asks the holder of the lock node at nodePath to let go,
// by Curator's protocol: the node's data is set to "__REVOKE__". Holders
// that honour it (Curator's revocable InterProcessMutex, a zklock Lock
// WithRevocable) delete their node; others ignore it.
func Revoke(ctx context.Context, s *Session, nodePath string) error {
	abs, _, err := lockNodeStat(ctx, s, nodePath)
	if err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	_, err = retry(ctx, s, func() (*zk.Stat, error) { return s.conn.Set(abs, []byte(revokeData), -1) })
	if errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("revoke %s: %w", nodePath, ErrNoNode)
	}
	if err != nil {
		return fmt.Errorf("revoke %s: %w", nodePath, err)
	}
	return nil
}
