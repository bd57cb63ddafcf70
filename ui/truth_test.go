package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/ui/draw"
	"github.com/zklock/zklock/ui/locklist"
	"github.com/zklock/zklock/ui/narration"
)

// The class checks of #41: every frame agrees with the snapshot it was
// drawn from, and keys act on the rows drawn.

var truthPaths = []string{"/locks/alpha", "/locks/bravo", "/locks/charlie", "/locks/delta", "/locks/echo"}

// drawnRows is the lock list as frame v draws it: the last path
// element of each row, top to bottom, and the row under the cursor (-1
// when none).
func drawnRows(v string, listW int) (rows []string, cursor int) {
	cursor = -1
	for _, l := range strings.Split(v, "\n") {
		r := []rune(l)
		if len(r) < listW || r[0] != '│' {
			continue
		}
		cell := strings.Fields(string(r[1 : listW-1]))
		for _, f := range cell {
			if slices.Contains(truthPaths, "/locks/"+f) {
				if r[1] == '❯' {
					cursor = len(rows)
				}
				rows = append(rows, f)
				break
			}
		}
	}
	return rows, cursor
}

// lockCore plays the lock core for the operator's node: it lists the
// queue when it joins and again only when the node it watches goes, as
// lockops does, so its reports lag the snapshots in between.
type lockCore struct {
	path, node string
	watching   string
	held       bool
}

// report is what the lock core says after looking at snap, nil when it
// has nothing new (its watched node is still there).
func (lc *lockCore) report(snap *model.Snapshot, first bool) *OwnLock {
	q := snap.Queue(lc.path)
	if lc.held || q == nil || (!first && narration.FindNode(snap, lc.path, lc.watching) != nil) {
		return nil
	}
	for i, n := range q.Nodes.All() {
		if n.Name != lc.node {
			continue
		}
		if n.Role == ordering.RoleHolder {
			lc.held = true
			return &OwnLock{Path: lc.path, Node: lc.node, State: OwnHolding, Since: snap.At}
		}
		lc.watching = n.Watches()
		return &OwnLock{Path: lc.path, Node: lc.node, State: OwnQueued, Position: i + 1, Watching: lc.watching, Since: snap.At}
	}
	return nil
}

// TestFramesAgreeWithSnapshot drives random churn (built by zkview's
// queue model), the lock core's lagging reports and random keys through
// the root model as the tea.Program does (Update, then View), and checks
// every frame against the snapshot it was drawn from: the status bar's
// place and watch of the operator's node, the force dialog's and the
// details popup's node (still there or said gone, role, age); and that
// a list key acts on the rows of the frame before it, the rows moving at
// most once every holdOrder and never within holdOrder of a key.
func TestFramesAgreeWithSnapshot(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		c := newChurn(seed, truthPaths...)
		fb := &fakeBackend{}
		m := New(Options{Theme: mustTheme("mono"), Backend: fb, Now: func() time.Time { return t0 }})
		m = step(m, sizeMsg(160, 48))
		u := c.update()
		m = step(m, updateMsg{u})
		snap := u.Snapshot
		var lc *lockCore
		var lastMove, lastKey time.Time
		v := ansi.Strip(m.View())
		keys := []string{"j", "k", "down", "up", "j", "j", "tab", "enter", "esc", "f", "R", "s", "g", "G", "esc"}
		for i := range 300 {
			// The frame the key is pressed against.
			rows, cursor := drawnRows(v, m.frame().listW)
			prev := rows
			var key string
			switch r := c.rng.IntN(20); {
			case r < 8:
				c.step(time.Duration(100+c.rng.IntN(800)) * time.Millisecond)
				switch {
				case lc == nil && len(c.kids["/locks/alpha"]) >= 2:
					// The operator takes alpha behind two or more nodes.
					lc = &lockCore{path: "/locks/alpha", node: c.join("/locks/alpha", "curator", c.mine)}
				case lc != nil && lc.held && c.rng.IntN(6) == 0:
					c.leave(lc.path, lc.node)
					m = step(m, ownMsg{[]OwnLock{{Path: lc.path, Node: lc.node, State: OwnReleased, Since: c.now}}})
					lc = nil
				}
				u := c.update()
				m = step(m, updateMsg{u})
				snap = u.Snapshot
				if lc != nil {
					if o := lc.report(snap, lc.watching == "" && !lc.held); o != nil {
						m = step(m, ownMsg{[]OwnLock{*o}})
					}
				}
			case r < 11:
				m = step(m, tickMsg(c.now))
			default:
				key = keys[c.rng.IntN(len(keys))]
				if _, isForce := m.dialog.(*forceDialog); isForce && c.rng.IntN(2) == 0 {
					key = "esc"
				}
				if m.dialog == nil && m.focus == focusList && isNav(keyMsg(key), m.keys) {
					lastKey = m.now // the console's clock: it holds by it
					if c.rng.IntN(2) == 0 && len(rows) > 0 {
						// New data lands between the frame the operator
						// reads and their key: the lock drawn last grows
						// the longest queue, first by contention.
						c.now = c.now.Add(100 * time.Millisecond)
						for range 4 {
							c.join("/locks/"+rows[len(rows)-1], "curator", 0)
						}
						u := c.update()
						m, snap = step(m, updateMsg{u}), u.Snapshot
					}
				}
				m, _ = press(m, key)
			}
			v = ansi.Strip(m.View())
			where := func() string { return fmt.Sprintf("seed %d step %d key %q:\n%s", seed, i, key, v) }
			checkStatus(t, m, snap, v, where)
			checkDialog(t, m, snap, v, where)
			after, _ := drawnRows(v, m.frame().listW)
			if key != "" && m.dialog == nil && m.focus == focusList && (key == "j" || key == "down" || key == "k" || key == "up") && cursor >= 0 {
				want := cursor + 1
				if key == "k" || key == "up" {
					want = cursor - 1
				}
				want = min(max(want, 0), len(rows)-1)
				if got := m.list.Selected; got != "/locks/"+rows[want] {
					t.Fatalf("%s\n%s after frame %v (cursor on %s) selected %s, want /locks/%s", where(), key, rows, rows[cursor], got, rows[want])
				}
			}
			if moved(prev, after) && key != "s" {
				if !lastMove.IsZero() && m.now.Sub(lastMove) < locklist.HoldOrder {
					t.Fatalf("%s\nthe list moved at %s and again at %s: %v -> %v", where(), draw.Clock(lastMove), draw.Clock(m.now), prev, after)
				}
				if !lastKey.IsZero() && m.now.Sub(lastKey) < locklist.HoldOrder {
					t.Fatalf("%s\nthe list moved %s after a key: %v -> %v", where(), m.now.Sub(lastKey), prev, after)
				}
				lastMove = m.now
			}
		}
	}
}

