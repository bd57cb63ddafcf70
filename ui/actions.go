package ui

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/draw"
	"github.com/zklock/zklock/ui/eventlog"
)

// take starts acquiring the selected lock, asking read or write first on a
// read/write queue.
func (m Console) take() (tea.Model, tea.Cmd) {
	row := m.list.Current()
	if row == nil {
		return m, nil
	}
	if q := m.snap.Queue(row.Path); q != nil {
		if why := notALock(q); why != "" {
			m.notice = notice{text: why, failed: true}
			return m, nil
		}
		for _, n := range q.Nodes.All() {
			if k := n.Kind; k == ordering.KindRead || k == ordering.KindWrite {
				m.dialog = &takeDialog{path: row.Path}
				return m, nil
			}
		}
	}
	return m, m.perform(intent{kind: intentTake, path: row.Path, lockKind: ordering.KindMutex})
}

// notALock says why the operator may not take q, "" when they may: a
// lock node of ours in a system's election or in a recipe that is no
// lock (a barrier, a queue, a group) would join or corrupt what the
// system or library does there, never pause it.
func notALock(q *model.Queue) string {
	what := ""
	switch {
	case q.System() != "":
		what = draw.Clean(q.Label(), 40)
	case q.Type >= model.TypeBarrier:
		what = "a " + q.Type.String()
	default:
		return ""
	}
	return draw.CleanLeft(q.Path, 50) + " is " + what + ", not a lock: zklock takes locks and semaphores only"
}

// release gives up the operator's lock on the selected path, or the only
// lock they have when the selection is elsewhere.
func (m Console) release() (tea.Model, tea.Cmd) {
	path := ""
	if row := m.list.Current(); row != nil {
		if _, ok := m.own[row.Path]; ok {
			path = row.Path
		}
	}
	if path == "" && len(m.own) == 1 {
		for p := range m.own {
			path = p
		}
	}
	if path == "" {
		m.notice = notice{text: "select the lock to release (you have several)", failed: true}
		return m, nil
	}
	m.notice = notice{text: "releasing " + draw.CleanLeft(path, 50) + "…"}
	b := m.opts.Backend
	return m, backendCall(m.ctx, m.opts.Now, "release", path, "", func(ctx context.Context) error { return b.Release(ctx, path) })
}

// askRevoke asks before asking the selected holder to let go.
func (m *Console) askRevoke() {
	n := m.queue.Node()
	if n == nil {
		return
	}
	ref := m.queue.Ref(n.Name)
	client := draw.Clean(n.Client(), 40)
	if client == "" {
		client = "unknown client"
	}
	m.dialog = &confirmDialog{
		title: "REVOKE " + ref,
		body: []string{
			"Ask holder " + ref + " (session " + draw.Session(n.Session) + ", " + client + ") to release " + draw.CleanLeft(m.queue.Path, 50) + "?",
			"This writes __REVOKE__ into its node (Curator's revocation protocol). Only a holder that listens for revocation lets go; others ignore it and keep the lock.",
		},
		yes: "revoke",
		on:  intent{kind: intentRevoke, path: m.queue.Path, node: n.Name, session: n.Session},
	}
}

// askForce opens the typed confirmation for deleting the selected node.
func (m *Console) askForce() {
	if n := m.queue.Node(); n != nil {
		m.dialog = newForceDialog(m.queue.Path, n, m.now)
	}
}

// quit leaves at once, or asks first when the operator holds or waits for
// a lock (Run releases them on the way out).
func (m Console) quit() (tea.Model, tea.Cmd) {
	var active []string
	for _, o := range m.own.sorted() {
		if m.own.active(o.Path) {
			active = append(active, draw.CleanLeft(o.Path, 40))
		}
	}
	// A take still in flight may already have queued a node.
	var pending []string
	for p, t := range m.taking {
		if !t.answered && !m.own.active(p) {
			pending = append(pending, draw.CleanLeft(p, 40))
		}
	}
	sort.Strings(pending)
	active = append(active, pending...)
	if len(active) == 0 {
		return m, tea.Quit
	}
	what := "the lock on " + active[0]
	if len(active) > 1 {
		what = "locks on " + strings.Join(active, ", ")
	}
	m.dialog = &confirmDialog{
		title: "QUIT",
		body:  []string{"You hold or wait for " + what + ".", "Quitting releases it first; jobs waiting for it will proceed."},
		yes:   "release and quit",
		on:    intent{kind: intentQuit},
		loud:  true,
	}
	return m, nil
}

