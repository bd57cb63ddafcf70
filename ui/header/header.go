package header

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/themes"
	"github.com/zklock/zklock/ui/draw"
)

// coalescingShown: frames this far apart are said to coalesce (zkview
// publishes every few milliseconds while its builds fit its budget, and
// spaces them by ten times the cost of a build once they do not).
const coalescingShown = 100 * time.Millisecond

// View is the top bar: which ensemble, whose session, and whether what
// is on screen can be trusted (connected, or stale since when); and a
// warning when zxid (NewestCzxid) is near its counter's rollover. dial,
// when not nil, is the headline of the session being opened, at most w
// cells: the state says whom it dials and for how long. A replay says
// REPLAY first, and what was
// connected as recorded, never as live. identity (Options.Identity) is
// said beside TLS; zxid, the highest zxid seen, is warned about near its
// rollover.
func View(st *themes.Styles, title, identity string, snap *model.Snapshot, zxid int64, dial func(w int) string, replay bool, w int, now time.Time) string {
	if title == "" {
		title = "zklock"
	}
	var conn model.Conn
	if snap != nil {
		conn = snap.Conn
	}
	titleP := headerPart{text: " " + draw.Clean(title, 24) + " ", style: st.Header.Bold(true)}
	stateP := headerState(st, snap, dial, replay, w-ansi.StringWidth(titleP.text), now)
	// Which cluster this is matters most at 3 a.m.: the context name is
	// kept before the session; the server list shrinks first.
	ctxP := headerPart{text: draw.Clean(conn.Context, 24), style: st.Header.Bold(true)}
	// TLS is said; TLS without hostname verification is warned of.
	tlsP := headerPart{style: st.Header}
	switch {
	case conn.TLS && !conn.HostnameVerified:
		tlsP.text, tlsP.style = "TLS: hostname NOT verified", st.Warning
	case conn.TLS:
		tlsP.text = "TLS"
	}
	// Whom the servers take us for decides what the ACLs let us do.
	idP := headerPart{text: draw.Clean(identity, 48), style: st.Header}
	// At the rollover the whole ensemble elects a leader: every session
	// reconnects, and holders that do not make it in time lose their locks.
	zxidP := headerPart{style: st.Warning}
	if model.ZxidNearRollover(zxid) {
		zxidP.text = fmt.Sprintf("zxid counter at %.0f%% of its rollover", 100*model.ZxidCounterRatio(zxid))
	}
	ensP := headerPart{text: draw.Clean(strings.Join(conn.Ensemble, ","), 0), style: st.Header, flex: true}
	if len(conn.Ensemble) == 1 && conn.Ensemble[0] == conn.Server && dial == nil {
		// The state says "connected to" it: once is enough.
		ensP.text = ""
	}
	sessP := headerPart{text: "session " + draw.Session(conn.SessionID), style: st.Header}
	watchP := headerPart{text: "watches inferred (no 4lw, no AdminServer)", style: st.Header, right: true}
	if snap == nil || !snap.ServerView && (snap.Unread > 0 || len(snap.Discovery) > 0) {
		// The first picture is still filling in: the servers may not
		// have been asked yet, so nothing is said of them.
		watchP.text = "watches not verified yet"
	}
	if snap != nil && snap.ServerView {
		// Never a time ahead of the clock beside it: the poll's time is
		// the servers', the clock ticks once a second.
		at := snap.ServerViewAt
		if at.After(now) {
			at = now
		}
		watchP.text = "watches verified " + draw.Clock(at)
	}
	modeP := headerMode(st, snap)
	clockP := headerPart{text: draw.Clock(now) + " ", style: st.Header, right: true}
	replayP := headerPart{style: st.Warning.Reverse(true)}
	if replay {
		replayP.text = " REPLAY "
	}
	if dial != nil {
		// No session yet, nothing watched: say only whom it dials.
		sessP.text, watchP.text = "", ""
	}

	// Keep parts in priority order while they fit; the ensemble shrinks.
	prio := []*headerPart{&titleP, &replayP, &stateP, &ctxP, &tlsP, &idP, &zxidP, &clockP, &sessP, &watchP, &modeP, &ensP}
	if snap != nil && len(snap.Discovery) > 0 {
		// While a root's first read fills in, how far it has come
		// matters more than the session and the watches.
		prio = []*headerPart{&titleP, &replayP, &stateP, &ctxP, &tlsP, &idP, &zxidP, &clockP, &modeP, &sessP, &watchP, &ensP}
	}
	left := []*headerPart{&titleP, &replayP, &ctxP, &ensP, &sessP, &stateP, &tlsP, &idP, &zxidP}
	right := []*headerPart{&modeP, &watchP, &clockP}
	return layoutHeader(st, w, prio, &ensP, left, right)
}

