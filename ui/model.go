package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/timeline"
	"github.com/zklock/zklock/ui/draw"
	"github.com/zklock/zklock/ui/eventlog"
	"github.com/zklock/zklock/ui/header"
	"github.com/zklock/zklock/ui/locklist"
	"github.com/zklock/zklock/ui/narration"
	"github.com/zklock/zklock/ui/queuepane"
	"github.com/zklock/zklock/ui/sessionspane"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/zklock/zklock/themes"
)

// actionTimeout bounds one Backend call made from the console: long enough
// for an ensemble that is electing a leader to answer, short enough that a
// hung call is reported instead of silently pending.
const actionTimeout = 30 * time.Second

// Smallest screen the full layout is drawn on; below it the console asks
// for a bigger terminal instead of drawing broken borders.
const (
	minWidth  = 60
	minHeight = 16
)

type focusArea int

const (
	focusList focusArea = iota
	focusQueue
	focusLog
	focusAreas
)

// viewMode is what the body of the screen shows.
type viewMode int

const (
	viewMain     viewMode = iota // lock list and queue
	viewSessions                 // the sessions pane
)

// Console is the console: the only tea.Console of the package. It composes the
// widgets (lock list, queue, sessions pane, event log, header, status bar,
// dialogs), handles global keys and hands the rest to the focused widget:
// each pane has its own Update and View.
type Console struct {
	opts     Options
	st       *themes.Styles // shared, read-only: Styles is large and Console is copied on every Update
	keys     KeyMap
	dkeys    dialogKeys
	readOnly bool
	ctx      context.Context // for Backend calls; Run sets it

	width, height int
	now           time.Time
	snap          *model.Snapshot
	zxid          int64 // newestCzxid of snap, for the header
	own           ownLocks
	// taking holds the takes sent to the Backend, by path, until both
	// their answer and the lock core's first report came: the own node
	// may exist before Own says so, and the two are logged in the order
	// they happened (pendingTake).
	taking map[string]*pendingTake
	// ownSeen is own as the snapshot shows it: a waiter's place and the
	// node it watches read from the queue drawn, not from the lock
	// core's last re-check (ownLocks.seenIn).
	ownSeen ownLocks

	list      locklist.List
	queue     queuepane.Pane
	log       eventlog.Log
	focus     focusArea
	dialog    dialog
	notice    notice
	narration narration.Line
	// paused mirrors the demo's contenders (Options.Demo): set by a
	// successful pause or step, cleared by a successful resume.
	paused bool
	// view is what the body shows: the lock list and the queue, or the
	// sessions pane (sessions.go).
	view     viewMode
	sessions sessionspane.Pane
	// mark is the session whose nodes are marked in every queue (0: none).
	mark int64
	// recording is the file a recording started from the console goes
	// to ("" when none runs).
	recording string
	// dial is the session being opened (Options.Connect), nil once the
	// outcome arrived or when the console started connected.
	dial *connecting
	// replay is where a replay stands (Options.Replay), read on every
	// tick and update.
	replay timeline.PlayerState
}

// New builds the console. It does no I/O: the first frame is drawn from
// Options alone, and snapshots arrive through Options.Updates.
func New(opts Options) Console {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Theme.Name == "" {
		if th, err := themes.Load(themes.Default); err == nil {
			opts.Theme = th
		}
	}
	st := opts.Theme.Styles()
	m := Console{
		opts:      opts,
		st:        &st,
		dkeys:     newDialogKeys(),
		ctx:       context.Background(),
		now:       opts.Now(),
		own:       ownLocks{},
		taking:    map[string]*pendingTake{},
		list:      locklist.New(),
		narration: narration.Line{On: opts.Narration},
	}
	m.list.Roots = opts.Roots
	if opts.Connect != nil {
		m.dial = &connecting{servers: opts.Servers, since: m.now, timeout: opts.ConnectTimeout}
	}
	m.resetKeys()
	if opts.Replay != nil {
		m.replay = opts.Replay.State()
	}
	m.rebuild()
	if opts.Snapshot != nil {
		// As a live console takes its first snapshot: the configured
		// paths' rows first, so the selection starts where it would.
		m.applyUpdate(model.Update{Snapshot: opts.Snapshot})
	}
	return m
}

