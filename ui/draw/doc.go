// Package draw holds what every pane of the console draws with: the one
// door for text from ZooKeeper (Clean, CleanLeft: the sanitizer, cut to
// a width), cells and cuts (Fit, FitRight, Width, Wrap), styled segments
// (Seg, Line, Paint), tables sized from what they hold (Column,
// LayoutColumns, Slack), borders (Box, Blank, SideBySide) and the
// compact times and session ids the panes print (render.go); and what
// the root gives each pane before its Update and View (Pane: styles,
// border, size, clock, focus, the keys that move a cursor) with the
// moves those keys and the mouse make (pane.go).
//
// draw imports no other package of the console: the root ui and its
// pane packages import it, never the other way round.
package draw
