// SASL: the option that authenticates every connection of a Session.

package lockops

import (
	"fmt"

	"github.com/zklock/zklock/third_party/zk"
)

// WithSASL authenticates every connection by SASL with m (package sasl
// has DIGEST-MD5 and GSSAPI), as ZooKeeper's Java client does: after each
// connect handshake, so after every reconnect and every new session, before
// any other request. The Session counts as connected only once the
// exchange has succeeded. A refusal ends the Session for good: Connect
// returns the *zk.SASLError (errors.Is zk.ErrSASL), and so do later
// requests.
func WithSASL(m zk.SASLMechanism) SessionOption {
	return func(c *sessionConfig) { c.sasl = m }
}

// closedErr is why the Session closed: the authentication failure that
// ended it, or ErrSessionClosed.
func (s *Session) closedErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.authErr != nil {
		return fmt.Errorf("%w: %w", ErrSessionClosed, s.authErr)
	}
	return ErrSessionClosed
}
