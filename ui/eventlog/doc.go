// Package eventlog is the console's bottom pane: what happened, the
// newest last, in a ring of fixed size (eventlog.go).
//
// Log is a child model in Bubbles' shape: Update(msg) scrolls it with
// the navigation keys and the wheel; View draws it in the size, border
// and clock the root gives it (draw.Pane). The root adds entries: the
// changes zkview reports (AddChange), the operator's own steps (Add,
// AddFirst), the presenter's and the failures; each Entry's Kind picks
// its style. Entries are placed by time, so two feeds that report one
// moment a little apart read in order.
//
// Every path and text from ZooKeeper is sanitized (draw.Clean) before it
// is kept. eventlog imports draw, never the root ui.
package eventlog
