// Package ui is the Bubble Tea console: the root model, its widgets (lock
// list, queue, sessions pane, event log, header, status bar, dialogs) and
// their key maps.
//
// Only Model implements tea.Model; widgets are plain structs the root
// updates and draws. View is pure: the clock arrives as a tick message and
// the size as a WindowSizeMsg. Snapshots and the operator's own lock states
// are pumped in from channels; actions go out through a Backend, called
// only from tea.Cmds. Every name, path, datum and error that came from
// ZooKeeper is drawn through model.SanitizeString.
//
// ui renders zkview snapshots and asks for actions through callbacks; it
// never holds a ZooKeeper connection and never imports the zk client.
package ui
