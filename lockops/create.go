// Protected create: a fresh guid in the name, so that a node made before a
// lost connection is found again by it and never left behind.

package lockops

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

// created is an own node known to exist (or to have existed) in session
// generation gen.
type created struct {
	node    string // name
	abs     string // server path
	prefix  string // name up to the sequence: unique to this create
	gen     uint64
	listing []string // the parent's children just after the create, if read with it
	// czxid is the zxid of the transaction that made the node: its
	// fencing token, from the create's own answer (Create2, or Rejoin's
	// multi).
	czxid int64
	// join is how the node was named (a lock's node; zero for a lease):
	// Rejoin names the next node the same way.
	join joinAs
}

// nodePrefix is the own node's name before the sequence, with a fresh
// guid (Curator's protected-create idea: the guid finds the node again
// after a connection loss during the create). In Curator style a mutex
// joining a read/write queue is named as a write lock, and a write lock
// joining a mutex queue as a mutex: each excludes everyone, as asked, in
// names the queue's clients see.
//
// A Curator LeaderLatch queue (family curator-latch) is joined as a
// participant, "_c_<uuid>-latch-": LeaderLatch sorts by the text after
// "latch-", so it sees no other name.
func nodePrefix(j joinAs, kind ordering.Kind) (string, error) {
	if j.style == ordering.StyleKazoo {
		h, err := randomHex()
		if err != nil {
			return "", err
		}
		if kind == ordering.KindRead {
			return h + "__rlock__", nil
		}
		return h + "__lock__", nil
	}
	uuid, err := randomUUID()
	if err != nil {
		return "", err
	}
	switch {
	case kind == ordering.KindRead:
		return "_c_" + uuid + "-__READ__", nil
	case kind == ordering.KindWrite && j.family != ordering.FamilyCuratorMutex,
		kind == ordering.KindMutex && j.family == ordering.FamilyCuratorRW:
		return "_c_" + uuid + "-__WRIT__", nil
	case j.family == ordering.FamilyCuratorLatch:
		return "_c_" + uuid + "-" + ordering.LatchMarker, nil
	}
	return "_c_" + uuid + "-lock-", nil
}

// ownPrefix is nodePrefix, or a Curator lease's name for a Semaphore's
// lease (WithLimit's internal leaseBase).
func ownPrefix(cfg lockConfig, j joinAs) (string, error) {
	if cfg.leaseBase == "" {
		return nodePrefix(j, cfg.kind)
	}
	uuid, err := randomUUID()
	if err != nil {
		return "", err
	}
	return "_c_" + uuid + "-" + cfg.leaseBase, nil
}

// randomHex is 32 random lower-case hex digits: Python's uuid4().hex, as
// Kazoo names its nodes (version 4 bits set, like Python's).
func randomHex() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return hex.EncodeToString(b[:]), nil
}

// randomUUID is a version 4 UUID as java.util.UUID.randomUUID writes it.
func randomUUID() (string, error) {
	h, err := randomHex()
	if err != nil {
		return "", err
	}
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32], nil
}

