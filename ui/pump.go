package ui

import (
	"errors"
	"time"

	"github.com/zklock/zklock/model"

	tea "github.com/charmbracelet/bubbletea"
)

// Messages from commands back to Update.
type (
	updateMsg        struct{ model.Update }
	updatesClosedMsg struct{}
	ownMsg           struct{ locks []OwnLock }
	ownClosedMsg     struct{}
	tickMsg          time.Time
	connectedMsg     struct{ Connected }
	actionMsg        struct {
		verb, path, node string
		err              error
		at               time.Time // when the answer came (Options.Now)
	}
)

// maxCoalesce bounds how many queued items one pump message gathers, so a
// flood cannot starve key handling.
const maxCoalesce = 256

// tick delivers the clock once a second; View shows ages from it.
func tick(now func() time.Time) tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg(now()) })
}

// errNoConnection is a Connect channel closed with nothing on it.
var errNoConnection = errors.New("ui: connect channel closed without an outcome")

// waitConnected waits for the outcome of opening the session
// (Options.Connect); only one arrives, so it is not re-armed.
func waitConnected(ch <-chan Connected) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		c, ok := <-ch
		if !ok {
			c.Err = errNoConnection
		}
		return connectedMsg{c}
	}
}

// waitUpdate waits for the next update from zkview and gathers any that
// are already queued behind it: only the newest snapshot matters, events
// are kept in order. Update re-arms it after each message (the Bubble Tea
// "realtime" pattern).
func waitUpdate(ch <-chan model.Update) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		u, ok := <-ch
		if !ok {
			return updatesClosedMsg{}
		}
		for range maxCoalesce {
			select {
			case next, ok := <-ch:
				if !ok {
					// Deliver what we have; the next wait sees the close.
					return updateMsg{u}
				}
				u.Merge(next)
			default:
				return updateMsg{u}
			}
		}
		return updateMsg{u}
	}
}

// waitOwn waits for the next own-lock progress report, gathering any
// already queued (in order: each is applied).
func waitOwn(ch <-chan OwnLock) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		o, ok := <-ch
		if !ok {
			return ownClosedMsg{}
		}
		locks := []OwnLock{o}
		for range maxCoalesce {
			select {
			case next, ok := <-ch:
				if !ok {
					return ownMsg{locks}
				}
				locks = append(locks, next)
			default:
				return ownMsg{locks}
			}
		}
		return ownMsg{locks}
	}
}