// headerPart is one piece of the header.
type headerPart struct {
	text  string // safe, unstyled
	style lipgloss.Style
	right bool
	flex  bool
}

// headerState is the header's connection state, room being the cells the
// title leaves: whom it dials, connected to whom (recorded, in a
// replay), or since when the data is stale.
func headerState(st *themes.Styles, snap *model.Snapshot, dial func(w int) string, replay bool, room int, now time.Time) headerPart {
	var conn model.Conn
	if snap != nil {
		conn = snap.Conn
	}
	stateP := headerPart{style: st.Verified}
	switch {
	case dial != nil:
		// Room left by the title and the clock, which are kept first.
		room -= 2 + ansi.StringWidth(draw.Clock(now)+" ") + 2
		stateP.text, stateP.style = dial(room), st.Warning
	case snap == nil || conn.State == model.StateConnecting:
		stateP.text, stateP.style = "◌ connecting…", st.Warning
	case conn.State == model.StateConnected && replay:
		stateP.text, stateP.style = "recorded", st.Header
		if conn.Server != "" {
			stateP.text += " from " + draw.Clean(conn.Server, 40)
		}
	case conn.State == model.StateConnected:
		stateP.text = "● connected"
		if conn.Server != "" {
			stateP.text += " to " + draw.Clean(conn.Server, 40)
		}
	case conn.State == model.StateDisconnected:
		stateP.text = " ✗ DISCONNECTED since " + draw.Clock(conn.Since) + " (" + draw.Since(now, conn.Since) + "): data is STALE "
		stateP.style = st.Lost
	case conn.State == model.StateExpired:
		stateP.text, stateP.style = " ✗ SESSION EXPIRED: re-syncing ", st.Lost
	default:
		stateP.text, stateP.style = "○ "+conn.State.String(), st.Muted
	}
	return stateP
}

// headerMode is how the queues are watched, or why frames lag: the
// header's right-hand note.
func headerMode(st *themes.Styles, snap *model.Snapshot) headerPart {
	// How the queues are watched: persistent recursive watches cost a read
	// per change; children watches (servers before 3.6) re-list the queue.
	modeP := headerPart{style: st.Header, right: true}
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
	if snap != nil && len(snap.Discovery) > 0 {
		// A root read whole: how far, from the picture itself.
		modeP.text, modeP.style = model.DiscoveryText(snap.Discovery), st.Warning
	}
	return modeP
}

// layoutHeader keeps the parts of prio that fit in w cells, in priority
// order, gives what is left to the ensemble (which shrinks), and draws
// left's parts from the left edge and right's against the right edge.
func layoutHeader(st *themes.Styles, w int, prio []*headerPart, ensP *headerPart, left, right []*headerPart) string {
	keep := map[*headerPart]bool{}
	used := -2 // two cells between parts: none before the first
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
	if keep[ensP] {
		full := ansi.StringWidth(ensP.text) + 2
		room := w - used + min(full, 12) - 2
		ensP.text = draw.Clean(ensP.text, room)
	}
	var ls, rs []draw.Seg
	for _, p := range left {
		if keep[p] {
			if len(ls) > 0 {
				ls = append(ls, draw.Seg{Text: "  ", Style: st.Header})
			}
			ls = append(ls, draw.Seg{Text: p.text, Style: p.style.Inherit(st.Header)})
		}
	}
	for _, p := range right {
		if keep[p] {
			if len(rs) > 0 || len(ls) > 0 {
				rs = append(rs, draw.Seg{Text: "  ", Style: st.Header})
			}
			rs = append(rs, draw.Seg{Text: p.text, Style: p.style.Inherit(st.Header)})
		}
	}
	l, r := draw.Line(ls, nil), draw.Line(rs, nil)
	gap := w - ansi.StringWidth(l) - ansi.StringWidth(r)
	if gap < 0 {
		return draw.Fit(l+r, w)
	}
	return l + st.Header.Render(strings.Repeat(" ", gap)) + r
}

// NewestCzxid is the highest czxid among each queue's last node, its
// newest by sequence order: the zxid as of the newest lock node, a lower
// bound of the ensemble's (the console polls no srvr). It costs one node
// a queue, once per snapshot; model.Snapshot.HighestCzxid reads them all.
func NewestCzxid(s *model.Snapshot) int64 {
	var hi int64
	for _, q := range s.Queues.All() {
		if ns := q.Nodes; ns.Len() > 0 {
			hi = max(hi, ns.At(ns.Len()-1).Czxid)
		}
	}
	return hi
}
