// Package sessionspane is the console's sessions view (key w): the
// cycles of waits over sessions, then every session that owns a node in
// the watched queues, the one blocking most first, and below the table
// the selected row spelled out.
//
// Pane (sessions.go) is a child model in Bubbles' shape: Update(msg)
// moves its cursor with the navigation keys, the wheel and a click;
// View draws the table box over the detail box in the size, border and
// clock the root gives it (draw.Pane). Set builds the table from a
// snapshot (sessions.SessionsOf), once per snapshot, never per frame.
// DeadlockBanner is the line the root shows above its body while a
// snapshot holds a cycle of waits.
//
// Every name, path and client from ZooKeeper is drawn through
// draw.Clean. sessionspane imports draw, never the root ui.
package sessionspane
