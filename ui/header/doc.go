// Package header draws the console's top line (header.go): the title,
// the ensemble and the server the session is on, whose session it is,
// TLS and the identity, whether what is on screen can be trusted
// (connected, connecting, recorded in a replay, or stale since when),
// the watch mode and the clock; and a warning when the newest zxid nears
// its counter's rollover (NewestCzxid).
//
// View is pure: the snapshot, the clock and the width are its
// parameters. Every name from ZooKeeper is drawn through draw.Clean.
// header imports draw, never the root ui.
package header