// resetKeys enables the keys the options allow: no actions without a
// Backend (read-only, or not connected yet), no presenter's keys outside
// the demo, no recording key without a recorder.
func (m *Console) resetKeys() {
	m.readOnly = m.opts.ReadOnly || m.opts.Backend == nil
	m.keys = DefaultKeyMap()
	if m.readOnly {
		m.keys = m.keys.readOnly()
	}
	if m.opts.Demo == nil {
		m.keys = m.keys.withoutDemo()
	}
	if m.opts.Recorder == nil {
		m.keys.Record.SetEnabled(false)
	}
}

// Init starts the clock and the pumps that bring the connection, the
// snapshots and the operator's own lock states in as messages.
func (m Console) Init() tea.Cmd {
	return tea.Batch(tick(m.opts.Now), waitConnected(m.opts.Connect), waitUpdate(m.opts.Updates), waitOwn(m.opts.Own))
}

// Update handles one message: size, clock, pumped data and the outcomes
// of commands are the root's; mouse and keys go to the widget they are
// for.
func (m Console) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.fixScroll()
	case tickMsg:
		m.now = time.Time(msg)
		if m.list.Settle(m.now) {
			m.syncQueue()
		}
		m.readReplay()
		followDialog(&m)
		return m, tick(m.opts.Now)
	case connectedMsg:
		return m, m.applyConnected(msg.Connected)
	case updateMsg:
		m.applyUpdate(msg.Update)
		m.readReplay()
		return m, waitUpdate(m.opts.Updates)
	case updatesClosedMsg:
		m.log.Add(eventlog.Entry{At: m.now, Kind: eventlog.Failed, Text: "the Watcher stopped: nothing on screen will change any more"})
	case ownMsg:
		m.applyOwn(msg.locks)
		return m, waitOwn(m.opts.Own)
	case ownClosedMsg:
	case actionMsg:
		m.applyAction(msg)
	case demoMsg:
		m.applyDemo(msg)
	case replayMsg:
		// The clock jumps with a step; the status bar says where it stands.
		m.now, m.replay = msg.state.At, msg.state
		followDialog(&m)
	case recordMsg:
		m.recording, m.notice = msg.outcome(m.recording)
	case copiedMsg:
		m.notice = copiedNotice(msg)
	case tea.MouseMsg:
		return m.mouse(msg)
	case tea.KeyMsg:
		return m.key(msg)
	default:
		// Anything else (a text input's internal messages) goes to whoever
		// has the keyboard.
		var cmd tea.Cmd
		switch {
		case m.dialog != nil:
			m.dialog, _, cmd = m.dialog.update(msg, m.dkeys)
		case m.list.Filtering:
			m.list, cmd = m.list.Update(msg)
		}
		return m, cmd
	}
	return m, nil
}

