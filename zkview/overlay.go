// What a Watcher lays over its lock queues besides them (Options.Systems:
// the systems' layouts, package zkview/layouts): the engine owns this
// interface and hands the overlay what it read; the overlay never holds
// the Watcher, only a Host.

package zkview

import (
	"context"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview/queue"
)

// Overlay lays what it reads over a Watcher's queues at each build. A
// Watcher calls Follow (live) or ReadOnce (Load), tells it each change
// its watches report (Changed, the Watcher's lock not held) and hands it
// the queues it built (Apply, under the Watcher's lock: Apply must not
// call back into the Host).
type Overlay interface {
	// Follow reads while the Watcher runs, until ctx ends.
	Follow(ctx context.Context)
	// ReadOnce reads once, bounded by ctx, and keeps what it read.
	ReadOnce(ctx context.Context)
	// Changed tells the changes a watch reported, in the server's order.
	Changed(evs []WatchEvent)
	// Apply lays the overlay over base, the queues built (sv: the server
	// view judged by, nil when none), and returns the queues, the paths
	// it touched and the note for Snapshot.SystemsNote.
	Apply(base model.Queues, sv *queue.ServerView) (model.Queues, []string, string)
}

// WatchEvent is one change a watch reported, as an Overlay is told it.
type WatchEvent struct {
	Path string // the user's path (the chroot taken off)
	// Existence: a root's watch told that the node at Path itself was
	// created or deleted.
	Existence bool
}

// Host is what a Watcher hands its Overlay: its configuration, reads
// and watches through its in-flight pool, its session's state, and the
// way to keep what the overlay read in step with the model (Update).
type Host struct {
	w *Watcher
}

// Options is the Watcher's configuration, defaults filled in.
func (h Host) Options() Options { return h.w.cfg }

// Get reads the node at the user's path p through the in-flight pool.
func (h Host) Get(ctx context.Context, p string) ([]byte, *zk.Stat, error) {
	type got struct {
		data []byte
		st   *zk.Stat
	}
	g, err := pooled(ctx, h.w, func() (got, error) {
		data, st, err := h.w.s.Get(ctx, p)
		return got{data, st}, err
	})
	return g.data, g.st, err
}

// Children lists the node at the user's path p through the pool.
func (h Host) Children(ctx context.Context, p string) ([]string, *zk.Stat, error) {
	type got struct {
		kids []string
		st   *zk.Stat
	}
	g, err := pooled(ctx, h.w, func() (got, error) {
		kids, st, err := h.w.s.ChildrenStat(ctx, p)
		return got{kids, st}, err
	})
	return g.kids, g.st, err
}

// AddWatch sets a persistent (not recursive) watch on p through the
// pool; RemoveWatch takes it off.
func (h Host) AddWatch(ctx context.Context, p string) (<-chan zk.Event, error) {
	return pooled(ctx, h.w, func() (<-chan zk.Event, error) { return h.w.s.AddWatch(ctx, p, false) })
}

// RemoveWatch removes the persistent watch on p (best effort).
func (h Host) RemoveWatch(ctx context.Context, p string) {
	_ = h.w.s.RemovePersistentWatch(ctx, p)
}

// Abs is the servers' path of the user's path p (the chroot applied).
func (h Host) Abs(p string) string { return h.w.s.Abs(p) }

// Ready is closed once every path was read once.
func (h Host) Ready() <-chan struct{} { return h.w.initDone }

// Resync is closed at the next (re)connection.
func (h Host) Resync() <-chan struct{} { return h.w.resyncCh() }

// WaitSynced waits until the session's server has caught up; false
// when ctx ended first.
func (h Host) WaitSynced(ctx context.Context) bool { return h.w.waitSynced(ctx) }

// Live says whether every change below the watched paths is reported
// (persistent watches): false with children watches.
func (h Host) Live() bool { return !h.w.childMode.Load() }

// Go runs f in a goroutine that Close waits for; false, f not run, when
// the Watcher is closing.
func (h Host) Go(f func()) bool {
	w := h.w
	if w.ctx.Err() != nil {
		return false
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		f()
	}()
	return true
}

// Update runs f under the Watcher's lock, so that what f keeps and the
// changes it returns reach the same Update (f may take the overlay's own
// lock: the Watcher's is always taken first). When f says changed, its
// changes go on the event log and the Watcher builds again; it is told
// to publish either way.
func (h Host) Update(f func() (changes []model.Change, changed bool)) {
	w := h.w
	w.mu.Lock()
	changes, changed := f()
	for _, c := range changes {
		w.emitLocked(c)
	}
	if changed {
		w.markDirtyLocked()
	}
	w.mu.Unlock()
	w.kickPublish()
}

// watchEvents is a batch of a watch's events as an Overlay is told
// them (s: the session, whose chroot each path loses); root: the watch
// is a root's (a node made or deleted is told as such).
func watchEvents(s *lockops.Session, batch []zk.Event, root bool) []WatchEvent {
	evs := make([]WatchEvent, 0, len(batch))
	for _, ev := range batch {
		if ev.Type == zk.EventNotWatching || ev.Type == zk.EventSession {
			continue
		}
		evs = append(evs, WatchEvent{Path: s.EventPath(ev),
			Existence: root && (ev.Type == zk.EventNodeCreated || ev.Type == zk.EventNodeDeleted)})
	}
	return evs
}
