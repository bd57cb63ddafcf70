package ui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/timeline"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/zklock/zklock/lockops"
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

// Model is the console: the only tea.Model of the package. It composes the
// widgets (lock list, queue, event log, header, status bar, dialogs),
// handles global keys and hands the rest to the focused widget.
type Model struct {
	opts     Options
	st       *themes.Styles // shared, read-only: Styles is large and Model is copied on every Update
	keys     KeyMap
	dkeys    dialogKeys
	readOnly bool
	ctx      context.Context // for Backend calls; Run sets it

	width, height int
	now           time.Time
	snap          *model.Snapshot
	own           map[string]OwnLock // by path
	// taking holds the paths of takes sent to the Backend whose answer
	// has not come back: the own node may exist before Own says so.
	taking map[string]bool

	list          lockList
	queue         queuePane
	log           eventLog
	focus         focusArea
	dialog        dialog
	notice        notice
	narrate       bool
	narration     string
	narrationPath string // the lock the narration is about
	// paused mirrors the demo's contenders (Options.Demo): set by a
	// successful pause or step, cleared by a successful resume.
	paused bool
	// view is what the body shows: the lock list and the queue, or the
	// sessions pane (sessions.go).
	view     viewMode
	sessions sessionsPane
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
func New(opts Options) Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Theme.Name == "" {
		if th, err := themes.Load(themes.Default); err == nil {
			opts.Theme = th
		}
	}
	st := opts.Theme.Styles()
	m := Model{
		opts:    opts,
		st:      &st,
		dkeys:   newDialogKeys(),
		ctx:     context.Background(),
		now:     opts.Now(),
		own:     map[string]OwnLock{},
		taking:  map[string]bool{},
		list:    newLockList(),
		narrate: opts.Narration,
	}
	if opts.Connect != nil {
		m.dial = &connecting{servers: opts.Servers, since: m.now, timeout: opts.ConnectTimeout}
	}
	m.resetKeys()
	if opts.Replay != nil {
		m.replay = opts.Replay.State()
	}
	m.rebuild()
	return m
}

// resetKeys enables the keys the options allow: no actions without a
// Backend (read-only, or not connected yet), no presenter's keys outside
// the demo, no recording key without a recorder.
func (m *Model) resetKeys() {
	m.readOnly = m.opts.ReadOnly || m.opts.Backend == nil
	m.keys = DefaultKeyMap()
	if m.readOnly {
		m.keys = m.keys.readOnly()
	}
	if m.opts.Demo == nil {
		m.keys = m.keys.withoutDemo()
	}
	if m.opts.Recording == nil {
		m.keys.Record.SetEnabled(false)
	}
}

// Init starts the clock and the pumps that bring the connection, the
// snapshots and the operator's own lock states in as messages.
func (m Model) Init() tea.Cmd {
	return tea.Batch(tick(m.opts.Now), waitConnected(m.opts.Connect), waitUpdate(m.opts.Updates), waitOwn(m.opts.Own))
}

// Update handles one message: size, clock, pumped data, action results,
// mouse and keys.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.fixScroll()
		return m, nil
	case tickMsg:
		m.now = time.Time(msg)
		if m.list.release(m.now) {
			m.syncQueue()
		}
		m.readReplay()
		return m, tick(m.opts.Now)
	case connectedMsg:
		return m, m.applyConnected(msg.Connected)
	case updateMsg:
		m.applyUpdate(msg.Update)
		m.readReplay()
		return m, waitUpdate(m.opts.Updates)
	case updatesClosedMsg:
		m.log.add(logEntry{at: m.now, kind: logFailed, text: "the Watcher stopped: nothing on screen will change any more"})
		return m, nil
	case ownMsg:
		m.applyOwn(msg.locks)
		return m, waitOwn(m.opts.Own)
	case ownClosedMsg:
		return m, nil
	case actionMsg:
		m.applyAction(msg)
		return m, nil
	case demoMsg:
		m.applyDemo(msg)
		return m, nil
	case replayMsg:
		m.applyReplay(msg)
		return m, nil
	case recordMsg:
		m.applyRecord(msg)
		return m, nil
	case copiedMsg:
		m.applyCopied(msg)
		return m, nil
	case tea.MouseMsg:
		return m.mouse(msg)
	case tea.KeyMsg:
		return m.key(msg)
	}
	// Anything else (a text input's internal messages) goes to whoever has
	// the keyboard.
	var cmd tea.Cmd
	switch {
	case m.dialog != nil:
		m.dialog, _, cmd = m.dialog.update(msg, m.dkeys)
	case m.list.filtering:
		m.list.filter, cmd = m.list.filter.Update(msg)
	}
	return m, cmd
}

