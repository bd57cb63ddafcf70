package queue

import (
	"time"

	"github.com/zklock/zklock/model"
)

// ServerView is one poll of what every member knows (memberview: the
// AdminServer or the four-letter words). Each member knows only its own
// connections and watches, so the answers are merged.
type ServerView struct {
	Start, At time.Time // the poll began, ended
	// OK: every member told its connections and watches, through one
	// source or the other.
	OK bool
	// Health is what the members know of each session's liveness.
	Health   map[int64]model.Health
	Clients  map[int64]string          // session -> client ip:port
	Known    map[int64]bool            // sessions whose watches are known
	Watches  map[int64]map[string]bool // session -> server paths watched
	Watchers map[string][]int64        // server path -> sessions watching
	Self     int64                     // the Watcher's own session: not a contender
}
