package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
)

// coalescingShown: frames this far apart are said to coalesce (zkview
// publishes every few milliseconds while its builds fit its budget, and
// spaces them by ten times the cost of a build once they do not).
const coalescingShown = 100 * time.Millisecond

// headerView is the top bar: which ensemble, whose session, and whether
// what is on screen can be trusted (connected, or stale since when).
// dial, when not nil, is the session being opened: the state says whom it
// dials and for how long. A replay says REPLAY first, and what was
// connected as recorded, never as live.
func headerView(st *themes.Styles, title string, snap *model.Snapshot, dial *connecting, replay bool, w int, now time.Time) string {
	if title == "" {
		title = "zklock"
	}
	var conn model.Conn
	if snap != nil {
		conn = snap.Conn
	}
	type part struct {
		text  string // safe, unstyled
		style lipgloss.Style
		right bool
		flex  bool
	}
	titleP := part{text: " " + clean(title, 24) + " ", style: st.Header.Bold(true)}
	stateP := part{style: st.Verified}
	switch {
	case dial != nil:
		// Room left by the title and the clock, which are kept first.
		room := w - ansi.StringWidth(titleP.text) - 2 - ansi.StringWidth(clock(now)+" ") - 4
		stateP.text, stateP.style = dial.headline(now, room), st.Warning
	case snap == nil || conn.State == model.StateConnecting:
		stateP.text, stateP.style = "◌ connecting…", st.Warning
	case conn.State == model.StateConnected && replay:
		stateP.text, stateP.style = "recorded", st.Header
		if conn.Server != "" {
			stateP.text += " from " + clean(conn.Server, 40)
		}
	case conn.State == model.StateConnected:
		stateP.text = "● connected"
		if conn.Server != "" {
			stateP.text += " to " + clean(conn.Server, 40)
		}
	case conn.State == model.StateDisconnected:
		stateP.text = " ✗ DISCONNECTED since " + clock(conn.Since) + " (" + since(now, conn.Since) + "): data is STALE "
		stateP.style = st.Lost
	case conn.State == model.StateExpired:
		stateP.text, stateP.style = " ✗ SESSION EXPIRED: re-syncing ", st.Lost
	default:
		stateP.text, stateP.style = "○ "+conn.State.String(), st.Muted
	}
	// Which cluster this is matters most at 3 a.m.: the context name is
	// kept before the session; the server list shrinks first.
	ctxP := part{text: clean(conn.Context, 24), style: st.Header.Bold(true)}
	// TLS is said; TLS without hostname verification is warned of.
	tlsP := part{style: st.Header}
	switch {
	case conn.TLS && !conn.HostnameVerified:
		tlsP.text, tlsP.style = "TLS: hostname NOT verified", st.Warning
	case conn.TLS:
		tlsP.text = "TLS"
	}
	ensP := part{text: clean(strings.Join(conn.Ensemble, ","), 0), style: st.Header, flex: true}
	sessP := part{text: "session " + session(conn.SessionID), style: st.Header}
	watchP := part{text: "watches inferred (4lw off)", style: st.Header, right: true}
	if snap != nil && snap.ServerView {
		watchP.text = "watches verified " + clock(snap.ServerViewAt)
	}
	// How the queues are watched: persistent recursive watches cost a read
	// per change; children watches (servers before 3.6) re-list the queue.
	modeP := part{style: st.Header, right: true}
	if snap != nil {
		switch snap.WatchMode {
		case model.ModeRecursive:
			modeP.text = "watch: recursive"
		case model.ModeChildren:
			modeP.text, modeP.style = "watch: children (re-lists)", st.Warning
		}
	}
	if snap != nil && snap.FrameEvery >= coalescingShown {
		// A big model: each frame holds every change since the last.
		modeP.text, modeP.style = "coalescing: a frame every "+snap.FrameEvery.Round(10*time.Millisecond).String(), st.Warning
	}
	if snap != nil && snap.Unread > 0 {
		modeP.text, modeP.style = fmt.Sprintf("reading %d paths…", snap.Unread), st.Warning
	}
	clockP := part{text: clock(now) + " ", style: st.Header, right: true}
	replayP := part{style: st.Warning.Reverse(true)}
	if replay {
		replayP.text = " REPLAY "
	}
	if dial != nil {
		// No session yet, nothing watched: say only whom it dials.
		sessP.text, watchP.text = "", ""
	}

	// Keep parts in priority order while they fit; the ensemble shrinks.
	prio := []*part{&titleP, &replayP, &stateP, &ctxP, &tlsP, &clockP, &sessP, &watchP, &modeP, &ensP}
	keep := map[*part]bool{}
	used := 0
	for _, p := range prio {
		if p.text == "" {
			continue
		}
		need := ansi.StringWidth(p.text) + 2
		if p.flex {
			need = min(need, 12)
		}
		if used+need > w {
			continue
		}
		keep[p] = true
		used += need
	}
	if keep[&ensP] {
		full := ansi.StringWidth(ensP.text) + 2
		room := w - used + min(full, 12) - 2
		ensP.text = clean(ensP.text, room)
	}
	var left, right []seg
	for _, p := range []*part{&titleP, &replayP, &ctxP, &ensP, &sessP, &stateP, &tlsP} {
		if keep[p] {
			left = append(left, seg{p.text, p.style.Inherit(st.Header)}, seg{"  ", st.Header})
		}
	}
	for _, p := range []*part{&modeP, &watchP, &clockP} {
		if keep[p] {
			right = append(right, seg{"  ", st.Header}, seg{p.text, p.style.Inherit(st.Header)})
		}
	}
	l, r := line(left, nil), line(right, nil)
	gap := w - ansi.StringWidth(l) - ansi.StringWidth(r)
	if gap < 0 {
		return fit(l+r, w)
	}
	return l + st.Header.Render(strings.Repeat(" ", gap)) + r
}