// key handles global keys, then hands navigation to the focused pane.
func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.activeKeys()
	if key.Matches(msg, k.Abort) {
		return m, tea.Quit
	}
	if m.dialog != nil {
		var it intent
		var cmd tea.Cmd
		m.dialog, it, cmd = m.dialog.update(msg, m.dkeys)
		return m, tea.Batch(cmd, m.perform(it))
	}
	if m.list.filtering {
		return m.filterKey(msg)
	}
	if m.view == viewSessions {
		if next, ok := m.sessionsKey(msg, k); ok {
			return next, nil
		}
	}
	if next, cmd, ok := m.replayKey(msg); ok {
		return next, cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.dialog = &helpDialog{groups: helpGroups(m.modeKeys(), m.opts.Replay != nil)}
	case key.Matches(msg, k.Record):
		return m, m.toggleRecording()
	case key.Matches(msg, k.Focus):
		step := focusArea(1)
		if msg.String() == "shift+tab" {
			step = focusAreas - 1
		}
		m.focus = (m.focus + step) % focusAreas
	case key.Matches(msg, k.Filter):
		m.focus = focusList
		m.list.filtering = true
		m.fixScroll()
		return m, m.list.filter.Focus()
	case m.mark != 0 && m.list.filter.Value() == "" && key.Matches(msg, k.Clear):
		m.mark, m.notice = 0, notice{text: "mark cleared"}
		m.rebuild()
	case key.Matches(msg, k.Sessions):
		m.toggleSessions()
	case key.Matches(msg, k.Clear):
		m.list.filter.Reset()
		m.list.refresh()
		m.syncQueue()
	case key.Matches(msg, k.Copy):
		return m.copySelected()
	case key.Matches(msg, k.Sort):
		m.list.sort = (m.list.sort + 1) % sortModes
		m.list.heldRank = nil // the operator asked for this order
		m.list.refresh()
		m.syncQueue()
	case key.Matches(msg, k.Narrate):
		m.narrate = !m.narrate
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
	default:
		m.navigate(msg, k)
	}
	return m, nil
}

// navigate moves within the focused pane.
func (m *Model) navigate(msg tea.KeyMsg, k KeyMap) {
	page := m.pageRows()
	switch {
	case key.Matches(msg, k.Up):
		m.scrollFocused(-1)
	case key.Matches(msg, k.Down):
		m.scrollFocused(1)
	case key.Matches(msg, k.PageUp):
		m.scrollFocused(-page)
	case key.Matches(msg, k.PageDown):
		m.scrollFocused(page)
	case key.Matches(msg, k.Home):
		m.scrollFocused(-1 << 30)
	case key.Matches(msg, k.End):
		m.scrollFocused(1 << 30)
	}
}

// scrollFocused moves the focused pane's cursor (or the log) by delta.
func (m *Model) scrollFocused(delta int) {
	fr := m.frame()
	if m.view == viewSessions {
		m.sessions.move(delta, m.sessions.tableRows(fr.bodyH))
		return
	}
	switch m.focus {
	case focusList:
		m.list.hold(m.now)
		m.list.move(delta, m.list.rowsFor(fr.bodyH-2))
		m.syncQueue()
	case focusQueue:
		m.queue.move(delta, m.queue.rowsFor(m.st, m.snap, fr.queueW-2, fr.bodyH-2, m.now))
	case focusLog:
		m.log.scroll(delta, fr.logH-2)
	}
}

