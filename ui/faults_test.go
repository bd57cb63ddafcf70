package ui

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/zklock/zklock/fourletter"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/third_party/zk"
	"github.com/zklock/zklock/zkview"
	"github.com/zklock/zklock/zkview/layouts"
)

// The console fed by a real zkview Watcher on a real ensemble while
// things go wrong: what the operator reads must follow (a handoff after a
// holder's expiry; stale since T; session expired, re-syncing; connected
// again), and hostile trees must draw sanely. The model is driven as Run
// drives it (updates as messages, the clock as ticks), without a terminal.

// faultTimeout is the sessions' timeout in these tests: a 300 ms cut stays
// a suspension, a cut past it costs seconds.
const faultTimeout = 4 * time.Second

// liveConsole is a Model fed by a Watcher's updates.
type liveConsole struct {
	t    *testing.T
	m    Console
	w    *zkview.Watcher
	w_   int
	h    int
	seen int // updates applied
}

func newLiveConsole(t *testing.T, s *lockops.Session, paths []string, w, h int) *liveConsole {
	t.Helper()
	// The systems' recognisers on, as the console runs them (cmd/console.go).
	zw, err := zkview.Watch(context.Background(), s, zkview.Options{Paths: paths, Systems: layouts.New})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(zw.Close)
	m := New(Options{Theme: mustTheme("mono"), Paths: paths, Backend: &fakeBackend{}})
	m = step(m, sizeMsg(w, h))
	return &liveConsole{t: t, m: m, w: zw, w_: w, h: h}
}

// waitView applies updates (and ticks the clock) until cond holds for the
// plain-text view, failing after d with the last screen.
func (c *liveConsole) waitView(d time.Duration, desc string, cond func(view string) bool) string {
	c.t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case u, ok := <-c.w.Updates():
			if !ok {
				c.t.Fatalf("waiting for %s: the watcher closed its updates", desc)
			}
			noFalseAlarm(c.t, u)
			c.m = step(c.m, updateMsg{u})
			c.seen++
		case <-tick.C:
		case <-deadline.C:
			c.t.Fatalf("timed out after %v waiting for %s; screen:\n%s", d, desc, ansi.Strip(c.m.View()))
		}
		c.m = step(c.m, tickMsg(time.Now()))
		view := ansi.Strip(c.m.View())
		checkFrame(c.t, view, c.w_, c.h)
		if cond(view) {
			return view
		}
	}
}

// noFalseAlarm fails on a system named, or a leader-mismatch raised, in
// u: these tests plant no system's layout, whatever the faults do.
func noFalseAlarm(t *testing.T, u model.Update) {
	t.Helper()
	if u.Snapshot != nil {
		for _, q := range u.Snapshot.Queues.All() {
			if q.System() != "" || q.Label() != "" {
				t.Errorf("%s recognised as %s %q", q.Path, q.System(), q.Label())
			}
			for _, w := range q.Warnings() {
				if w.Code == model.WarnLeaderMismatch {
					t.Errorf("%s raised %s: %s", q.Path, w.Code, w.Message)
				}
			}
		}
	}
	for _, e := range u.Changes {
		if e.Warning.Code == model.WarnLeaderMismatch {
			t.Errorf("event on %s: %s", e.Path, e.Text())
		}
	}
}

// holderRows counts the queue pane's holder rows (the lock list's
// column heading says HOLDER too, without a session).
func holderRows(view string) int {
	n := 0
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, " HOLDER ") && strings.Contains(l, " 0x") {
			n++
		}
	}
	return n
}

// lineWith reports whether one line of view holds every part.
func lineWith(view string, parts ...string) bool {
	for _, l := range strings.Split(view, "\n") {
		ok := true
		for _, p := range parts {
			if !strings.Contains(l, p) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

type proxies []*sandbox.Proxy

func newProxies(t *testing.T, c *sandbox.Cluster) proxies {
	t.Helper()
	var ps proxies
	for _, a := range c.Servers() {
		p, err := sandbox.NewProxy(a)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		ps = append(ps, p)
	}
	return ps
}

func (ps proxies) addrs() []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Addr())
	}
	return out
}

