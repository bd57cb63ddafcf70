package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// connecting is the console while its session is being opened
// (Options.Connect): whom it dials, since when, and when it gives up.
// The elapsed time is read from the ticks, never from a clock in View.
type connecting struct {
	servers []string // as the operator gave them, unsanitized
	since   time.Time
	timeout time.Duration
}

// headline is the header's state while connecting, at most w cells:
// "◌ connecting to zk1:2181, zk2:2181… (3s)". A long server list is cut,
// the elapsed time never is.
func (c *connecting) headline(now time.Time, w int) string {
	const lead = "◌ connecting to "
	tail := " (" + draw.Dur(now.Sub(c.since)) + ")"
	room := max(w-ansi.StringWidth(lead)-ansi.StringWidth(tail), 8)
	list := strings.Join(c.servers, ", ")
	servers := draw.Clean(list, 0)
	if ansi.StringWidth(servers)+1 > room {
		servers = draw.Clean(list, room) // ends in "…" once cut
	} else {
		servers += "…"
	}
	return lead + servers + tail
}

// headlineAt is the header's headline at now, at most w cells; nil once
// connected (c is nil).
func (c *connecting) headlineAt(now time.Time) func(w int) string {
	if c == nil {
		return nil
	}
	return func(w int) string { return c.headline(now, w) }
}

// statusLine replaces the own-locks status while connecting: how long it
// has been trying and when it gives up, then the last notice.
func (c *connecting) statusLine(st *themes.Styles, n notice, w int, now time.Time) string {
	text := " Opening a ZooKeeper session: " + draw.Dur(now.Sub(c.since)) + " so far"
	if c.timeout > 0 {
		text += ", giving up after " + draw.Dur(c.timeout)
	}
	segs := append([]draw.Seg{{Text: text + ".", Style: st.Warning}}, noticeSegs(st, n)...)
	return draw.Fit(draw.Line(segs, nil), w)
}
