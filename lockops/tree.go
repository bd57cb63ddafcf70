// The persistent nodes around the locks: making a path of lock parents,
// listing a parent, removing a parent again. For callers that set up and
// look at lock parents themselves (the demo's workload), through the same
// path checks and retries as the lock, never through the raw connection.
// Functions of a Session; its methods EnsurePath, Children and RemovePath
// (requests.go) call them.

package lockops

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/zklock/zklock/third_party/zk"
)

// ErrEphemeral is returned by RemovePath for an ephemeral node: a lock
// node goes with its session, or by ForceRelease, which checks its owner.
var ErrEphemeral = errors.New("lockops: ephemeral node")

// ensurePath is Session.EnsurePath.
func ensurePath(ctx context.Context, s *Session, p string) (made []string, err error) {
	if err := ValidPath(p); err != nil {
		return nil, err
	}
	made, err = createPath(ctx, s, s.Abs(p), s.cfg.chroot, zk.WorldACL(zk.PermAll))
	for i, m := range made {
		made[i] = s.Rel(m)
	}
	return made, err
}

// listChildren is Session.Children.
func listChildren(ctx context.Context, s *Session, p string) ([]string, error) {
	if err := ValidPath(p); err != nil {
		return nil, err
	}
	abs := s.Abs(p)
	kids, err := retry(ctx, s, func() ([]string, error) {
		kids, _, err := s.conn.Children(abs)
		return kids, err
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", p, err)
	}
	return kids, nil
}

// removePath is Session.RemovePath.
func removePath(ctx context.Context, s *Session, p string) error {
	if err := ValidPath(p); err != nil {
		return err
	}
	abs := s.Abs(p)
	st, err := retry(ctx, s, func() (*zk.Stat, error) {
		ok, st, err := s.conn.Exists(abs)
		if err == nil && !ok {
			st = nil
		}
		return st, err
	})
	switch {
	case err != nil:
		return fmt.Errorf("remove %s: %w", p, err)
	case st == nil:
		return nil
	case st.EphemeralOwner != 0:
		return fmt.Errorf("remove %s: %w of session 0x%x", p, ErrEphemeral, st.EphemeralOwner)
	}
	_, err = retry(ctx, s, func() (struct{}, error) { return struct{}{}, s.conn.Delete(abs, -1) })
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("remove %s: %w", p, err)
	}
	return nil
}

// createPath creates the server path abs and those of its ancestors below
// base (a server path; "" for the root) that do not exist yet, as
// persistent nodes without data with acl, and returns the server paths it
// created, shallowest first. Each create is retried across link losses,
// bounded by ctx; on an error, made still lists what was created before
// it.
func createPath(ctx context.Context, s *Session, abs, base string, acl []zk.ACL) (made []string, err error) {
	for cur := range ancestors(abs) {
		if len(cur) <= len(base) {
			continue // base or above it: abs starts with base
		}
		_, err := retry(ctx, s, func() (string, error) { return s.conn.Create(cur, nil, 0, acl) })
		switch {
		case err == nil:
			made = append(made, cur)
		case errors.Is(err, zk.ErrNodeExists):
			// Made by someone else, or by a create of ours whose reply
			// was lost with the link: not counted as made, so never
			// removed.
		default:
			return made, fmt.Errorf("create %s: %w", s.Rel(cur), err)
		}
	}
	return made, nil
}

// ancestors yields p's ancestors below the root and p itself, shallowest
// first ("/a", "/a/b", "/a/b/c" for "/a/b/c"); nothing for the root.
func ancestors(p string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := 1; i < len(p); i++ {
			if p[i] == '/' && !yield(p[:i]) {
				return
			}
		}
		if p != "/" {
			yield(p)
		}
	}
}