// key handles global keys, then hands the rest to the widget that has the
// keyboard: an open dialog, the filter, the sessions pane, the focused
// pane.
func (m Console) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.activeKeys()
	switch {
	case key.Matches(msg, k.Abort):
		return m, tea.Quit
	case m.dialog != nil:
		var it intent
		var cmd tea.Cmd
		m.dialog, it, cmd = m.dialog.update(msg, m.dkeys)
		return m, tea.Batch(cmd, m.perform(it))
	case m.list.Filtering:
		return m.toList(msg)
	case m.view == viewSessions && key.Matches(msg, k.Enter):
		m.showSessionInQueues()
		return m, nil
	case m.view == viewSessions && key.Matches(msg, k.Force):
		m.askForceSession()
		return m, nil
	case m.view == viewSessions && key.Matches(msg, k.Clear):
		m.view = viewMain
		return m, nil
	case m.view == viewSessions && isNav(msg, k):
		return m.toFocused(msg)
	}
	if jump, cmd, ok := replayKey(m.opts.Replay, msg, m.now); ok {
		if jump != nil {
			m.dialog = jump
		}
		return m, cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.dialog = &helpDialog{groups: helpGroups(m.modeKeys(), m.opts.Replay != nil)}
	case key.Matches(msg, k.Record):
		return m, toggleRecording(m.opts.Recorder, m.recording)
	case key.Matches(msg, k.Focus):
		step := focusArea(1)
		if msg.String() == "shift+tab" {
			step = focusAreas - 1
		}
		m.focus = (m.focus + step) % focusAreas
	case m.mark != 0 && m.list.Filter.Value() == "" && key.Matches(msg, k.Clear):
		m.mark, m.notice = 0, notice{text: "mark cleared"}
		m.rebuild()
	case key.Matches(msg, k.Filter):
		m.focus = focusList
		return m.toList(msg)
	case key.Matches(msg, k.Clear, k.Sort, k.Waiting):
		// The lock list's keys, whichever pane has the focus.
		return m.toList(msg)
	case key.Matches(msg, k.Sessions):
		m.toggleSessions()
	case key.Matches(msg, k.Copy):
		if raw, shown, ok := m.copyTarget(); ok {
			return m, copyToClipboard(m.opts.Output, raw, shown)
		}
	case key.Matches(msg, k.Narrate):
		m.narration.On = !m.narration.On
		m.fixScroll()
	case key.Matches(msg, k.Take):
		return m.take()
	case key.Matches(msg, k.Release):
		return m.release()
	case key.Matches(msg, k.Revoke):
		m.askRevoke()
	case key.Matches(msg, k.Force):
		m.askForce()
	case key.Matches(msg, k.Enter):
		m.enter()
	case key.Matches(msg, k.Pause, k.Step, k.Kill, k.Split):
		return m, m.present(msg, k)
	case isNav(msg, k):
		return m.toFocused(msg)
	}
	return m, nil
}

// isNav says whether msg is one of the keys that move within a pane.
func isNav(msg tea.KeyMsg, k KeyMap) bool {
	return key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End)
}

// mouse handles the mouse (Run enables cell-motion reporting, as k9s and
// lazygit do; terminals still select text with shift held): the wheel
// goes to the focused pane; a left click focuses the pane under the
// pointer and goes to it, with Y from the pane's top. Open dialogs and
// the filter keep the keyboard's focus: clicks are ignored then.
func (m Console) mouse(msg tea.MouseMsg) (tea.Model, tea.Cmd) {
	if m.dialog != nil || msg.Action != tea.MouseActionPress || m.width < minWidth || m.height < minHeight {
		return m, nil
	}
	if _, ok := draw.WheelDelta(msg); ok {
		return m.toFocused(msg)
	}
	if !draw.LeftClick(msg) || m.list.Filtering {
		return m, nil
	}
	fr := m.frame()
	msg.Y -= 1 + m.bannerLines() // from the body's first line
	switch {
	case msg.Y < 0:
	case msg.Y < fr.bodyH && m.view == viewSessions:
		return m.toFocused(msg)
	case m.view == viewSessions:
	case msg.Y < fr.bodyH && msg.X < fr.listW:
		m.focus = focusList
		return m.toList(msg)
	case msg.Y < fr.bodyH:
		m.focus = focusQueue
		msg.X -= fr.listW
		return m.toFocused(msg)
	case msg.Y < fr.bodyH+fr.logH:
		m.focus = focusLog
	}
	return m, nil
}

// toList hands msg to the lock list, then shows the queue of the lock it
// selects.
func (m Console) toList(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.layoutPanes()
	var cmd tea.Cmd
	m.list, cmd = m.list.Update(msg)
	m.syncQueue()
	return m, cmd
}

// toFocused hands msg (a key that moves, the wheel, a click) to the
// focused pane: the sessions pane while it is shown.
func (m Console) toFocused(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.layoutPanes()
	var cmd tea.Cmd
	switch {
	case m.view == viewSessions:
		m.sessions, cmd = m.sessions.Update(msg)
	case m.focus == focusList:
		return m.toList(msg)
	case m.focus == focusQueue:
		m.queue, cmd = m.queue.Update(msg)
	case m.focus == focusLog:
		m.log, cmd = m.log.Update(msg)
	}
	return m, cmd
}