func (m *Model) pageRows() int {
	fr := m.frame()
	switch m.focus {
	case focusQueue:
		// Nodes take up to two lines each.
		return max(m.queue.rowsFor(m.st, m.snap, fr.queueW-2, fr.bodyH-2, m.now)/2, 1)
	case focusLog:
		return max(fr.logH-3, 1)
	}
	return max(m.list.rowsFor(fr.bodyH-2)-1, 1)
}

// filterKey edits the lock list filter; enter keeps it, esc drops it.
func (m Model) filterKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch msg.Type {
	case tea.KeyEnter:
		m.list.filtering = false
		m.list.filter.Blur()
	case tea.KeyEsc:
		m.list.filtering = false
		m.list.filter.Blur()
		m.list.filter.Reset()
	default:
		var cmd tea.Cmd
		m.list.filter, cmd = m.list.filter.Update(msg)
		m.list.refresh()
		m.syncQueue()
		return m, cmd
	}
	m.list.refresh()
	m.syncQueue()
	return m, nil
}

// activeKeys is the key map with only the keys that apply now enabled, for
// both matching and the footer.
// modeKeys are the keys of the console's mode: what activeKeys would
// enable with something selected, so that help lists every key the mode
// has, not only what applies to the row under the cursor.
func (m *Model) modeKeys() KeyMap {
	k := m.keys
	if m.view != viewMain {
		m.sessionKeys(&k)
		k.Force.SetEnabled(!m.readOnly)
		k.Enter.SetEnabled(true)
		k.Copy.SetHelp("y", "copy session id")
		return k
	}
	if m.opts.Demo != nil && m.paused {
		k.Pause.SetHelp("p", "resume")
	}
	return k
}

