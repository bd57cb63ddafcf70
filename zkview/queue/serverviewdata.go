package queue

import "time"

// ServerView is one poll of every member's `cons` and `wchc`. Each member
// knows only its own connections and watches, so the answers are merged.
type ServerView struct {
	Start, At time.Time // the poll began, ended
	// OK: at least one member answered both words and none refused them.
	OK       bool
	Clients  map[int64]string          // session -> client ip:port
	Known    map[int64]bool            // sessions whose watches are known
	Watches  map[int64]map[string]bool // session -> server paths watched
	Watchers map[string][]int64        // server path -> sessions watching
	Self     int64                     // the Watcher's own session: not a contender
}