// modeKeys are the keys of the console's mode: what activeKeys would
// enable with something selected, so that help lists every key the mode
// has, not only what applies to the row under the cursor.
func (m *Console) modeKeys() KeyMap {
	k := m.keys
	if m.view != viewMain {
		m.sessionKeys(&k)
		k.Force.SetEnabled(!m.readOnly)
		k.Enter.SetEnabled(true)
		k.Copy.SetHelp("y", "copy session id")
		return k
	}
	m.markKeys(&k)
	if m.opts.Demo != nil && m.paused {
		k.Pause.SetHelp("p", "resume")
	}
	return k
}

// activeKeys is the key map with only the keys that apply now enabled, for
// both matching and the footer.
func (m *Console) activeKeys() KeyMap {
	k := m.keys
	row := m.list.Current()
	node := m.queue.Node()
	rw := !m.readOnly
	k.Enter.SetEnabled(row != nil && m.focus != focusLog)
	if m.focus == focusQueue {
		k.Enter.SetHelp("enter", "node details")
		k.Enter.SetEnabled(node != nil)
	} else {
		k.Enter.SetHelp("enter", "open queue")
	}
	k.Take.SetEnabled(rw && row != nil && !m.own.active(row.Path))
	k.Release.SetEnabled(rw && len(m.own) > 0)
	// A plain ephemeral lock's rows are shown, not acted on: its waiters
	// own no node, and its node has no sequence to confirm a force with.
	// Nor a single barrier's: deleting its node opens it for everyone.
	acts := node != nil && node.Recipe != ordering.RecipeEphemeral && node.Part() != model.PartBarrier && node.Part() != model.PartWaiter
	k.Revoke.SetEnabled(rw && acts && node.Believes == ordering.RoleHolder)
	k.Force.SetEnabled(rw && acts)
	k.Clear.SetEnabled(m.list.Filter.Value() != "")
	if m.view == viewMain {
		m.markKeys(&k)
	} else {
		m.sessionKeys(&k)
	}
	_, _, canCopy := m.copyTarget()
	k.Copy.SetEnabled(canCopy)
	if m.view != viewMain {
		k.Copy.SetHelp("y", "copy session id")
	}
	if m.opts.Demo != nil {
		if m.paused {
			k.Pause.SetHelp("p", "resume")
		}
		k.Kill.SetEnabled(row != nil)
		k.Split.SetEnabled(row != nil)
	}
	return k
}

// markKeys lets esc clear the mark while no filter takes it.
func (m *Console) markKeys(k *KeyMap) {
	if m.mark != 0 && m.list.Filter.Value() == "" {
		k.Clear.SetEnabled(true)
		k.Clear.SetHelp("esc", "clear mark")
	}
}

// copyTarget is what y copies now: in the sessions pane the selected
// session's id; in the queue the selected node's full path; else the
// selected lock's path. raw is the text as ZooKeeper has it (it goes to
// the clipboard, base64-encoded); shown is its sanitized name for the
// status bar. ok is false when nothing is selected.
func (m *Console) copyTarget() (raw, shown string, ok bool) {
	if m.view == viewSessions {
		return m.sessions.CopyTarget()
	}
	if m.focus == focusQueue {
		if raw, shown, ok := m.queue.CopyTarget(); ok {
			return raw, shown, true
		}
	}
	if row := m.list.Current(); row != nil {
		return row.Path, draw.Clean(row.Path, 0), true
	}
	return "", "", false
}

// applyUpdate takes in a snapshot and its events.
func (m *Console) applyUpdate(u model.Update) {
	before := m.snap
	if u.Snapshot != nil {
		m.snap, m.zxid = u.Snapshot, header.NewestCzxid(u.Snapshot)
		if m.opts.Replay == nil && u.Snapshot.At.After(m.now) {
			// The clock ticks once a second; what it shows is never
			// later than the clock (a replay's clock is the player's).
			m.now = u.Snapshot.At
		}
		if before == nil {
			// The rows so far were the configured paths, unread: the
			// first picture is sorted, not appended to them.
			m.list.Resort(m.now)
		}
	}
	for _, e := range u.Changes {
		m.log.AddChange(e)
	}
	if u.Dropped > 0 {
		m.log.Add(eventlog.Entry{At: m.now, Kind: eventlog.Failed, Text: fmt.Sprintf("%d events dropped: the console fell behind", u.Dropped)})
	}
	m.narration.Follow(u.Changes, before, m.snap, m.list.Selected)
	followDialog(m)
	m.rebuild()
}