func (m *Model) activeKeys() KeyMap {
	k := m.keys
	row := m.list.current()
	node := m.queue.node()
	rw := !m.readOnly
	k.Enter.SetEnabled(row != nil && m.focus != focusLog)
	if m.focus == focusQueue {
		k.Enter.SetHelp("enter", "node details")
		k.Enter.SetEnabled(node != nil)
	} else {
		k.Enter.SetHelp("enter", "open queue")
	}
	k.Take.SetEnabled(rw && row != nil && !m.ownActive(row.path))
	k.Release.SetEnabled(rw && len(m.own) > 0)
	// A plain ephemeral lock's rows are shown, not acted on: its waiters
	// own no node, and its node has no sequence to confirm a force with.
	acts := node != nil && node.Recipe != lockops.RecipeEphemeral
	k.Revoke.SetEnabled(rw && acts && node.Believes == lockops.RoleHolder)
	k.Force.SetEnabled(rw && acts)
	k.Clear.SetEnabled(m.list.filter.Value() != "")
	m.sessionKeys(&k)
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

// ownActive says whether the operator holds or waits for path.
func (m *Model) ownActive(path string) bool {
	o, ok := m.own[path]
	return ok && (o.State == OwnQueued || o.State == OwnHolding || o.State == OwnSuspended)
}

func (m *Model) enter() {
	switch m.focus {
	case focusList:
		m.focus = focusQueue
	case focusQueue:
		if n := m.queue.node(); n != nil {
			m.dialog = &detailsDialog{path: m.queue.path, node: *n, ref: m.queue.ref, now: m.now}
		}
	}
}

// applyUpdate takes in a snapshot and its events.
func (m *Model) applyUpdate(u model.Update) {
	before := m.snap
	if u.Snapshot != nil {
		m.snap = u.Snapshot
	}
	for _, e := range u.Events {
		m.log.addEvent(e)
	}
	if u.Dropped > 0 {
		m.log.add(logEntry{at: m.now, kind: logFailed, text: fmt.Sprintf("%d events dropped: the console fell behind", u.Dropped)})
	}
	m.narrateSteps(u.Events, before)
	if d, ok := m.dialog.(*detailsDialog); ok {
		d.follow(m.snap, m.now)
	}
	m.rebuild()
}

// narrateSteps tells the latest step of the recipe among events. The
// narration follows the queue on screen: a step on the selected lock wins;
// a step elsewhere is told only while the narration is not yet about the
// selected lock, so that a room watching one queue is not told about
// another one mid-sentence. Only the step told is worked out.
func (m *Model) narrateSteps(events []model.Event, before *model.Snapshot) {
	sel := m.list.selected
	for _, only := range []bool{true, false} {
		if !only && m.narration != "" && m.narrationPath == sel {
			return
		}
		for i := len(events) - 1; i >= 0; i-- {
			e := events[i]
			if only && e.Path != sel {
				continue
			}
			if s := narrate(e, before, m.snap); s != "" {
				m.narration, m.narrationPath = s, e.Path
				return
			}
		}
	}
}

// applyOwn takes in progress of the operator's own locks.
func (m *Model) applyOwn(locks []OwnLock) {
	for _, o := range locks {
		prev, had := m.own[o.Path]
		if o.State == OwnReleased {
			delete(m.own, o.Path)
		} else {
			m.own[o.Path] = o
		}
		if had && prev.State == o.State && prev.Position == o.Position {
			continue
		}
		// The lock core's own time of the step: the console's clock ticks
		// once a second and would put the step before what led to it.
		at := o.Since
		if at.IsZero() {
			at = m.now
		}
		e := logEntry{at: at, kind: logYou, path: clean(o.Path, 0), text: ownState(&o, m.now, nodeRef)}
		if o.State == OwnLost || o.State == OwnSuspended {
			e.kind = logFailed
		}
		if o.Err != "" {
			e.text += " (" + clean(o.Err, 0) + ")"
		}
		m.log.add(e)
	}
	m.rebuild()
}

// rebuild recomputes everything derived from the snapshot and own locks.
func (m *Model) rebuild() {
	m.list.rebuild(m.snap, m.opts.Paths, m.own)
	m.syncQueue()
	m.syncSessions()
}

// syncQueue shows the queue of the lock selected in the list.
func (m *Model) syncQueue() {
	path := m.list.selected
	var own *OwnLock
	if o, ok := m.own[path]; ok {
		own = &o
	}
	m.queue.set(m.snap.Queue(path), path, own)
	m.fixScroll()
}

// fixScroll keeps both cursors on screen after a change of size or data.
func (m *Model) fixScroll() {
	fr := m.frame()
	m.list.scroll(m.list.rowsFor(fr.bodyH - 2))
	m.queue.scroll(m.queue.rowsFor(m.st, m.snap, fr.queueW-2, fr.bodyH-2, m.now))
}

// frame is the size of each part of the screen.
type frame struct {
	listW, queueW int
	bodyH, logH   int
}

func (m *Model) frame() frame {
	logH := 5
	switch {
	case m.height >= 40:
		logH = 10
	case m.height >= 30:
		logH = 7
	}
	fixed := 3 + len(m.narrationLines()) + m.bannerLines() // header, status bar, footer, narration, deadlock banner
	listW := min(max(m.width*33/100, min(32, m.width*40/100)), 60)
	return frame{listW: listW, queueW: m.width - listW, bodyH: max(m.height-fixed-logH, 4), logH: logH}
}

// narrationLines is the narration as drawn now: none when it is off.
func (m *Model) narrationLines() []string {
	if !m.narrate || m.width <= 0 {
		return nil
	}
	return narrationLines(m.st, m.narration, m.paused, m.width)
}

// View draws the whole screen: exactly width x height cells, no clock
// read, no I/O.
func (m Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	if w < minWidth || h < minHeight {
		return strings.Join(m.tooSmall(), "\n")
	}
	fr := m.frame()
	st := m.st
	stale := m.snap != nil && m.snap.Stale
	border := func(f focusArea) lipgloss.Style {
		switch {
		case stale:
			return st.Stale
		case m.focus == f:
			return st.FocusBorder
		}
		return st.Border
	}
	lines := make([]string, 0, h)
	lines = append(lines, headerView(st, m.opts.Title, m.snap, m.dial, m.opts.Replay != nil, w, m.now))
	if b := m.deadlockBanner(w); b != "" {
		lines = append(lines, b)
	}

	if m.view == viewSessions {
		pb := st.FocusBorder
		if stale {
			pb = st.Stale
		}
		lines = append(lines, m.sessions.view(st, pb, w, fr.bodyH, m.now, m.mark)...)
	} else {
		listTitle, listFoot := m.list.titles(st)
		left := box(border(focusList), listTitle, listFoot, m.list.view(st, fr.listW-2, fr.bodyH-2, m.now, m.focus == focusList), fr.listW, fr.bodyH)
		qTitle, qFoot, qLines := m.queue.view(st, m.snap, fr.queueW-2, fr.bodyH-2, m.now, m.focus == focusQueue)
		right := box(border(focusQueue), qTitle, qFoot, qLines, fr.queueW, fr.bodyH)
		lines = append(lines, sideBySide(left, right)...)
	}

	logFoot, logLines := m.log.view(st, w-2, fr.logH-2)
	lines = append(lines, box(border(focusLog), st.Title.Render("Events"), logFoot, logLines, w, fr.logH)...)
	lines = append(lines, m.narrationLines()...)
	switch {
	case m.dial != nil:
		lines = append(lines, m.dial.statusLine(st, m.notice, w, m.now))
	case m.opts.Replay != nil:
		lines = append(lines, replayStatus(st, m.replay, m.notice, w))
	default:
		lines = append(lines, statusView(st, m.own, m.notice, m.readOnly, m.recording, w, m.now))
	}
	lines = append(lines, m.footer(w))
	if m.dialog != nil {
		lines = overlay(lines, m.dialog.view(st, w, h), w)
	}
	return strings.Join(lines, "\n")
}

// footer is the keys that apply now; help and quit are pinned right so that
// a narrow terminal never hides them.
func (m Model) footer(w int) string {
	k := m.activeKeys().ShortHelp()
	h := helpModel(m.st, 0)
	if m.list.filtering {
		// The filter has the keyboard: only its own keys do anything.
		keys := []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		}
		return fit(" "+m.st.Muted.Render("filtering: type a path part")+"  "+h.ShortHelpView(keys), w)
	}
	right := h.ShortHelpView(k[len(k)-2:]) + " "
	room := w - ansi.StringWidth(right) - 3
	shown, cut := fitBindings(k[:len(k)-2], room-2, ansi.StringWidth(h.ShortSeparator))
	left := " " + h.ShortHelpView(shown)
	if cut {
		left += " " + m.st.Muted.Render("…")
	}
	gap := max(w-ansi.StringWidth(left)-ansi.StringWidth(right), 1)
	return fit(left+strings.Repeat(" ", gap)+right, w)
}

