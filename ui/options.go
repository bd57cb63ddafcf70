package ui

import (
	"context"
	"io"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
)

// Backend carries out the operator's actions. The console calls it only
// from tea.Cmds, never from Update or View, and shows the error it returns.
// Implementations must honour ctx: the console bounds every call.
type Backend interface {
	// Take starts acquiring path; it returns once the own node is queued
	// (or the attempt failed). Progress arrives on Options.Own.
	Take(ctx context.Context, path string, kind ordering.Kind) error
	// Release gives up the operator's lock on path, held or still queued.
	Release(ctx context.Context, path string) error
	// Revoke asks the holder of node to let go (Curator's revocation).
	Revoke(ctx context.Context, path, node string) error
	// ForceRelease deletes node if its owner is still session.
	ForceRelease(ctx context.Context, path, node string, session int64) error
}

// OwnState is where one of the operator's own locks stands.
type OwnState int

const (
	OwnQueued    OwnState = iota // node created, waiting in line
	OwnHolding                   // holds the lock
	OwnSuspended                 // connection lost: may still hold, may not
	OwnLost                      // session expired or node deleted: no longer held
	OwnReleased                  // given up by the operator
)

func (s OwnState) String() string {
	switch s {
	case OwnHolding:
		return "holding"
	case OwnSuspended:
		return "suspended"
	case OwnLost:
		return "lost"
	case OwnReleased:
		return "released"
	}
	return "queued"
}

// OwnLock is the progress of one of the operator's locks, as the lock core
// reports it.
type OwnLock struct {
	Path     string
	Node     string // own node name, "" until created
	State    OwnState
	Position int    // 1-based place in the queue while queued
	Watching string // node name waited on while queued
	Since    time.Time
	Err      string // why the lock was lost or the attempt failed
}

// Demo lets a presenter drive the demo's contenders from the console
// (`zklock demo`, keys p, space, x and S). The console calls it only from
// tea.Cmds, bounded by a timeout; each call returns a short sentence for
// the event log and the status bar, or an error.
type Demo interface {
	// Pause freezes the contenders (holders keep holding, nobody joins or
	// leaves a queue) or, when already paused, lets them run again.
	Pause(ctx context.Context) (string, error)
	// Step lets exactly one handoff happen, pausing the contenders first
	// if they were running: the console counts the contenders paused
	// after any successful Step.
	Step(ctx context.Context) (string, error)
	// Kill ends the session of the client holding path without a
	// release, so its ephemeral node vanishes with the session.
	Kill(ctx context.Context, path string) (string, error)
	// Split makes a Kazoo-style client join path while a Curator-style
	// client holds it: a split-holders queue.
	Split(ctx context.Context, path string) (string, error)
}

// Options configures the console.
type Options struct {
	Theme    themes.Theme
	ReadOnly bool // no take, release, revoke or force: keys and help hide them
	Backend  Backend
	Updates  <-chan model.Update // snapshots and events from zkview
	// Recorder starts and stops a recording of what the console shows
	// (zklock record's file, for zklock replay) from a key; nil: no key.
	Recorder Recorder
	Own      <-chan OwnLock // the operator's own locks, from the lock core
	Paths    []string       // watched lock parents, listed before the first snapshot
	// Roots are the roots lock parents are found below (--root): until
	// a snapshot lists some, the lock list says it looks there.
	Roots []string
	// Snapshot, when not nil, is the first frame's picture (a replay's
	// first update); else the first frame waits for Updates.
	Snapshot *model.Snapshot
	Title    string // header title; "zklock" when empty
	// Demo, when not nil, adds the presenter's keys (the demo).
	Demo Demo
	// Narration starts with the narration line shown (the demo).
	Narration bool
	// Replay, when not nil, adds the timeline's keys of a replay
	// (zklock replay, replay.go); the console is then read-only.
	Replay Timeline
	// Now is the clock for tick commands (and the first frame); View never
	// reads a clock. time.Now when nil.
	Now func() time.Time

	// Connect, when not nil, starts the console before its session is
	// open: header and status bar say "connecting to" Servers and for how
	// long, until one Connected arrives on it. Its feeds then replace
	// Backend, Updates, Own and Recorder. Its Err ends the console at
	// once, Run returning without it: the caller, which made the error,
	// reports it once the terminal is restored.
	Connect <-chan Connected
	// Servers is the ensemble being dialled, as the operator gave it.
	Servers []string
	// ConnectTimeout is when the connecting gives up (0: not said).
	ConnectTimeout time.Duration
	// Identity is whom the session authenticates as, said in the header
	// beside the TLS marker ("sasl alice", "sasl alice@EXAMPLE.COM");
	// empty: nothing said. The caller, which holds the connection's
	// settings, words it; ui only shows it (sanitized).
	Identity string

	// Output is the terminal the program draws on, os.Stdout when nil: y
	// writes its OSC 52 clipboard sequence there.
	Output io.Writer
}

// Connected is the outcome of opening the session (Options.Connect): the
// live console's feeds, or why there are none.
type Connected struct {
	Backend  Backend // nil: read-only
	Updates  <-chan model.Update
	Own      <-chan OwnLock
	Recorder Recorder // nil: no recording key
	Err      error
}

// OwnFromProgress turns the lock core's report on the lock at p into
// the console's; states before the first create read as released.
func OwnFromProgress(p string, pr ordering.Progress) OwnLock {
	o := OwnLock{Path: p, Node: pr.Node, Position: pr.Position, Watching: pr.Watching, Since: pr.At}
	switch pr.State {
	case ordering.LockQueued:
		o.State = OwnQueued
	case ordering.LockHolding:
		o.State = OwnHolding
	case ordering.LockSuspended:
		o.State = OwnSuspended
	case ordering.LockLost:
		o.State = OwnLost
	default:
		o.State = OwnReleased
	}
	if pr.Err != nil {
		o.Err = pr.Err.Error()
	}
	return o
}

// Recorder records what the console shows: the command layer tees the live
// model's updates into a file while one runs. Both calls may do I/O: the
// console runs them in commands.
type Recorder interface {
	// Start begins a recording and names its file.
	Start() (file string, err error)
	// Stop ends it and says how many updates it holds.
	Stop() (updates int, err error)
}
