// Functional options of NewLock and NewSemaphore.

package lockops

import (
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/third_party/zk"
)

type lockConfig struct {
	kind       ordering.Kind
	data       []byte
	dataSet    bool
	note       string
	style      ordering.Style
	styleSet   bool
	allowMixed bool
	revocable  bool
	progress   func(ordering.Progress)
	acl        []zk.ACL
	latch      bool
	limit      int
	// leaseBase names the own node as a Curator lease ("_c_<uuid>-" +
	// leaseBase + seq) instead of a lock node: set by Semaphore only.
	leaseBase string
}

// Option configures a Lock or a Semaphore. Each option says which it
// applies to; the others refuse it (Acquire then fails, saying why).
type Option func(*lockConfig)

// WithKind asks for a mutex (default), read or write lock. Lock only.
func WithKind(k ordering.Kind) Option { return func(c *lockConfig) { c.kind = k } }

// WithData sets the own node's data (default: who, see WithNote).
func WithData(b []byte) Option {
	return func(c *lockConfig) { c.data, c.dataSet = append([]byte(nil), b...), true }
}

// WithNote appends a note to the default data "user@host pid N".
func WithNote(note string) Option { return func(c *lockConfig) { c.note = note } }

// WithStyle forces the node naming style instead of following the queue.
// Joining a queue of the other style is still refused as mixed unless
// WithAllowMixed. For a Semaphore it forces the protocol (Curator's
// InterProcessSemaphoreV2 or Kazoo's Semaphore) instead of the one the
// parent shows.
func WithStyle(s ordering.Style) Option { return func(c *lockConfig) { c.style, c.styleSet = s, true } }

// WithAllowMixed joins a queue of recipes that cannot see each other
// anyway. The lock then orders itself by sequence correctly, but the other
// recipes' clients may still not see it: two holders are possible.
func WithAllowMixed() Option { return func(c *lockConfig) { c.allowMixed = true } }

// WithRevocable (Lock only) honours Curator's revocation protocol: when someone sets
// the held node's data to "__REVOKE__" (Revoke), the lock deletes its node
// and Done() closes with ErrRevoked. Costs one request per acquisition
// (the own node is watched from the start of the hold).
func WithRevocable() Option { return func(c *lockConfig) { c.revocable = true } }

// WithProgress receives every state change. It is called on the Lock's
// (or Semaphore's) goroutines and must not block.
func WithProgress(f func(ordering.Progress)) Option { return func(c *lockConfig) { c.progress = f } }

// WithACL sets the ACL of the own node and of lock parents created on the
// way (default: open to all, as Curator and Kazoo do).
func WithACL(acl []zk.ACL) Option { return func(c *lockConfig) { c.acl = acl } }

// WithLatch (Lock only) joins the parent as a Curator LeaderLatch
// participant: the own node is named "_c_<uuid>-latch-<seq>", so that
// stock LeaderLatch clients order it among theirs, and holding is leading.
// A Lock joins a parent of latch nodes that way without it; WithLatch
// says so for a parent that is empty, and refuses (as mixed) one that
// holds lock nodes. Curator style only.
func WithLatch() Option { return func(c *lockConfig) { c.latch = true } }

// WithLimit (Semaphore only) is the semaphore's number of leases. Curator
// keeps it in its clients only, so a Curator-style semaphore needs it; a
// Kazoo one reads it from the parent's data, and refuses a WithLimit that
// differs from it, as Kazoo does.
func WithLimit(n int) Option { return func(c *lockConfig) { c.limit = n } }
