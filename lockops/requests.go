// One request each, for the callers that read the tree and follow it
// themselves (the console's Watcher, doctor, shell completion): bounded by
// ctx, the chroot applied once, never through the raw connection.

package lockops

import (
	"context"
	"fmt"

	"github.com/zklock/zklock/third_party/zk"
)

// These calls are go-zookeeper's requests, one each and not retried: the
// caller decides what a lost link means (the Watcher marks the path stale
// and reads again after the reconnect). Paths are as the user sees them
// (Abs is applied here); the watch channels are go-zookeeper's own, so
// that PersistentBacklog can count them, and EventPath strips the chroot
// from their events. Errors are go-zookeeper's, not wrapped: the callers
// name the path in their own words. When ctx ends first the caller gets
// ctx's error and the request's result is dropped: the three reads a
// stream of changes makes (ChildrenStat, Get, Exists) wait for it with the
// client's own context-aware calls (third_party/zk patch 9), the others
// through do, a goroutine per request.

// server is p on the server: Abs, for a path that starts with a slash (the
// client checks the rest of its form).
func (s *Session) server(p string) (string, error) {
	if p == "" || p[0] != '/' {
		return "", fmt.Errorf("%w %q: must start with /", ErrBadPath, p)
	}
	return s.Abs(p), nil
}

// ChildrenStat lists p's children, in the server's order, with p's stat:
// one request, not retried (Children is the retried listing).
func (s *Session) ChildrenStat(ctx context.Context, p string) ([]string, *zk.Stat, error) {
	abs, err := s.server(p)
	if err != nil {
		return nil, nil, err
	}
	return s.conn.ChildrenContext(ctx, abs)
}

// ChildrenW is ChildrenStat that also sets a one-shot children watch on p:
// the channel receives one event, when p's children change or p goes.
func (s *Session) ChildrenW(ctx context.Context, p string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	abs, err := s.server(p)
	if err != nil {
		return nil, nil, nil, err
	}
	type listing struct {
		kids []string
		st   *zk.Stat
		ch   <-chan zk.Event
	}
	l, err := do(ctx, func() (listing, error) {
		kids, st, ch, err := s.conn.ChildrenW(abs)
		return listing{kids, st, ch}, err
	})
	return l.kids, l.st, l.ch, err
}

// Get reads p's data and stat.
func (s *Session) Get(ctx context.Context, p string) ([]byte, *zk.Stat, error) {
	abs, err := s.server(p)
	if err != nil {
		return nil, nil, err
	}
	return s.conn.GetContext(ctx, abs)
}

// Exists says whether p exists, with its stat when it does. It needs no
// read permission on p.
func (s *Session) Exists(ctx context.Context, p string) (bool, *zk.Stat, error) {
	abs, err := s.server(p)
	if err != nil {
		return false, nil, err
	}
	return s.conn.ExistsContext(ctx, abs)
}

// ExistsW is Exists that also sets a one-shot watch on p: the channel
// receives one event, when p is created, changed or deleted.
func (s *Session) ExistsW(ctx context.Context, p string) (bool, *zk.Stat, <-chan zk.Event, error) {
	abs, err := s.server(p)
	if err != nil {
		return false, nil, nil, err
	}
	type existence struct {
		ok bool
		st *zk.Stat
		ch <-chan zk.Event
	}
	e, err := do(ctx, func() (existence, error) {
		ok, st, ch, err := s.conn.ExistsW(abs)
		return existence{ok, st, ch}, err
	})
	return e.ok, e.st, e.ch, err
}

// Sync makes the server the Session is connected to catch up with the
// leader before it answers; a read sent after Sync returns sees every
// write the leader had applied by then.
func (s *Session) Sync(ctx context.Context, p string) error {
	abs, err := s.server(p)
	if err != nil {
		return err
	}
	_, err = do(ctx, func() (string, error) { return s.conn.Sync(abs) })
	return err
}

// Create creates the node p with data, flags (zk.FlagEphemeral,
// zk.FlagSequence...) and acl, and returns its path (with the sequence
// number, when one was asked for). A create abandoned because ctx ended
// may still be made: only for nodes whose fate does not matter then (an
// ephemeral probe goes with the session); the lock's own create is
// protected (create.go).
func (s *Session) Create(ctx context.Context, p string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	abs, err := s.server(p)
	if err != nil {
		return "", err
	}
	made, err := do(ctx, func() (string, error) { return s.conn.Create(abs, data, flags, acl) })
	if err != nil {
		return "", err
	}
	return s.Rel(made), nil
}

