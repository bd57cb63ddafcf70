// Kazoo's semaphore protocol (Kazoo 2.8 recipe/lock.py Semaphore): the
// lock at <path>-__lock__ admits one contender, max_leases is the parent's
// data, a lease is an ephemeral child named by a uuid4 hex.

package lockops

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

// takeKazoo: Kazoo's _get_lease loop under the admission lock.
func (m *Semaphore) takeKazoo(ctx context.Context, plan semPlan, admit, lease *Lock, gen uint64, wait bool) (*Lock, tenure, bool, error) {
	watch := false // the first listing sets no watch: most find a free lease
	for {
		kids, ch, err := m.listDir(ctx, m.abs, gen, watch)
		if err != nil {
			return nil, tenure{}, false, err
		}
		if len(kids) < plan.limit {
			c, err := m.createKazooLease(ctx, gen)
			if err != nil {
				return nil, tenure{}, false, err
			}
			lease.mu.Lock()
			lease.node = c.node
			lease.mu.Unlock()
			return lease, tenure{created: c}, true, nil
		}
		if !wait {
			return nil, tenure{}, false, nil
		}
		if ch == nil {
			watch = true
			continue
		}
		queued := ordering.Progress{State: ordering.LockQueued, Node: admit.Node(), Position: 1, Watching: plan.leaseDir}
		m.report(queued)
		if err := m.waitChildren(ctx, gen, ch, queued); err != nil {
			return nil, tenure{}, false, err
		}
	}
}

// createKazooLease creates the lease P/<uuid4 hex>: ephemeral, with the
// identifier as data. A lost reply is settled by looking for the node and
// its owner; a create given up on (ctx ended) is finished in the
// background and its node deleted.
func (m *Semaphore) createKazooLease(ctx context.Context, gen uint64) (created, error) {
	name, err := randomHex()
	if err != nil {
		return created{}, err
	}
	abs := m.abs + "/" + name
	for {
		g, err := m.s.waitConnected(ctx)
		if err != nil {
			return created{}, err
		}
		if g != gen {
			return created{}, errSessionGone
		}
		res := make(chan createResult, 1)
		go func() {
			_, st, err := m.s.conn.Create2(abs, m.cfg.data, zk.FlagEphemeral, m.cfg.acl)
			res <- createResult{stat: st, err: err}
		}()
		var r createResult
		select {
		case r = <-res:
			err = r.err
		case <-ctx.Done():
			go func() {
				if r := <-res; r.err == nil || ConnLoss(r.err) {
					_ = deleteOwned(m.s, abs, gen)
				}
			}()
			return created{}, ctx.Err()
		}
		switch {
		case err == nil:
			return created{node: name, abs: abs, prefix: name, gen: gen, czxid: r.stat.Czxid}, nil
		case errors.Is(err, zk.ErrSessionExpired):
			return created{}, errSessionGone
		case errors.Is(err, zk.ErrClosing):
			return created{}, ErrSessionClosed
		case ConnLoss(err), errors.Is(err, zk.ErrNodeExists):
			// Made before the link dropped, or not: the owner tells.
			st, err := retry(ctx, m.s, func() (*zk.Stat, error) {
				ok, st, err := m.s.conn.Exists(abs)
				if err != nil || !ok {
					return nil, err
				}
				return st, nil
			})
			if err != nil {
				return created{}, fmt.Errorf("look for own lease %s: %w", abs, err)
			}
			if m.s.Generation() != gen {
				return created{}, errSessionGone
			}
			if st != nil {
				if st.EphemeralOwner == m.s.ID() {
					// The answer was lost: the stat read here is the
					// node's own (its name is fresh), czxid included.
					return created{node: name, abs: abs, prefix: name, gen: gen, czxid: st.Czxid}, nil
				}
				return created{}, fmt.Errorf("create %s: taken by session 0x%x", abs, st.EphemeralOwner)
			}
		default:
			return created{}, fmt.Errorf("create %s: %w", abs, err)
		}
	}
}

func kazooSigns(leases []string, numeric, sibling bool) string {
	var s []string
	if numeric {
		s = append(s, "max_leases data")
	}
	if sibling {
		s = append(s, "lock sibling "+kazooLockSuffix)
	}
	if len(leases) > 0 {
		s = append(s, fmt.Sprintf("%d lease node(s)", len(leases)))
	}
	return strings.Join(s, ", ")
}

// parseMaxLeases reads Kazoo's max_leases: a decimal number, as Python's
// int() of the decoded data.
func parseMaxLeases(data []byte) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	return n, err == nil
}

// makeKazooParent creates the semaphore's parent with the limit as its
// data (Kazoo makes it, then sets the data; one create is the same end
// without the moment of an empty parent); false if it exists already.
func (m *Semaphore) makeKazooParent(ctx context.Context) (bool, error) {
	if err := m.s.makePath(ctx, path.Dir(m.abs), m.cfg.acl); err != nil {
		return false, err
	}
	_, err := retry(ctx, m.s, func() (string, error) {
		return m.s.conn.Create(m.abs, []byte(strconv.Itoa(m.cfg.limit)), 0, m.cfg.acl)
	})
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, zk.ErrNodeExists):
		return false, nil
	}
	return false, fmt.Errorf("create %s: %w", m.path, err)
}