// applyConnected takes in the outcome of opening the session: the live
// feeds, whose pumps it starts, or the error, which ends the console (the
// caller reports it once the terminal is restored).
func (m *Console) applyConnected(c Connected) tea.Cmd {
	m.dial = nil
	if c.Err != nil {
		return tea.Quit
	}
	m.opts.Backend, m.opts.Updates, m.opts.Own, m.opts.Recorder = c.Backend, c.Updates, c.Own, c.Recorder
	m.resetKeys()
	m.rebuild()
	return tea.Batch(waitUpdate(c.Updates), waitOwn(c.Own))
}

// readReplay takes in where the replay stands now: a playing replay
// moves with no key pressed, so the console reads it on every tick and
// update, as it reads the clock.
func (m *Console) readReplay() {
	if m.opts.Replay != nil {
		m.replay = m.opts.Replay.State()
	}
}

// rebuild recomputes everything derived from the snapshot and own locks:
// the list, the queue shown, the sessions pane (while shown), the mark
// and the locks of a cross-lock deadlock.
func (m *Console) rebuild() {
	m.ownSeen = m.own.seenIn(m.snap)
	m.list.Rebuild(m.snap, m.opts.Paths, m.own.lost())
	m.syncQueue()
	if m.view == viewSessions {
		m.sessions.Set(m.snap)
	}
	m.queue.Mark = m.mark
	m.list.MarkSession(m.snap, m.mark)
}

// syncQueue shows the queue of the lock selected in the list.
func (m *Console) syncQueue() {
	path := m.list.Selected
	var own *queuepane.Own
	if o, ok := m.own[path]; ok {
		own = &queuepane.Own{Node: o.Node, Queued: o.State == OwnQueued, Lost: o.State == OwnLost, Suspended: o.State == OwnSuspended, Err: o.Err,
			Says: func(now time.Time, ref func(string) string) string { return ownState(&o, now, ref) }}
	}
	m.queue.Set(m.snap.Queue(path), path, own)
	m.fixScroll()
}

// fixScroll keeps both cursors on screen after a change of size or data.
func (m *Console) fixScroll() {
	m.layoutPanes()
	m.list.KeepInView()
	m.queue.KeepInView()
}

// frame is the size of each part of the screen.
type frame struct {
	listW, queueW int
	bodyH, logH   int
}

func (m *Console) frame() frame {
	logH := 5
	switch {
	case m.height >= 40:
		logH = 10
	case m.height >= 30:
		logH = 7
	}
	fixed := 3 + len(m.narration.View(m.st, m.paused, m.width)) + m.bannerLines() // header, status bar, footer, narration, deadlock banner
	bodyH := max(m.height-fixed-logH, 4)
	listW := min(max(m.width*33/100, min(32, m.width*40/100)), 60)
	if m.view == viewMain {
		listW = m.splitWidth(listW, bodyH)
	}
	return frame{listW: listW, queueW: m.width - listW, bodyH: bodyH, logH: logH}
}

// splitWidth moves the border between the lock list (listW wide) and the
// queue so that a table cut short gets the cells the other leaves blank
// (the queue's first); the list grows to at most half the screen.
func (m *Console) splitWidth(listW, bodyH int) int {
	for range 3 {
		// A few steps: cells given to a table can bring back one of its
		// columns, which takes them from the column they were for.
		next := m.splitStep(listW, bodyH)
		if next == listW {
			break
		}
		listW = next
	}
	return listW
}

// splitStep is one step of splitWidth.
func (m *Console) splitStep(listW, bodyH int) int {
	queueW := m.width - listW
	listSpare, listShort := m.list.Slack(m.st, listW-2, bodyH-2, m.now)
	queueSpare, queueShort := m.queue.Slack(m.st, m.snap, queueW-2, bodyH-2, m.now)
	switch {
	case queueShort > 0 && listSpare > 0:
		return listW - min(listSpare, queueShort) // the queue first: it is what the operator came for
	case listShort > 0 && queueSpare > 0:
		return listW + min(queueSpare, listShort, max(m.width/2-listW, 0))
	}
	return listW
}

