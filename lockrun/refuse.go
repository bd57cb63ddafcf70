package lockrun

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zklock/zklock/holds"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/systems"
	"github.com/zklock/zklock/third_party/zk"
)

// runCheckBudget bounds the reads that tell what holds run's path: the
// recognisers look at the path, its parent and a few nodes beside them.
const runCheckBudget = 200

// RefuseNotALock says why run must not take p, nil when it may: a lock
// node of ours in a system's coordination (Solr's overseer election,
// Kafka's controller, an HDFS failover lock) or in a library recipe that
// is no lock (a barrier, a queue, a group, a counter, a lease) would join
// or corrupt what the system or library does there, never pause it. The
// path is read as `ls` reads it, with the same recognisers; what cannot
// be read is no evidence, and the lock core decides as before.
func RefuseNotALock(ctx context.Context, sess *lockops.Session, barriers []string, p string) error {
	lctx, cancel := context.WithTimeout(ctx, holds.LookupTimeout)
	defer cancel()
	tree := systems.NewLiveTree(lctx, sessionReader{lctx, sess}, runCheckBudget)
	what := ""
	if rec, ok := systems.Recognize(tree, p); ok && rec.Path == p {
		what = fmt.Sprintf("%s (%s)", rec.Label, rec.System)
	} else if slices.Contains(barriers, p) {
		what = "a barrier (the context's barriers:)"
	} else if rec, ok := systems.RecognizeRecipe(tree, p); ok && rec.Path == p && noLock(rec.Type) {
		what = fmt.Sprintf("a %s %s", rec.Library, rec.Type)
	}
	if what == "" {
		return nil
	}
	return fmt.Errorf("run: %s is %s, not a lock: zklock takes locks, semaphores and elections it may join only", model.SanitizeString(p, 0), model.SanitizeString(what, 0))
}

// noLock says whether a recipe of type t has nothing to hold.
func noLock(t systems.Type) bool {
	switch t {
	case systems.TypeBarrier, systems.TypeQueue, systems.TypeMembership, systems.TypeCounter, systems.TypeLease:
		return true
	}
	return false
}

// sessionReader reads for the systems' recognisers through the Session
// (which applies the chroot), bounded by ctx.
type sessionReader struct {
	ctx  context.Context
	sess *lockops.Session
}

func (r sessionReader) Get(p string) ([]byte, *zk.Stat, error) { return r.sess.Get(r.ctx, p) }

func (r sessionReader) Children(p string) ([]string, *zk.Stat, error) {
	return r.sess.ChildrenStat(r.ctx, p)
}

// refusal turns a semaphore's refusals into the one line that says
// what to do; other errors are returned as they are.
func refusal(p string, err error) error {
	switch {
	case errors.Is(err, lockops.ErrNoLimit):
		return fmt.Errorf("run: the limit of semaphore %s is unknown (Curator keeps it in its clients only): give it with --limit N, or under semaphores: in the context config", p)
	case errors.Is(err, lockops.ErrLimitMismatch):
		return fmt.Errorf("run: %w (leave --limit out: Kazoo's semaphore states its own)", err)
	case errors.Is(err, lockops.ErrNotSemaphore):
		return fmt.Errorf("run: refusing to take a lease of %s: %w", p, err)
	}
	return nil
}
