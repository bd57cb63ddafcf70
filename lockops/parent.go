// What a parent shows of the recipes that use it: its children, its data
// and Kazoo's lock sibling, read in one go, and the semaphore or election
// they make. Semaphore decides its protocol from it; `zklock run` and the
// console decide from it what taking the parent means.

package lockops

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

// ParentInfo is one reading of a parent (ReadParent).
type ParentInfo struct {
	Path     string // as the user gave it
	Exists   bool
	Children []string
	Data     []byte
	// LockSibling: Kazoo's semaphore lock P-__lock__ exists.
	LockSibling bool
}

// ReadParent reads p's children, its data and whether Kazoo's lock
// sibling exists: three requests in flight at once, each retried across
// link losses, bounded by ctx. An absent parent is not an error.
func ReadParent(ctx context.Context, s *Session, p string) (ParentInfo, error) {
	if err := ValidPath(p); err != nil {
		return ParentInfo{}, err
	}
	var (
		in               = ParentInfo{Path: p}
		abs              = s.Abs(p)
		wg               sync.WaitGroup
		kerr, derr, serr error
	)
	wg.Add(3)
	go func() {
		defer wg.Done()
		in.Children, kerr = retry(ctx, s, func() ([]string, error) {
			kids, _, err := s.conn.Children(abs)
			return kids, err
		})
	}()
	go func() {
		defer wg.Done()
		in.Data, derr = retry(ctx, s, func() ([]byte, error) {
			data, _, err := s.conn.Get(abs)
			return data, err
		})
	}()
	go func() {
		defer wg.Done()
		in.LockSibling, serr = retry(ctx, s, func() (bool, error) {
			ok, _, err := s.conn.Exists(abs + kazooLockSuffix)
			return ok, err
		})
	}()
	wg.Wait()
	for _, err := range []error{kerr, derr, serr} {
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return ParentInfo{}, fmt.Errorf("read %s: %w", p, err)
		}
	}
	in.Exists = kerr == nil && derr == nil
	return in, nil
}

// Semaphore says whether the parent holds a semaphore, and whose
// protocol: Curator's when its children include leases or locks, Kazoo's
// when its children are lease names (32 hex), its data is a number or
// its lock sibling exists. A parent with lock nodes among its children is
// a lock queue, and an empty parent with none of those signs is no
// semaphore: both false. Signs of both protocols give StyleCurator and
// true; taking a lease there is refused as mixed.
func (in ParentInfo) Semaphore() (ordering.Style, bool) {
	curator, kazoo := false, in.LockSibling
	if _, numeric := parseMaxLeases(in.Data); numeric {
		kazoo = true
	}
	for _, k := range in.Children {
		switch {
		case k == curatorLeasesDir, k == curatorLocksDir:
			curator = true
		case ordering.IsHex32(k):
			kazoo = true
		default:
			if _, ok := ordering.ParseName(k); ok {
				return ordering.StyleCurator, false
			}
		}
	}
	switch {
	case curator:
		return ordering.StyleCurator, true
	case kazoo:
		return ordering.StyleKazoo, true
	}
	return ordering.StyleCurator, false
}

// Latch says whether the parent is a Curator LeaderLatch election: it has
// lock nodes, and every one is a latch participant's.
func (in ParentInfo) Latch() bool {
	q := ordering.Order(in.Children)
	if len(q.Entries) == 0 {
		return false
	}
	for _, e := range q.Entries {
		if !e.Latch {
			return false
		}
	}
	return true
}