// Delete deletes p if its version is version (-1: any version).
func (s *Session) Delete(ctx context.Context, p string, version int32) error {
	abs, err := s.server(p)
	if err != nil {
		return err
	}
	_, err = do(ctx, func() (struct{}, error) { return struct{}{}, s.conn.Delete(abs, version) })
	return err
}

// AddWatch sets a persistent watch on p (recursive: on every node below
// it too) and returns its channel, which receives every change until
// RemovePersistentWatch, the session's end or an overflow ends it
// (zk.EventNotWatching). A server older than 3.6 refuses it with an
// error wrapping zk.ErrUnimplemented.
func (s *Session) AddWatch(ctx context.Context, p string, recursive bool) (<-chan zk.Event, error) {
	pw, err := s.AddWatchAsync(ctx, p, recursive)
	if err != nil {
		return nil, err
	}
	return pw.Wait(ctx)
}

// PendingWatch is a persistent watch asked for by AddWatchAsync, not yet
// answered. It is not safe for concurrent use.
type PendingWatch struct {
	p *zk.PendingWatch
}

// AddWatchAsync sends AddWatch's request and returns once it is queued,
// without waiting for the answer (Wait does). A request made after it
// returns goes out after it, and the server answers in order: a listing
// asked for then is read with the watch in place, so the two miss nothing
// between them, in one round trip (see zk.Conn.AddWatchAsync).
func (s *Session) AddWatchAsync(ctx context.Context, p string, recursive bool) (*PendingWatch, error) {
	abs, err := s.server(p)
	if err != nil {
		return nil, err
	}
	return do(ctx, func() (*PendingWatch, error) {
		return &PendingWatch{s.conn.AddWatchAsync(abs, recursive)}, nil
	})
}

// Wait returns the watch's channel once the server has set it, or why it
// did not (AddWatch).
func (w *PendingWatch) Wait(ctx context.Context) (<-chan zk.Event, error) {
	return do(ctx, w.p.Wait)
}

// RemovePersistentWatch ends the persistent watches on p: their channels
// close after the events already in them, and the server stops sending.
// A removal that fails with the link is done anyway (the next connection
// sets only the watches the client holds).
func (s *Session) RemovePersistentWatch(ctx context.Context, p string) error {
	abs, err := s.server(p)
	if err != nil {
		return err
	}
	_, err = do(ctx, func() (struct{}, error) { return struct{}{}, s.conn.RemovePersistentWatch(abs) })
	return err
}

// PersistentBacklog counts the events of the persistent watch whose
// channel is ch not received yet. Once a request has returned, 0 means
// every event the server sent before its reply has been received.
func (s *Session) PersistentBacklog(ch <-chan zk.Event) int {
	return s.conn.PersistentBacklog(ch)
}

// EventPath is the path of a watch's event as the user sees it (Rel).
// The channels carry go-zookeeper's events as they come, with the
// server's paths: a goroutine that rewrote them on the way would hold an
// event that PersistentBacklog cannot see, and the Watcher's barrier
// depends on that count missing nothing.
func (s *Session) EventPath(ev zk.Event) string {
	return s.Rel(ev.Path)
}

// The tree's persistent nodes (tree.go): retried across link losses,
// unlike the single requests above.

// EnsurePath creates p and those of its ancestors that do not exist yet as
// persistent nodes without data, open to everyone, and returns the ones it
// created, shallowest first, so that a caller can remove them again
// (RemovePath). Each create is retried across link losses, bounded by ctx;
// on an error, made still lists what was created before it.
func (s *Session) EnsurePath(ctx context.Context, p string) (made []string, err error) {
	return ensurePath(ctx, s, p)
}

// Children lists p's children in the server's order, which is not queue
// order (Order makes the queue). The listing is retried across link
// losses, bounded by ctx; an absent p is an error wrapping zk.ErrNoNode.
func (s *Session) Children(ctx context.Context, p string) ([]string, error) {
	return listChildren(ctx, s, p)
}

// RemovePath deletes the persistent node at p if it has no children (a
// node with children stays: the error wraps zk.ErrNotEmpty). An absent p
// is not an error. An ephemeral node is refused with ErrEphemeral: a lock
// node is deleted by its holder's release, or by ForceRelease, which
// makes sure of its owner first. Retried across link losses, bounded by
// ctx.
func (s *Session) RemovePath(ctx context.Context, p string) error {
	return removePath(ctx, s, p)
}

// makePath creates the server path abs and those of its ancestors that do
// not exist yet (the chroot's too) as persistent nodes without data.
func (s *Session) makePath(ctx context.Context, abs string, acl []zk.ACL) error {
	_, err := createPath(ctx, s, abs, "", acl)
	return err
}