func (ps proxies) cut() {
	for _, p := range ps {
		p.Cut()
	}
}

func (ps proxies) restore() {
	for _, p := range ps {
		p.Restore()
	}
}

func connectT(t *testing.T, servers []string) *lockops.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := lockops.Connect(ctx, servers, lockops.WithSessionTimeout(faultTimeout))
	if err != nil {
		t.Fatalf("connect (ZooKeeper from sandbox: make deps): %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestConsoleUnderFaults: a holder's link is cut past its session
// timeout; the console shows the waiter holding and the handoff in the
// event log. Then the Watcher's own link: a short cut shows DISCONNECTED
// since T, data STALE, then connected again; a cut past its timeout shows
// SESSION EXPIRED, re-syncing, then a new session, the truth on screen.
func TestConsoleUnderFaults(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Members: 3, TickTime: 100 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p := fmt.Sprintf("/ui-faults/job-%d", time.Now().UnixNano())

	holderLinks := newProxies(t, c)
	holder := lockops.NewLock(connectT(t, holderLinks.addrs()), p)
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	ws := connectT(t, c.Servers())
	waiter := lockops.NewLock(ws, p)
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(ctx) }()

	monLinks := newProxies(t, c)
	mon := connectT(t, monLinks.addrs())
	con := newLiveConsole(t, mon, []string{p}, 200, 40)
	wsess := fmt.Sprintf("0x%x", ws.ID())
	con.waitView(15*time.Second, "holder and waiter on screen", func(v string) bool {
		return lineWith(v, "HOLDER") && lineWith(v, "waiting", wsess) && strings.Contains(v, "● connected")
	})

	// 1. The holder's link stays cut past its session timeout.
	cutAt := time.Now()
	holderLinks.cut()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * faultTimeout):
		t.Fatal("the waiter never held")
	}
	select {
	case <-holder.Done():
	default:
		t.Fatal("the waiter holds but the cut holder's Done is still open")
	}
	view := con.waitView(10*time.Second, "the waiter holding, the handoff logged", func(v string) bool {
		return lineWith(v, "HOLDER", wsess) && !lineWith(v, "waiting") && lineWith(v, "handoff", p)
	})
	t.Logf("handoff on screen %v after the cut", time.Since(cutAt).Round(time.Millisecond))
	if n := holderRows(view); n != 1 {
		t.Errorf("%d holder rows on screen:\n%s", n, view)
	}
	holderLinks.restore()

	// 2. The Watcher's link cut briefly: stale since the cut, then back.
	cutAt = time.Now()
	monLinks.cut()
	view = con.waitView(faultTimeout, "DISCONNECTED since T, STALE", func(v string) bool {
		return strings.Contains(v, "DISCONNECTED since") && strings.Contains(v, "STALE")
	})
	since := regexp.MustCompile(`DISCONNECTED since (\d\d:\d\d:\d\d)`).FindStringSubmatch(view)
	// The Watcher notices a cut link at once (the proxy closes it); a
	// loaded machine may take a moment to say so.
	near := false
	for d := time.Duration(0); d <= 3*time.Second; d += time.Second {
		near = near || since != nil && since[1] == cutAt.Add(d).Format("15:04:05")
	}
	if !near {
		t.Errorf("stale since %v, the link was cut at %s", since, cutAt.Format("15:04:05"))
	}
	if !lineWith(view, "HOLDER", wsess) {
		t.Errorf("the stale screen lost the queue:\n%s", view)
	}
	faultPause(ctx, 300*time.Millisecond)
	monLinks.restore()
	con.waitView(2*faultTimeout, "connected again", func(v string) bool {
		return strings.Contains(v, "● connected") && lineWith(v, "reconnected") && lineWith(v, "HOLDER", wsess)
	})

	// 3. The Watcher's link cut past its session timeout.
	first := mon.ID()
	monLinks.cut()
	con.waitView(2*faultTimeout, "SESSION EXPIRED", func(v string) bool {
		return strings.Contains(v, "SESSION EXPIRED") && lineWith(v, "HOLDER", wsess)
	})
	// Changes while the Watcher is away: the holder lets go.
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
	eventuallyGone(t, ctx, c, first)
	monLinks.restore()
	view = con.waitView(30*time.Second, "a new session, re-synced", func(v string) bool {
		return strings.Contains(v, "● connected") && lineWith(v, "new session") && holderRows(v) == 0 &&
			mon.ID() != first
	})
	if strings.Contains(view, "STALE") {
		t.Errorf("still stale after the re-sync:\n%s", view)
	}
}