// perform turns a dialog's intent into a command. Every intent but quit
// writes to ZooKeeper: a console that is read-only (or has no Backend)
// refuses it, whichever dialog asked (one opened before the console
// turned read-only included).
func (m *Console) perform(it intent) tea.Cmd {
	switch it.kind {
	case intentNone:
		return nil
	case intentQuit:
		return tea.Quit
	}
	b := m.opts.Backend
	if b == nil || m.readOnly {
		m.notice = notice{text: "read-only: " + it.kind.verb() + " is refused", failed: true}
		return nil
	}
	switch it.kind {
	case intentTake:
		m.notice = notice{text: "taking " + draw.CleanLeft(it.path, 50) + " (" + it.lockKind.String() + ")…"}
		m.taking[it.path] = &pendingTake{}
		return backendCall(m.ctx, m.opts.Now, "take", it.path, "", func(ctx context.Context) error { return b.Take(ctx, it.path, it.lockKind) })
	case intentRevoke:
		m.notice = notice{text: "revoking " + draw.NodeRef(it.node) + "…"}
		return backendCall(m.ctx, m.opts.Now, "revoke", it.path, it.node, func(ctx context.Context) error { return b.Revoke(ctx, it.path, it.node) })
	case intentForceSession:
		// One Backend call per node, each with its owner check and its
		// audit entry, one after the other in the order confirmed.
		m.notice = notice{text: "force-releasing " + draw.Plural(len(it.targets), "node") + " of session " + draw.Session(it.session) + "…"}
		cmds := make([]tea.Cmd, 0, len(it.targets))
		for _, t := range it.targets {
			cmds = append(cmds, backendCall(m.ctx, m.opts.Now, "force-release", t.path, t.node, func(ctx context.Context) error {
				return b.ForceRelease(ctx, t.path, t.node, it.session)
			}))
		}
		return tea.Sequence(cmds...)
	case intentForce:
		m.notice = notice{text: "force-releasing " + draw.NodeRef(it.node) + "…"}
		return backendCall(m.ctx, m.opts.Now, "force-release", it.path, it.node, func(ctx context.Context) error {
			return b.ForceRelease(ctx, it.path, it.node, it.session)
		})
	}
	return nil
}

// backendCall runs one Backend call as a command, bounded by
// actionTimeout under parent, and reports its outcome (at now()) as an
// actionMsg.
func backendCall(parent context.Context, now func() time.Time, verb, path, node string, fn func(context.Context) error) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(parent, actionTimeout)
		defer cancel()
		err := fn(ctx)
		return actionMsg{verb: verb, path: path, node: node, err: err, at: now()}
	}
}

// applyAction records the outcome of a Backend call.
func (m *Console) applyAction(a actionMsg) {
	what := a.verb + " " + draw.CleanLeft(a.path, 50)
	verb := a.verb
	if a.node != "" {
		what = a.verb + " " + draw.NodeRef(a.node) + " on " + draw.CleanLeft(a.path, 50)
		verb += " " + draw.NodeRef(a.node)
	}
	at := a.at
	if at.IsZero() {
		at = m.now
	}
	if a.err != nil {
		if a.verb == "take" {
			delete(m.taking, a.path)
		}
		cause := actionCause(a.err)
		m.notice = notice{text: what + ": " + cause, failed: true}
		m.log.Add(eventlog.Entry{At: at, Kind: eventlog.Failed, Path: draw.Clean(a.path, 0), Text: verb + ": " + cause})
		return
	}
	if a.verb == "take" {
		m.tookAnswer(a.path, at)
		return
	}
	m.notice = notice{text: what + ": done"}
	m.log.Add(eventlog.Entry{At: at, Kind: eventlog.You, Path: draw.Clean(a.path, 0), Text: verb + " done"})
	if a.verb == "release" {
		// The lock core may not report Released for a lock already lost.
		delete(m.own, a.path)
		delete(m.taking, a.path)
		m.rebuild()
	}
}

