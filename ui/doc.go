// Package ui is the Bubble Tea console: the root model, its widgets (lock
// list, queue, sessions pane, event log, header, status bar, dialogs) and
// their key maps.
//
// Only Model implements tea.Model (model.go; its actions in actions.go).
// Each pane is a child model in its own file with Update(msg) and View()
// (locklist.go, queue.go, eventlog.go, sessions.go; a queue row's cells
// in queuecells.go): the root gives them their size, clock and border
// (pane.go), handles global keys and hands the rest to the focused pane.
// Tables size each column from what the rows on screen hold
// (layoutColumns, render.go), and the border between the list and the
// queue moves to give a table cut short what the other leaves blank
// (Model.splitWidth). Dialogs have update and view of their own
// (dialog.go, forcedialog.go, sessiondialog.go, askdialog.go,
// helpdialog.go; typedconfirm.go is the typed confirmation they share). View is pure: the clock arrives as a tick message and
// the size as a WindowSizeMsg. Snapshots and the operator's own lock states
// are pumped in from channels; actions go out through a Backend, called
// only from tea.Cmds. Every name, path, datum and error that came from
// ZooKeeper is drawn through model.SanitizeString.
//
// ui renders zkview snapshots and asks for actions through callbacks; it
// never holds a ZooKeeper connection and never imports the zk client.
package ui
