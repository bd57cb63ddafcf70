// Package ui is the Bubble Tea console: the root model, its dialogs, its
// status bar and its key maps; the panes are packages of their own under
// ui.
//
// Only Console implements tea.Model (model.go; its actions in actions.go).
// Each pane is a child model in Bubbles' shape, Update(msg) and View(),
// in a package the root imports and that never imports the root: the
// lock list (ui/locklist), the queue (ui/queuepane), the sessions view
// (ui/sessionspane), the event log (ui/eventlog); the header (ui/header)
// and the demo's narration line (ui/narration) are pure views. The root
// gives each pane its size, clock, border and the keys that move a
// cursor (draw.Pane), handles global keys and hands the rest to the
// focused pane. Tables size each column from what the rows on screen
// hold (draw.LayoutColumns), and the border between the list and the
// queue moves to give a table cut short what the other leaves blank
// (Console.splitWidth). Dialogs have update and view of their own
// (dialog.go, forcedialog.go, sessiondialog.go, askdialog.go,
// helpdialog.go; typedconfirm.go is the typed confirmation they share);
// a dialog about nodes follows them through every snapshot and tick
// (follower, dialog.go), so it never offers what is gone. The lock list
// draws a held order, re-sorted on s or after a quiet
// locklist.HoldOrder, so keys act on the rows drawn. The status bar
// reads the own waiter's place from the snapshot (ownlocks.go). View is
// pure: the clock arrives as a tick message and the size as a
// WindowSizeMsg. Snapshots and the operator's own lock states are pumped
// in from channels; actions go out through a Backend, called only from
// tea.Cmds. Every name, path, datum and error that came from ZooKeeper
// is drawn through draw.Clean (model.SanitizeString), the one door the
// package draw (ui/draw) keeps, with the cells, cuts, tables and frame
// every pane shares.
//
// The other files:
//
//   - options.go: Options, Backend (every action, behind one interface),
//     Connected, Recorder; run.go: Run, the program's start and its
//     release of own locks at quit; connecting.go: the console while its
//     session opens.
//   - keys.go: KeyMap, every key of the main view and which mode enables it.
//   - pump.go: the messages from commands back to Update, and the
//     re-arming, coalescing reads of the snapshot and own-lock channels.
//   - statusbar.go: the status line (own locks, the last action's
//     notice) and the footer's keys.
//   - ownlocks.go: the operator's own locks by path, and their state in
//     words.
//   - demo.go: the presenter's keys' outcomes; record.go: the record
//     key; replay.go: a replay's timeline keys; clipboard.go: copying a
//     node path (OSC 52).
//
// ui renders zkview snapshots and asks for actions through callbacks; it
// never holds a ZooKeeper connection and never imports the zk client.
package ui