// bannerLines is how many lines the deadlock banner takes now.
func (m *Console) bannerLines() int {
	if m.snap == nil || len(m.snap.Deadlocks) == 0 || m.view != viewMain {
		return 0
	}
	return 1
}

// layoutPanes gives every pane what its Update and View read: its size
// in the frame, the styles, its border (focused, or stale when the data
// is), the clock and the keys.
func (m *Console) layoutPanes() frame {
	fr := m.frame()
	stale := m.snap != nil && m.snap.Stale
	at := func(f focusArea, w, h int) draw.Pane {
		p := draw.Pane{St: m.st, Border: m.st.Border, Width: w, Height: h, Now: m.now, Focused: m.focus == f, Nav: m.keys.navKeys()}
		switch {
		case stale:
			p.Border = m.st.Stale
		case p.Focused:
			p.Border = m.st.FocusBorder
		}
		return p
	}
	m.list.Pane = at(focusList, fr.listW, fr.bodyH)
	m.list.Keys = locklist.Keys{Filter: m.keys.Filter, Clear: m.keys.Clear, Sort: m.keys.Sort, Waiting: m.keys.Waiting}
	m.queue.Pane = at(focusQueue, fr.queueW, fr.bodyH)
	m.queue.Snap = m.snap
	m.log.Pane = at(focusLog, m.width, fr.logH)
	// The sessions pane is the whole body: focused whenever shown.
	m.sessions.Pane = at(m.focus, m.width, fr.bodyH)
	m.sessions.Mark = m.mark
	return fr
}

// View draws the whole screen: exactly width x height cells, no clock
// read, no I/O.
func (m Console) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	if w < minWidth || h < minHeight {
		return strings.Join(tooSmallView(m.st, w, h), "\n")
	}
	m.layoutPanes()
	lines := make([]string, 0, h)
	lines = append(lines, header.View(m.st, m.opts.Title, m.opts.Identity, m.snap, m.zxid, m.dial.headlineAt(m.now), m.opts.Replay != nil, w, m.now))
	if m.view == viewSessions {
		lines = append(lines, m.sessions.View()...)
	} else {
		if b := sessionspane.DeadlockBanner(m.st, m.snap, m.now, w); b != "" {
			lines = append(lines, b)
		}
		lines = append(lines, draw.SideBySide(m.list.View(), m.queue.View())...)
	}
	lines = append(lines, m.log.View()...)
	lines = append(lines, m.narration.View(m.st, m.paused, w)...)
	switch {
	case m.dial != nil:
		lines = append(lines, m.dial.statusLine(m.st, m.notice, w, m.now))
	case m.opts.Replay != nil:
		lines = append(lines, replayStatus(m.st, m.replay, m.notice, w))
	default:
		lines = append(lines, statusView(m.st, m.ownSeen, m.notice, m.readOnly, m.recording, w, m.now))
	}
	lines = append(lines, footerView(m.st, m.activeKeys(), m.list.Filtering, w))
	if m.dialog != nil {
		lines = overlay(lines, m.dialog.view(m.st, w, h), w)
	}
	return strings.Join(lines, "\n")
}

// OwnLocks lists the operator's locks the console knows of, by path.
func (m Console) OwnLocks() []OwnLock { return m.own.sorted() }

// sessionKeys sets the keys of the console while the sessions pane is shown: no
// action on locks, enter marks, f force-releases a session, esc goes back.
func (m *Console) sessionKeys(k *KeyMap) {
	p, readOnly := &m.sessions, m.readOnly
	for _, b := range []*key.Binding{&k.Take, &k.Release, &k.Revoke, &k.Focus, &k.Filter, &k.Sort,
		&k.Pause, &k.Step, &k.Kill, &k.Split} {
		b.SetEnabled(false)
	}
	s := p.Session()
	k.Enter.SetEnabled(s != nil || p.Deadlock() != nil)
	k.Enter.SetHelp("enter", "mark in queues")
	k.Force.SetEnabled(!readOnly && s != nil)
	k.Force.SetHelp("f", "force-release session")
	k.Clear.SetEnabled(true)
	k.Clear.SetHelp("esc", "back")
	k.Sessions.SetHelp("w", "locks")
}