// moved says whether two rows present in both frames changed places.
func moved(before, after []string) bool {
	var common []string
	for _, r := range after {
		if slices.Contains(before, r) {
			common = append(common, r)
		}
	}
	var was []string
	for _, r := range before {
		if slices.Contains(common, r) {
			was = append(was, r)
		}
	}
	return !slices.Equal(was, common)
}

// checkStatus: the status bar says where the operator's node stands as
// snap has it.
func checkStatus(t *testing.T, m Console, snap *model.Snapshot, v string, where func() string) {
	t.Helper()
	status := statusLine(v)
	for p, o := range m.own {
		n := narration.FindNode(snap, p, o.Node)
		switch {
		case o.State == OwnHolding:
			if !strings.Contains(status, "HOLDING since") || strings.Contains(status, "queued") {
				t.Fatalf("%s\nstatus bar of a held lock: %q", where(), status)
			}
		case o.State == OwnQueued && n != nil:
			q := snap.Queue(p)
			pos := slices.IndexFunc(q.Nodes.Slice(), func(x model.Node) bool { return x.Name == o.Node }) + 1
			want := "waiting at " + strconv.Itoa(pos)
			if n.Watches() != "" {
				want += " watching " + draw.NodeRef(n.Watches())
			}
			if !strings.Contains(status, want+" ") {
				t.Fatalf("%s\nstatus bar %q, the snapshot says %q", where(), status, want)
			}
		}
	}
}

// checkDialog: an open force dialog or details popup says of its node
// what snap says: there (its role, its age by the clock) or gone.
func checkDialog(t *testing.T, m Console, snap *model.Snapshot, v string, where func() string) {
	t.Helper()
	var path string
	var was model.Node
	switch d := m.dialog.(type) {
	case *forceDialog:
		path, was = d.path, d.node
	case *detailsDialog:
		path, was = d.path, d.node
	case *confirmDialog:
		if d.on.kind != intentRevoke {
			return
		}
		path, was = d.on.path, model.Node{Name: d.on.node, Session: d.on.session}
	default:
		return
	}
	n := narration.FindNode(snap, path, was.Name)
	_, seq := model.ConfirmToken(was.Name)
	if n != nil && n.Session != was.Session {
		n = nil // a node of the same name, made again: not the dialog's
	}
	if n == nil {
		if !strings.Contains(v, "#"+seq+" is already gone") && !strings.Contains(v, "DELETED: this node is gone") {
			t.Fatalf("%s\nthe dialog's node #%s is gone, the dialog does not say so", where(), seq)
		}
		return
	}
	if strings.Contains(v, "already gone") || strings.Contains(v, "DELETED") {
		t.Fatalf("%s\nthe dialog says #%s is gone; the snapshot has it", where(), seq)
	}
	switch m.dialog.(type) {
	case *forceDialog:
		want := "waiting in line"
		if n.Role == ordering.RoleHolder || n.Believes == ordering.RoleHolder {
			want = "HOLDER for " + draw.Since(m.now, n.Since())
		}
		if !strings.Contains(v, "Role      "+want) {
			t.Fatalf("%s\nthe force dialog's role is not %q", where(), want)
		}
	case *detailsDialog:
		for _, want := range []string{"(" + draw.Since(m.now, n.Ctime()) + " ago)", "Role       " + n.Role.String() + " by sequence"} {
			if !strings.Contains(v, want) {
				t.Fatalf("%s\nthe details popup lacks %q", where(), want)
			}
		}
	}
}
