// Functional options of NewLock.

package lockops

import "github.com/go-zookeeper/zk"

type lockConfig struct {
	kind       Kind
	data       []byte
	dataSet    bool
	note       string
	style      Style
	styleSet   bool
	allowMixed bool
	revocable  bool
	progress   func(Progress)
	acl        []zk.ACL
}

// Option configures a Lock.
type Option func(*lockConfig)

// WithKind asks for a mutex (default), read or write lock.
func WithKind(k Kind) Option { return func(c *lockConfig) { c.kind = k } }

// WithData sets the own node's data (default: who, see WithNote).
func WithData(b []byte) Option {
	return func(c *lockConfig) { c.data, c.dataSet = append([]byte(nil), b...), true }
}

// WithNote appends a note to the default data "user@host pid N".
func WithNote(note string) Option { return func(c *lockConfig) { c.note = note } }

// WithStyle forces the node naming style instead of following the queue.
// Joining a queue of the other style is still refused as mixed unless
// WithAllowMixed.
func WithStyle(s Style) Option { return func(c *lockConfig) { c.style, c.styleSet = s, true } }

// WithAllowMixed joins a queue of recipes that cannot see each other
// anyway. The lock then orders itself by sequence correctly, but the other
// recipes' clients may still not see it: two holders are possible.
func WithAllowMixed() Option { return func(c *lockConfig) { c.allowMixed = true } }

// WithRevocable honours Curator's revocation protocol: when someone sets
// the held node's data to "__REVOKE__" (Revoke), the lock deletes its node
// and Done() closes with ErrRevoked. Costs one request per acquisition
// (the own node is watched from the start of the hold).
func WithRevocable() Option { return func(c *lockConfig) { c.revocable = true } }

// WithProgress receives every state change. It is called on the Lock's
// goroutines and must not block.
func WithProgress(f func(Progress)) Option { return func(c *lockConfig) { c.progress = f } }

// WithACL sets the ACL of the own node and of lock parents created on the
// way (default: open to all, as Curator and Kazoo do).
func WithACL(acl []zk.ACL) Option { return func(c *lockConfig) { c.acl = acl } }