// tookAnswer logs a take's answer, which returns once the node is
// queued: holding is the lock core's to say (applyOwn), not this
// answer's. It goes before the lock core's first report of the lock,
// whichever came first; the status bar says "queued" only until the lock
// core reports (its own segment then says where the lock stands).
func (m *Console) tookAnswer(path string, at time.Time) {
	e := eventlog.Entry{At: at, Kind: eventlog.You, Path: draw.Clean(path, 0), Text: "take queued"}
	t := m.taking[path]
	switch {
	case t == nil:
		m.log.Add(e)
	case !t.reported.IsZero():
		e.At = t.reported
		m.log.AddFirst(e)
		delete(m.taking, path)
	default:
		t.answered, t.loggedAt = true, at
		m.log.Add(e)
	}
	m.notice = notice{}
	if _, reported := m.own[path]; !reported {
		m.notice = notice{text: "take " + draw.CleanLeft(path, 50) + ": queued", take: path}
	}
}

// applyOwn takes in the lock core's reports of the operator's locks: the
// event log gets the steps that moved (after the take's answer, see
// pendingTake), and a take's notice gives way to what the lock core says.
func (m *Console) applyOwn(locks []OwnLock) {
	for _, l := range locks {
		for _, e := range m.own.take([]OwnLock{l}, m.now) {
			if t := m.taking[l.Path]; t != nil {
				switch {
				case t.answered:
					e.At = later(e.At, t.loggedAt)
					delete(m.taking, l.Path)
				case t.reported.IsZero():
					t.reported = e.At
				}
			}
			m.log.Add(e)
		}
		if m.notice.take == l.Path {
			m.notice = notice{}
		}
	}
	m.rebuild()
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// enter opens the selected lock's queue, or the selected node's details.
func (m *Console) enter() {
	switch m.focus {
	case focusList:
		// The queue is drawn already: say that the keys went to it.
		m.focus = focusQueue
		if row := m.list.Current(); row != nil {
			m.notice = notice{text: "in the queue of " + draw.CleanLeft(row.Path, 50) + ": ↑/↓ choose a node, enter shows it, tab moves on"}
		}
	case focusQueue:
		if n := m.queue.Node(); n != nil {
			m.dialog = &detailsDialog{followedNode: followedNode{path: m.queue.Path, node: *n, now: m.now}, ref: m.queue.Ref}
		}
	}
}

// present runs the presenter's key as a command on Options.Demo. Kill and
// split act on the lock selected in the list (the queue pane shows the
// same lock).
func (m *Console) present(msg tea.KeyMsg, k KeyMap) tea.Cmd {
	d := m.opts.Demo
	if d == nil {
		return nil
	}
	path := ""
	if row := m.list.Current(); row != nil {
		path = row.Path
	}
	switch {
	case key.Matches(msg, k.Pause):
		return demoCall(m.ctx, "pause", "", d.Pause)
	case key.Matches(msg, k.Step):
		return demoCall(m.ctx, "step", "", d.Step)
	case key.Matches(msg, k.Kill):
		m.notice = notice{text: "killing the client holding " + draw.CleanLeft(path, 50) + "…"}
		return demoCall(m.ctx, "kill", path, func(ctx context.Context) (string, error) { return d.Kill(ctx, path) })
	case key.Matches(msg, k.Split):
		m.notice = notice{text: "making a split-holders queue on " + draw.CleanLeft(path, 50) + "…"}
		return demoCall(m.ctx, "split", path, func(ctx context.Context) (string, error) { return d.Split(ctx, path) })
	}
	return nil
}

// applyDemo shows the outcome in the status bar and the event log, and
// follows the contenders' paused state.
func (m *Console) applyDemo(d demoMsg) {
	if d.err != nil {
		cause := actionCause(d.err)
		m.notice = notice{text: d.verb + ": " + cause, failed: true}
		m.log.Add(eventlog.Entry{At: m.now, Kind: eventlog.Failed, Path: draw.Clean(d.path, 0), Text: d.verb + ": " + cause})
		return
	}
	switch d.verb {
	case "pause":
		m.paused = !m.paused
	case "step":
		m.paused = true
	}
	text := draw.Clean(d.text, 0)
	if text == "" {
		text = d.verb + " done"
	}
	m.notice = notice{text: text}
	m.log.Add(eventlog.Entry{At: m.now, Kind: eventlog.Demo, Path: draw.Clean(d.path, 0), Text: text})
	// The narration line may now need a row, or give one back.
	m.fixScroll()
}

// toggleSessions opens the sessions pane, or goes back to the main view.
func (m *Console) toggleSessions() {
	if m.view == viewSessions {
		m.view = viewMain
		return
	}
	m.view = viewSessions
	m.sessions.Set(m.snap)
	m.sessions.Move(0, m.sessions.TableRows(m.frame().bodyH))
}

// showSessionInQueues marks the selected session's nodes in every queue
// (the first session of a selected cycle) and shows the first lock it
// holds or waits on.
func (m *Console) showSessionInQueues() {
	var id int64
	var first string
	if d := m.sessions.Deadlock(); d != nil {
		id = d.Sessions[0]
		first = d.Waits[0].Path
	} else if s := m.sessions.Session(); s != nil {
		id = s.Session
		if len(s.Holds) > 0 {
			first = s.Holds[0].Path
		} else if len(s.Waits) > 0 {
			first = s.Waits[0].Path
		}
	}
	if id == 0 {
		return
	}
	m.mark = id
	m.view = viewMain
	if first != "" {
		m.list.Filter.Reset()
		m.list.Selected = first
		m.list.Refresh()
	}
	m.focus = focusQueue
	m.rebuild()
	m.notice = notice{text: "◆ marks the nodes of session " + draw.Session(id) + " in every queue (esc clears)"}
}

// askForceSession opens the typed confirmation for deleting every node of
// the selected session; read-only consoles refuse.
func (m *Console) askForceSession() {
	s := m.sessions.Session()
	if s == nil {
		return
	}
	if m.readOnly {
		m.notice = notice{text: "read-only: force-release is refused", failed: true}
		return
	}
	if d := newSessionForceDialog(s, m.now); d != nil {
		m.dialog = d
	}
}

// actionCause is why a Backend call failed, in the operator's words. The
// status bar and the log name the action, its node and its lock already,
// so the error's own prefixes (the action again, a package's name, the
// node's path) are not said twice; the lock core's sentinels are told as
// what happened to the node. Sanitized.
func actionCause(err error) string {
	switch {
	case errors.Is(err, ordering.ErrNoNode):
		return "already gone (released, or its session ended): nothing done"
	case errors.Is(err, ordering.ErrOwnerChanged):
		return "nothing deleted: another session owns it now" + detailAfter(err, ordering.ErrOwnerChanged)
	case errors.Is(err, ordering.ErrNotLockNode):
		return "not a lock node" + detailAfter(err, ordering.ErrNotLockNode)
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer within " + actionTimeout.String() + ": the servers may still carry it out"
	}
	return draw.Clean(dropPrefixes(err.Error()), 0)
}

// detailAfter is what err's text says after sentinel's (" (owned by
// session 0x1, not 0x2)"), "" when nothing.
func detailAfter(err, sentinel error) string {
	msg := err.Error()
	i := strings.Index(msg, sentinel.Error())
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(msg[i+len(sentinel.Error()):], ": ")
	if rest == "" || strings.HasPrefix(rest, "/") {
		return "" // the node's path: named already
	}
	return " (" + draw.Clean(rest, 0) + ")"
}

// dropPrefixes drops the leading "word: " and "word /path: " parts of an
// error's text, which name a package ("lockops: ", "zk: ") or the action
// and its path again ("take /locks/a: "): what is left says what went
// wrong.
func dropPrefixes(msg string) string {
	for {
		head, rest, ok := strings.Cut(msg, ": ")
		if !ok || rest == "" {
			return msg
		}
		word, arg, hasArg := strings.Cut(head, " ")
		if strings.ContainsAny(word, " /") || word != strings.ToLower(word) || hasArg && (!strings.HasPrefix(arg, "/") || strings.Contains(arg, " ")) {
			return msg
		}
		msg = rest
	}
}
