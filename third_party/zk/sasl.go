package zk

// zklock patch: this file is zklock's own (PATCHES.md, patch 4): the SASL
// exchange of ZooKeeper's Java client (ZooKeeperSaslClient), run on every
// new connection after the connect handshake and before any other request.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
)

// saslMaxSteps bounds one exchange: DIGEST-MD5 takes 3 round trips and
// GSSAPI 3 or 4, so a server that keeps challenging is broken, not slow.
const saslMaxSteps = 10

// ErrSASL is wrapped by every *SASLError: the connection failed to
// authenticate by SASL and has ended for good (StateAuthFailed).
var ErrSASL = errors.New("zk: SASL authentication failed")

// SASLMechanism is the client side of one SASL mechanism (DIGEST-MD5,
// GSSAPI). zk knows only the exchange of tokens; the mechanisms live
// outside this copy.
type SASLMechanism interface {
	// Name returns the mechanism's SASL name, such as "DIGEST-MD5".
	Name() string
	// Start begins one exchange on a new connection to server (the
	// host:port dialled, as Conn.Server reports it) that reached remote
	// (the address connected to; GSSAPI names the server by it, as the
	// Java client's SaslServerPrincipal does). ctx ends with the
	// connection: it bounds what Start looks up (DNS, the KDC).
	Start(ctx context.Context, server string, remote net.Addr) (SASLExchange, error)
}

// SASLExchange is one run of a mechanism on one connection.
type SASLExchange interface {
	// Step takes the server's last token (nil before the first step) and
	// returns the next token to send; nil with Complete() true means
	// nothing more to send.
	Step(challenge []byte) ([]byte, error)
	// Complete reports whether the client side has finished.
	Complete() bool
}

// SASLError says why a SASL exchange failed: the server refused it
// (Err is ErrAuthFailed), the server requires SASL and the client sent
// none (ErrSASLRequired), or the mechanism failed on the client side.
type SASLError struct {
	Mechanism string // "" when the client had no mechanism (ErrSASLRequired)
	Server    string
	Err       error
}

// Error returns the failure in one line.
func (e *SASLError) Error() string {
	if e.Mechanism == "" {
		return fmt.Sprintf("zk: %s: %v", e.Server, e.Err)
	}
	return fmt.Sprintf("zk: SASL %s with %s: %v", e.Mechanism, e.Server, e.Err)
}

// Unwrap returns ErrSASL and the cause, for errors.Is.
func (e *SASLError) Unwrap() []error { return []error{ErrSASL, e.Err} }

// WithSASL makes every connection authenticate by SASL with m before it
// sends anything else: after each connect handshake, so again after a
// reconnect to the same session and after a new session. Success is
// announced by an EventSession with StateSaslAuthenticated (State() stays
// StateHasSession). A failure ends the connection for good, as the Java
// client does: an EventSession with StateAuthFailed carrying a *SASLError,
// pending and later requests fail with it, and the event channel closes.
func WithSASL(m SASLMechanism) connOption {
	return func(c *Conn) { c.sasl = m }
}

// saslAuthenticate runs the exchange on the current connection. It runs on
// the send goroutine before the send loop starts, so nothing else can go
// out first; the receive loop delivers the replies. An error means the
// connection is unusable; failAuth has been called when it is final.
func (c *Conn) saslAuthenticate(ctx context.Context) error {
	if c.sasl == nil {
		return nil
	}
	server := c.Server()
	ex, err := c.sasl.Start(ctx, server, c.conn.RemoteAddr())
	if err != nil {
		return c.failAuth(err)
	}
	token, err := ex.Step(nil)
	if err != nil {
		return c.failAuth(err)
	}
	for range saslMaxSteps {
		reply, err := c.saslRoundTrip(ctx, token)
		if err != nil {
			// A server that requires SASL answers a refused exchange with
			// SESSIONCLOSEDREQUIRESASLAUTH, one that merely offers it with
			// AUTHFAILED (ZooKeeperServer.processSasl): both mean refused.
			if errors.Is(err, ErrAuthFailed) || errors.Is(err, ErrSASLRequired) {
				return c.failAuth(ErrAuthFailed)
			}
			return err // the link went: the next connection tries again
		}
		if ex.Complete() {
			break
		}
		if token, err = ex.Step(reply); err != nil {
			return c.failAuth(err)
		}
		if token == nil && ex.Complete() {
			break
		}
	}
	if !ex.Complete() {
		return c.failAuth(fmt.Errorf("no end after %d steps", saslMaxSteps))
	}
	c.sendEvent(Event{Type: EventSession, State: StateSaslAuthenticated, Server: server})
	return nil
}

// saslRoundTrip sends one token and waits for the server's.
func (c *Conn) saslRoundTrip(ctx context.Context, token []byte) ([]byte, error) {
	if token == nil {
		token = []byte{} // jute writes nil as length -1; the server wants a buffer
	}
	res := &saslResponse{}
	ch, err := c.sendRequest(opSasl, &getSaslRequest{Token: token}, res, nil)
	if err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return res.Token, nil
	case <-c.closeChan:
		return nil, ErrConnectionClosed
	case <-c.shouldQuit:
		return nil, ErrClosing
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// failAuth records the first authentication failure and closes the link;
// the loop then ends the connection (endOnAuthFailure).
func (c *Conn) failAuth(cause error) error {
	name := ""
	if c.sasl != nil {
		name = c.sasl.Name()
	}
	err := &SASLError{Mechanism: name, Server: c.Server(), Err: cause}
	c.authMu.Lock()
	if c.authErr == nil {
		c.authErr = err
	}
	c.authMu.Unlock()
	if c.conn != nil {
		c.conn.Close()
	}
	return err
}

// authFailure returns the failure that ended the connection, or nil.
func (c *Conn) authFailure() error {
	c.authMu.Lock()
	defer c.authMu.Unlock()
	return c.authErr
}

// closedErr is what a request on a closed connection gets: the
// authentication failure that closed it, or ErrConnectionClosed.
func (c *Conn) closedErr() error {
	if err := c.authFailure(); err != nil {
		return err
	}
	return ErrConnectionClosed
}

// endOnAuthFailure ends the connection after an authentication failure
// instead of reconnecting: retrying with the same credentials would fail
// the same way, every second, forever. It reports whether it did.
func (c *Conn) endOnAuthFailure() bool {
	err := c.authFailure()
	if err == nil {
		return false
	}
	c.shouldQuitOnce.Do(func() { close(c.shouldQuit) })
	c.flushRequests(err)
	c.flushUnsentRequests(err)
	// setState, with the event's Err set.
	atomic.StoreInt32((*int32)(&c.state), int32(StateAuthFailed))
	c.sendEvent(Event{Type: EventSession, State: StateAuthFailed, Server: c.Server(), Err: err})
	return true
}
