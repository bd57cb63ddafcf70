// SASL: the option that authenticates every connection of a Session.

package lockops

import (
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