// fitBindings keeps the enabled bindings that fit in width cells as help
// items ("key desc", sep between). bubbles/help truncates by itself, but
// when even its ellipsis does not fit it adds the item anyway and the line
// overflows; choosing the items here keeps the footer inside the screen.
func fitBindings(bs []key.Binding, width, sep int) (shown []key.Binding, cut bool) {
	used := 0
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		w := ansi.StringWidth(b.Help().Key) + 1 + ansi.StringWidth(b.Help().Desc)
		if used > 0 {
			w += sep
		}
		if used+w > width {
			return shown, true
		}
		used += w
		shown = append(shown, b)
	}
	return shown, false
}

// tooSmall fills the screen with a request for a bigger terminal.
func (m Model) tooSmall() []string {
	out := blank(m.width, m.height)
	msg := []string{"zklock needs", fmt.Sprintf("%dx%d or more", minWidth, minHeight), fmt.Sprintf("(now %dx%d)", m.width, m.height)}
	top := max((m.height-len(msg))/2, 0)
	for i, s := range msg {
		if top+i < len(out) {
			out[top+i] = m.st.Warning.Render(fit(fitRight(s, (m.width+len(s))/2), m.width))
		}
	}
	return out
}

// OwnLocks lists the operator's locks the console knows of, by path.
func (m Model) OwnLocks() []OwnLock {
	out := make([]OwnLock, 0, len(m.own))
	for _, o := range m.own {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