// ownName reports whether child is prefix plus a sequence: %010d, which
// is 11 characters once the counter has wrapped negative.
func ownName(child, prefix string) bool {
	if !strings.HasPrefix(child, prefix) {
		return false
	}
	seq := strings.TrimPrefix(child[len(prefix):], "-")
	if len(seq) != 10 {
		return false
	}
	for _, r := range seq {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// lockParent is a lock parent as the protected create and the waiter in
// its queue (watch.go) reach it: the Session and the parent's server path.
// It is all of a Lock they need.
type lockParent struct {
	s   *Session
	abs string
}

type createResult struct {
	path string
	stat *zk.Stat
	err  error
}

// protectedCreate makes the own node of a lock (its options cfg) joining
// p as join. A lost connection leaves the outcome unknown; the node is
// then looked for by its prefix once the link is back, and created again
// (same prefix) only if absent. A cancelled create is finished in the
// background and its node, if any, deleted.
func protectedCreate(ctx context.Context, p lockParent, cfg lockConfig, join joinAs) (created, error) {
	prefix, err := ownPrefix(cfg, join)
	if err != nil {
		return created{}, err
	}
	full := p.abs + "/" + prefix
	for {
		gen, err := p.s.waitConnected(ctx)
		if err != nil {
			return created{}, err
		}
		r, listing, pending, err := sendListed(ctx, p, full, func() createResult {
			p, st, err := p.s.conn.Create2(full, cfg.data, zk.FlagEphemeral|zk.FlagSequence, cfg.acl)
			return createResult{p, st, err}
		})
		if err != nil {
			go p.reapCreate(pending, prefix, gen)
			return created{}, err
		}
		switch {
		case r.err == nil:
			c := created{node: path.Base(r.path), abs: r.path, prefix: prefix, gen: gen, czxid: r.stat.Czxid, join: join}
			if listing != nil {
				c.listing = p.awaitListing(ctx, listing, c)
			}
			return c, nil
		case errors.Is(r.err, zk.ErrNoNode):
			if err := p.s.makePath(ctx, p.abs, cfg.acl); err != nil {
				return created{}, err
			}
		case errors.Is(r.err, zk.ErrSessionExpired), errors.Is(r.err, zk.ErrNoServer):
			// Nothing exists: never sent, or gone with the session.
		case errors.Is(r.err, zk.ErrClosing):
			return created{}, ErrSessionClosed
		case ConnLoss(r.err):
			c, found, err := p.findOwn(ctx, prefix, gen)
			if err == nil && found {
				c.czxid, found, err = readCzxid(ctx, p.s, c.abs, gen)
			}
			if errors.Is(err, errSessionGone) {
				continue
			}
			if err != nil {
				return created{}, err
			}
			if found {
				c.join = join
				return c, nil
			}
		default:
			return created{}, fmt.Errorf("create %s: %w", full, r.err)
		}
	}
}

// sendListed runs send, a write whose packet carries pat, and once its
// bytes are on the wire sends a listing of the lock parent behind it: the
// listing is then answered after the write and shows its outcome (see
// sentWatch), one round trip instead of two. It returns the write's
// answer and where the listing's will arrive (nil when the write was
// answered before it was seen sent). If ctx ends first: ctx's error, and
// the channel the write's answer will still arrive on, so that the caller
// can undo what the write did.
func sendListed[T any](ctx context.Context, p lockParent, pat string, send func() T) (T, <-chan listResult, <-chan T, error) {
	res := make(chan T, 1)
	sent := p.s.lease.sent.expect([]byte(pat))
	go func() { res <- send() }()
	var zero T
	select {
	case <-sent.ch:
		listing := p.listAsync()
		select {
		case r := <-res:
			return r, listing, nil, nil
		case <-ctx.Done():
			return zero, nil, res, ctx.Err()
		}
	case r := <-res:
		p.s.lease.sent.drop(sent)
		return r, nil, nil, nil
	case <-ctx.Done():
		p.s.lease.sent.drop(sent)
		return zero, nil, res, ctx.Err()
	}
}

type listResult struct {
	children []string
	err      error
}

// listAsync sends a listing of the lock parent and returns where its
// answer will arrive.
func (p lockParent) listAsync() <-chan listResult {
	ch := make(chan listResult, 1)
	go func() {
		kids, _, err := p.s.conn.Children(p.abs)
		ch <- listResult{kids, err}
	}()
	return ch
}

// awaitListing is the listing pipelined behind the create of c, if it is
// good to use: answered without error, in c's session, and showing c's
// node. Otherwise nil, and the waiter lists again.
func (p lockParent) awaitListing(ctx context.Context, ch <-chan listResult, c created) []string {
	select {
	case r := <-ch:
		if r.err != nil || p.s.Generation() != c.gen || !slices.Contains(r.children, c.node) {
			return nil
		}
		p.s.pipelined.Add(1)
		return r.children
	case <-ctx.Done():
		return nil
	}
}

// findOwn lists the parent once the link is back and returns the child
// that carries prefix, if session gen still lives.
func (p lockParent) findOwn(ctx context.Context, prefix string, gen uint64) (created, bool, error) {
	children, err := p.list(ctx, gen)
	if errors.Is(err, ErrParentDeleted) {
		return created{}, false, nil
	}
	if err != nil {
		return created{}, false, err
	}
	for _, c := range children {
		if ownName(c, prefix) {
			return created{node: c, abs: p.abs + "/" + c, prefix: prefix, gen: gen}, true, nil
		}
	}
	return created{}, false, nil
}

// readCzxid reads the czxid of a node that session gen made but whose
// create's answer was lost with the link: the only case where the token
// is read after the create. The node is the create's own (its name holds
// the create's fresh guid), and a czxid never changes, so this is the
// value the answer carried. false if the node is gone meanwhile.
func readCzxid(ctx context.Context, s *Session, abs string, gen uint64) (int64, bool, error) {
	st, err := retry(ctx, s, func() (*zk.Stat, error) {
		ok, st, err := s.conn.Exists(abs)
		if err != nil || !ok {
			return nil, err
		}
		return st, nil
	})
	switch {
	case s.Generation() != gen, errors.Is(err, zk.ErrSessionExpired):
		return 0, false, errSessionGone
	case err != nil:
		return 0, false, fmt.Errorf("read own node %s: %w", abs, err)
	case st == nil:
		return 0, false, nil
	}
	return st.Czxid, true, nil
}

// reapCreate waits for a create its caller gave up on and deletes the
// node it made, if any, so that a cancelled Acquire leaves no orphan.
// It ends with the session at the latest.
func (p lockParent) reapCreate(res <-chan createResult, prefix string, gen uint64) {
	r := <-res
	switch {
	case r.err == nil:
		_ = deleteOwned(p.s, r.path, gen)
	case ConnLoss(r.err):
		if c, found, err := p.findOwn(context.Background(), prefix, gen); err == nil && found {
			_ = deleteOwned(p.s, c.abs, gen)
		}
	}
}

// list lists the lock parent in session generation gen: errSessionGone
// if that session ended.
func (p lockParent) list(ctx context.Context, gen uint64) ([]string, error) {
	children, err := retry(ctx, p.s, func() ([]string, error) {
		c, _, err := p.s.conn.Children(p.abs)
		return c, err
	})
	if p.s.Generation() != gen || errors.Is(err, zk.ErrSessionExpired) {
		return nil, errSessionGone
	}
	if errors.Is(err, zk.ErrNoNode) {
		return nil, fmt.Errorf("%w: %s", ErrParentDeleted, p.abs)
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", p.abs, err)
	}
	return children, nil
}
