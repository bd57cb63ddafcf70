// Package ui is the Bubble Tea console: the root model, its widgets (lock
// list, queue, sessions pane, event log, header, status bar, dialogs) and
// their key maps.
//
// Only Model implements tea.Model (model.go; its actions in actions.go).
// Each pane is a child model in its own file with Update(msg) and View()
// (locklist.go, queue.go, eventlog.go, sessions.go): the root gives them
// their size, clock and border (pane.go), handles global keys and hands
// the rest to the focused pane. Dialogs have update and view of their own
// (dialog.go, forcedialog.go, sessiondialog.go, askdialog.go,
// helpdialog.go; typedconfirm.go is the typed confirmation they share);
// a dialog about nodes follows them through every snapshot and tick
// (follower, dialog.go), so it never offers what is gone. The lock list
// draws a held order, re-sorted on s or after a quiet holdOrder
// (listorder.go), so keys act on the rows drawn. The status bar reads the
// own waiter's place from the snapshot (ownlocks.go). View is pure: the clock arrives as a tick message and
// the size as a WindowSizeMsg. Snapshots and the operator's own lock states
// are pumped in from channels; actions go out through a Backend, called
// only from tea.Cmds. Every name, path, datum and error that came from
// ZooKeeper is drawn through model.SanitizeString.
//
// ui renders zkview snapshots and asks for actions through callbacks; it
// never holds a ZooKeeper connection and never imports the zk client.
package ui
