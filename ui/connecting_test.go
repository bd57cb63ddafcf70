package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/model"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

var ensemble = []string{"zk1.prod:2181", "zk2.prod:2181", "zk3.prod:2181"}

// connectingTest is a console started before its session is open, the
// clock at t0 + elapsed (the ticks bring it), sized w x h.
func connectingTest(w, h int, elapsed time.Duration, opts ...func(*Options)) (Console, chan Connected) {
	ch := make(chan Connected, 1)
	o := Options{
		Theme: mustTheme("dark"), Paths: []string{"/locks/job-a", "/locks/orders"},
		Connect: ch, Servers: ensemble, ConnectTimeout: 10 * time.Second,
		Now: func() time.Time { return t0 },
	}
	for _, f := range opts {
		f(&o)
	}
	m := step(New(o), sizeMsg(w, h))
	return step(m, tickMsg(t0.Add(elapsed))), ch
}

// The console draws at once while connecting: the header names the
// servers as given and the time elapsed, from the ticks.
func TestConnectingGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		name := fmt.Sprintf("connecting-dark-%dx%d", sz[0], sz[1])
		t.Run(name, func(t *testing.T) {
			m, _ := connectingTest(sz[0], sz[1], 3*time.Second)
			got := ansi.Strip(m.View())
			checkFrame(t, got, sz[0], sz[1])
			header := strings.SplitN(got, "\n", 2)[0]
			if !strings.Contains(header, "◌ connecting to zk1.prod:2181, zk2.prod:2181") || !strings.Contains(header, "… (3s)") {
				t.Errorf("header %q does not say whom it connects to and for how long", header)
			}
			matchGolden(t, name, got)
		})
	}
}

// The elapsed time moves with the ticks only; a long server list is cut,
// the elapsed time is not; every size keeps the frame.
func TestConnectingElapsedAndSizes(t *testing.T) {
	m, _ := connectingTest(100, 30, 0)
	if h := headerLine(m); !strings.Contains(h, "(0s)") {
		t.Errorf("first frame: %q", h)
	}
	m = step(m, tickMsg(t0.Add(12*time.Second)))
	if h := headerLine(m); !strings.Contains(h, "(12s)") {
		t.Errorf("after 12s: %q", h)
	}
	if s := ansi.Strip(m.View()); !strings.Contains(s, "12s so far, giving up after 10s") {
		t.Errorf("status line lacks the elapsed time and the timeout:\n%s", s)
	}
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf("zookeeper-%02d.eu-west-1.internal:2181", i)
	}
	for _, w := range []int{60, 80, 120, 200} {
		m, _ := connectingTest(w, 24, 7*time.Second, func(o *Options) { o.Servers = many })
		h := headerLine(m)
		if !strings.Contains(h, "connecting to zookeeper-00") || !strings.Contains(h, "… (7s)") {
			t.Errorf("%d columns: header %q", w, h)
		}
		checkFrame(t, ansi.Strip(m.View()), w, 24)
	}
}

func headerLine(m Console) string { return strings.SplitN(ansi.Strip(m.View()), "\n", 2)[0] }

// Server names reach the screen through the sanitizer.
func TestConnectingHostileServers(t *testing.T) {
	m, _ := connectingTest(160, 48, time.Second, func(o *Options) { o.Servers = []string{"zk1:2181\x1b]0;pwned\a\u202e"} })
	rest := sgr.ReplaceAllString(m.View(), "")
	if strings.ContainsAny(rest, "\x1b\a\u202e") {
		t.Fatal("a raw control or bidi character reached the view")
	}
	if !strings.Contains(rest, `zk1:2181\x1b]0;pwned`) {
		t.Errorf("the escaped server name is not shown: %q", headerLine(m))
	}
}

// Until connected nothing acts (no Backend yet); the outcome brings the
// feeds, whose pumps start, and the actions.
func TestConnectedStartsFeeds(t *testing.T) {
	m, _ := connectingTest(160, 48, 2*time.Second)
	m = selectPath(m, "/locks/job-a")
	if _, cmd := press(m, "t"); cmd != nil {
		t.Fatal("t ran a command before the session was open")
	}
	fb := &fakeBackend{}
	updates := make(chan model.Update, 1)
	updates <- model.Update{Snapshot: fleet(), Changes: changes()}
	next, cmd := m.Update(connectedMsg{Connected{Backend: fb, Updates: updates}})
	m = next.(Console)
	for _, msg := range runCmd(cmd) {
		m = step(m, msg)
	}
	if m.dial != nil || m.snap == nil {
		t.Fatalf("after Connected: dial %v, snapshot %v", m.dial, m.snap != nil)
	}
	if h := headerLine(m); strings.Contains(h, "connecting") || !strings.Contains(h, "● connected to zk1.prod:2181") {
		t.Errorf("header after connecting: %q", h)
	}
	m, cmd = press(m, "t")
	if a := actionOf(t, cmd); a.verb != "take" || a.err != nil {
		t.Errorf("take after connecting: %+v", a)
	}
}

// A failed connect ends the console at once; the caller reports the
// error (Run returns without it).
func TestConnectFailureQuits(t *testing.T) {
	m, _ := connectingTest(80, 24, time.Second)
	_, cmd := m.Update(connectedMsg{Connected{Err: errors.New("connection refused by 127.0.0.1:1")}})
	msgs := runCmd(cmd)
	if len(msgs) != 1 {
		t.Fatalf("messages %v, want tea.Quit's", msgs)
	}
	if _, ok := msgs[0].(tea.QuitMsg); !ok {
		t.Fatalf("message %T, want tea.QuitMsg", msgs[0])
	}

	// Through Run, on pipes: it returns, without the error.
	ch := make(chan Connected, 1)
	ch <- Connected{Err: errors.New("connection refused by 127.0.0.1:1")}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := runConsole(t, ctx, Options{Theme: mustTheme("mono"), Paths: []string{"/x"}, Connect: ch, Servers: []string{"127.0.0.1:1"}},
		func(tea.Msg, io.Writer) {})
	if err != nil {
		t.Fatalf("Run = %v, want nil: the caller reports the connect error", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Run ended by the test's deadline, not by the failed connect")
	}
}
