// Package locklist is the console's left pane: every watched lock
// parent, one row each, sortable, filterable and held in place while
// the operator moves through it.
//
// List (locklist.go) is a child model in Bubbles' shape: Update(msg)
// handles the list's keys (Keys), the filter's editing and the mouse;
// View draws the pane in the border the root gives it (draw.Pane), with
// the clock from there, never from time.Now. Rebuild takes in a
// snapshot, the configured paths and the operator's own locks;
// MarkSession and the deadlock flags overlay what the root knows beside
// the queues. lockrow.go summarises one lock parent for its row;
// listorder.go holds the orders and the filter, sized for 100,000
// parents (one sort of integer keys per snapshot, a filter that narrows
// looks only at the rows it showed).
//
// Every name from ZooKeeper is drawn through draw.Clean. locklist
// imports draw, never the root ui.
package locklist
