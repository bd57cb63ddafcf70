package peers

import (
	"context"
	"fmt"
	"time"
)

// PeerEventType says what a PeerEvent reports.
type PeerEventType int

const (
	// EventSession: a client has a session (at start, and a new one after
	// its old one was lost).
	EventSession PeerEventType = iota + 1
	// EventState: a client's connection changed state.
	EventState
	// EventLost: a client holding a lock learned that its session is gone,
	// and the lock with it.
	EventLost
	// EventClosed: a client's session was closed by CloseSession.
	EventClosed
)

func (t PeerEventType) String() string {
	switch t {
	case EventSession:
		return "session"
	case EventState:
		return "state"
	case EventLost:
		return "lost"
	case EventClosed:
		return "closed"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// ConnState is a client's connection state, in Curator's words, which
// Kazoo's states map onto one for one.
type ConnState string

const (
	// StateSuspended: the connection is down; the session may live on
	// (Curator SUSPENDED, Kazoo SUSPENDED). A careful holder stops trusting
	// its lock here.
	StateSuspended ConnState = "SUSPENDED"
	// StateLost: the session is gone, with every lock it held (Curator
	// LOST, which Curator also reports when the connection stays down for
	// the session timeout; Kazoo LOST, reported once the servers say the
	// session expired).
	StateLost ConnState = "LOST"
	// StateReconnected: connected again after SUSPENDED or LOST (Curator
	// RECONNECTED, Kazoo CONNECTED); a new session is announced by an
	// EventSession before it.
	StateReconnected ConnState = "RECONNECTED"
)

// PeerEvent is something a client learned (named so that Event, in
// zklock, is go-zookeeper's zk.Event alone; the console's happenings are
// model.Change).
type PeerEvent struct {
	Type    PeerEventType
	Client  int
	Session int64     // EventSession: the client's session id
	State   ConnState // EventState
	Hold    *Hold     // EventLost: the request whose lock was lost
	// Time is the driver's clock when it learned it (EventState, EventLost)
	// or when the line reached Go (EventSession, EventClosed).
	Time time.Time
}

// Events returns every event so far, in the order the driver reported them.
func (p *Proc) Events() []PeerEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]PeerEvent(nil), p.events...)
}

// WaitEvent returns the first event, past or future, that match accepts.
// It fails when ctx ends or the driver exits first.
func (p *Proc) WaitEvent(ctx context.Context, match func(PeerEvent) bool) (PeerEvent, error) {
	return p.waitEventFrom(ctx, 0, match)
}

func (p *Proc) eventCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.events)
}

func (p *Proc) waitEventFrom(ctx context.Context, from int, match func(PeerEvent) bool) (PeerEvent, error) {
	for {
		p.mu.Lock()
		evs, changed := p.events[from:], p.changed
		p.mu.Unlock()
		for _, e := range evs {
			if match(e) {
				return e, nil
			}
		}
		from += len(evs)
		select {
		case <-changed:
		case <-p.exited:
			// Events of the last lines are in; look once more, then give up.
			p.mu.Lock()
			evs = p.events[from:]
			p.mu.Unlock()
			for _, e := range evs {
				if match(e) {
					return e, nil
				}
			}
			return PeerEvent{}, p.exitErr()
		case <-ctx.Done():
			return PeerEvent{}, fmt.Errorf("peers: %s driver: waiting for an event: %w", p.kind, ctx.Err())
		}
	}
}

func (p *Proc) addEventLocked(e PeerEvent) {
	p.events = append(p.events, e)
	p.broadcastLocked()
}

func (p *Proc) broadcastLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}