// eventuallyGone waits until the ensemble's leader no longer lists
// session id (it expired it).
func eventuallyGone(t *testing.T, ctx context.Context, c *sandbox.Cluster, id int64) {
	t.Helper()
	deadline := time.Now().Add(3 * faultTimeout)
	for time.Now().Before(deadline) {
		if leader, err := c.Leader(ctx); err == nil {
			out, err := fourletter.Ask(ctx, c.Servers()[leader], "dump")
			if err == nil && !strings.Contains(out, fmt.Sprintf("0x%x", id)) {
				return
			}
		}
		faultPause(ctx, 50*time.Millisecond)
	}
	t.Fatalf("the servers still list session 0x%x after %v", id, 3*faultTimeout)
}

func faultPause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// TestConsoleHostileTrees: real trees a buggy or malicious client can
// make, watched by zkview and drawn by the console: data of a megabyte,
// binary, terminal escapes; names with deceptive characters; 10,000
// children; non-lock children; a parent the Watcher may not read; a
// parent replaced while watched. Each selected and drawn at two sizes,
// its details and force dialogs open: no raw control reaches the screen,
// the frame holds, and the 10,000-node queue draws quickly.
func TestConsoleHostileTrees(t *testing.T) {
	withProfile(t, termenv.TrueColor)
	c := sandboxtest.Start(t, sandbox.Options{TickTime: 100 * time.Millisecond})
	raw := sandboxtest.Connect(t, c.Servers(), faultTimeout)
	base := fmt.Sprintf("/ui-hostile-%d", time.Now().UnixNano())
	open := zk.WorldACL(zk.PermAll)
	mk := func(p string, data []byte, flags int32, acl []zk.ACL) string {
		t.Helper()
		got, err := raw.Create(p, data, flags, acl)
		if err != nil {
			t.Fatalf("create %q: %v", p, err)
		}
		return got
	}
	mk(base, nil, 0, open)
	seq := int32(zk.FlagEphemeral | zk.FlagSequence)

	data := base + "/data"
	mk(data, nil, 0, open)
	esc := []byte("\x1b]0;pwned\a\x1b]52;c;cm0gLXJmIH4=\a\x1b[2J\x1b[H\x1b[5m\xc2\x9b31m\u202eevil\xff")
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	mk(data+"/x-escapes-", esc, seq, open)
	mk(data+"/x-binary-", all, seq, open)
	mk(data+"/x-megabyte-", bytes.Repeat(append(slices.Clone(esc), all...), 1_000_000/(len(esc)+256)+1)[:1_000_000], seq, open)
	mk(data+"/leases", esc, 0, open)

	names := base + "/names"
	mk(names, nil, 0, open)
	for _, n := range []string{
		"x-\u202eevil\u202c-",                      // bidi override
		"x-" + strings.Repeat("\u0301", 120) + "-", // combining marks only
		"x-世界世界世界世界世界世界世界世界世界世界世界-",                // wide
		"x-\u200b\u200d\ufeff\u2028\u00ad-",        // invisible, a line separator
		"_c_\u202e-lock-",                          // a Curator-looking name that is not one
		"x-" + strings.Repeat("W", 300) + "-",      // long
	} {
		mk(names+"/"+n, []byte(n), seq, open)
	}
	for _, n := range []string{"\u202eleases", "locks\u2028", "lock-\uff10\uff11"} {
		mk(names+"/"+n, nil, 0, open)
	}

	big := base + "/big"
	mk(big, nil, 0, open)
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		fail atomic.Value
	)
	for range 32 {
		wg.Go(func() {
			for next.Add(1) <= 10000 {
				if _, err := raw.Create(big+"/lock-", esc, seq, open); err != nil {
					fail.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := fail.Load(); err != nil {
		t.Fatal(err)
	}

	noauth := base + "/noauth"
	if err := raw.AddAuth("digest", []byte("owner:secret")); err != nil {
		t.Fatal(err)
	}
	mk(noauth, nil, 0, zk.DigestACL(zk.PermAll, "owner", "secret"))

	replaced := base + "/replaced"
	mk(replaced, nil, 0, open)
	mk(replaced+"/lock-", []byte("old"), seq, open)

	paths := []string{data, names, big, noauth, replaced}
	con := newLiveConsole(t, connectT(t, c.Servers()), paths, 160, 48)
	con.waitView(60*time.Second, "every path read", func(v string) bool {
		s := con.m.snap
		if s == nil {
			return false
		}
		if s.Queues.Len() != len(paths) {
			return false
		}
		for _, q := range s.Queues.All() {
			if q.State == model.PathPending || q.Path == big && q.Nodes.Len() != 10000 {
				return false
			}
		}
		return true
	})
	// The replacement, while watched.
	if _, err := raw.Multi(
		&zk.DeleteRequest{Path: replaced + "/lock-0000000000", Version: -1},
		&zk.DeleteRequest{Path: replaced, Version: -1},
		&zk.CreateRequest{Path: replaced, Acl: open},
		&zk.CreateRequest{Path: replaced + "/x-\x1b[2J-", Data: esc, Acl: open, Flags: seq},
	); err == nil {
		t.Errorf("the server accepted ESC in a name")
	}
	if _, err := raw.Multi(
		&zk.DeleteRequest{Path: replaced + "/lock-0000000000", Version: -1},
		&zk.DeleteRequest{Path: replaced, Version: -1},
		&zk.CreateRequest{Path: replaced, Acl: open},
		&zk.CreateRequest{Path: replaced + "/x-\u202enew-", Data: esc, Acl: open, Flags: seq},
	); err != nil {
		t.Fatal(err)
	}
	con.waitView(10*time.Second, "the replaced parent's new node", func(string) bool {
		for _, q := range con.m.snap.Queues.All() {
			if q.Path == replaced {
				return q.Nodes.Len() == 1 && strings.HasPrefix(q.Nodes.At(0).Name, "x-\u202enew-")
			}
		}
		return false
	})

	// Each path drawn as what it is.
	marks := map[string]string{data: `\x1b]52`, names: `\u202e`, big: "10000 nodes", noauth: "NoAuth", replaced: `x-\u202enew-`}
	for _, p := range paths {
		m := selectPath(step(con.m, sizeMsg(200, 48)), p)
		if m, _ = press(m, "tab"); !strings.Contains(ansi.Strip(m.View()), marks[p]) {
			t.Errorf("%s: %q not on screen:\n%s", p[len(base):], marks[p], ansi.Strip(m.View()))
		}
	}
	for _, p := range paths {
		for _, size := range [][2]int{{160, 48}, {80, 24}} {
			m := selectPath(step(con.m, sizeMsg(size[0], size[1])), p)
			for _, keys := range [][]string{nil, {"tab"}, {"tab", "enter"}, {"tab", "f"}, {"tab", "G"}, {"tab", "G", "enter"}} {
				mm, _ := press(m, keys...)
				// A frame's cost is BenchmarkViewHostile10k's.
				where := fmt.Sprintf("%s at %dx%d after %v", p[len(base):], size[0], size[1], keys)
				checkScreen(t, where, mm.View(), size[0], size[1])
			}
		}
	}
}

// checkScreen: the frame holds and, once the console's own SGR styling is
// taken out, nothing but printable characters and line breaks remains.
func checkScreen(t *testing.T, where, view string, w, h int) {
	t.Helper()
	checkFrame(t, ansi.Strip(view), w, h)
	rest := sgr.ReplaceAllString(view, "")
	for i, r := range rest {
		if r == '\n' || unicode.IsGraphic(r) {
			continue
		}
		t.Errorf("%s: %U reaches the screen raw, near %q", where, r, rest[max(i-30, 0):min(i+30, len(rest))])
		return
	}
}
