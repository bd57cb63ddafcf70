package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
)

// watchLines parses what `watch --json` printed so far.
func watchLines(t *testing.T, out string) []model.JSONChange {
	t.Helper()
	var cs []model.JSONChange
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var c model.JSONChange
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("watch line %q: %v", line, err)
		}
		if c.Schema != model.StreamSchema {
			t.Fatalf("watch line %q: schema %d", line, c.Schema)
		}
		cs = append(cs, c)
	}
	return cs
}

func hasChange(cs []model.JSONChange, event, node string) bool {
	return slices.ContainsFunc(cs, func(c model.JSONChange) bool { return c.Event == event && c.Node == node })
}

// TestWatchJSON: clients of the lock core queue on a lock and hand it
// over; every node's joined, acquired and released appears once, in
// order, with its session. A session that ends with nodes on two locks
// is told session-lost on both.
func TestWatchJSON(t *testing.T) {
	p, q := testPath(t), testPath(t)
	c := testConn(t)
	mkdirs(t, c, p, nil)
	mkdirs(t, c, q, nil)
	w := startBinary(t, nil, serversFlag(t), "watch", "-o", "json", p, q)

	// The stream tells changes only: a probe shows it is watching.
	waitWatching(t, w, c, p)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type client struct {
		s    *lockops.Session
		l    *lockops.Lock
		done chan error
	}
	var clients []client
	for i := range 3 {
		s := testSession(t)
		l := lockops.NewLock(s, p, lockops.WithNote(fmt.Sprintf("client-%d", i)))
		cl := client{s: s, l: l, done: make(chan error, 1)}
		go func() { cl.done <- l.Acquire(ctx) }()
		eventually(t, 20*time.Second, fmt.Sprintf("client %d queued", i), func() bool { return l.Node() != "" })
		clients = append(clients, cl)
	}
	for i, cl := range clients {
		if err := <-cl.done; err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		// Hold long enough to be seen holding by itself.
		eventually(t, 20*time.Second, fmt.Sprintf("client %d acquired", i), func() bool {
			return hasChange(watchLines(t, w.out.String()), "acquired", cl.l.Node())
		})
		if err := cl.l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	last := clients[len(clients)-1].l.Node()
	eventually(t, 20*time.Second, "the last release", func() bool {
		return hasChange(watchLines(t, w.out.String()), "released", last)
	})

	// One session with a node on each lock, closed: both go with it.
	s := testSession(t)
	a := holdLock(t, s, p)
	b := holdLock(t, s, q)
	eventually(t, 20*time.Second, "the second lock acquired", func() bool {
		return hasChange(watchLines(t, w.out.String()), "acquired", b.Node())
	})
	s.Close()
	eventually(t, 20*time.Second, "session-lost on both locks", func() bool {
		cs := watchLines(t, w.out.String())
		return hasChange(cs, "session-lost", a.Node()) && hasChange(cs, "session-lost", b.Node())
	})

	cs := watchLines(t, w.out.String())
	var acquired []string
	for i, cl := range clients {
		node, sess := cl.l.Node(), model.SessionHex(cl.s.ID())
		var events []string
		for _, ch := range cs {
			if ch.Node != node {
				continue
			}
			events = append(events, ch.Event)
			if ch.Session != sess || ch.Path != p || ch.Type != "mutex" || ch.Kind != "mutex" || !strings.Contains(ch.Data, fmt.Sprintf("client-%d", i)) {
				t.Errorf("client %d: %+v, want session %s", i, ch, sess)
			}
			if ch.Event == "acquired" {
				acquired = append(acquired, node)
				if i > 0 && ch.From != clients[i-1].l.Node() {
					t.Errorf("client %d acquired from %q, want %q", i, ch.From, clients[i-1].l.Node())
				}
			}
		}
		if !slices.Equal(events, []string{"joined", "acquired", "released"}) {
			t.Errorf("client %d (%s): events %v, want joined, acquired, released once each", i, node, events)
		}
	}
	if want := []string{clients[0].l.Node(), clients[1].l.Node(), clients[2].l.Node()}; !slices.Equal(acquired, want) {
		t.Errorf("acquired in order %v, want %v", acquired, want)
	}

	// SIGTERM ends the stream with 0; nothing but JSON was printed.
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := w.wait(t, 20*time.Second); code != 0 {
		t.Errorf("watch after SIGTERM: code %d, stderr %q", code, w.err.String())
	}
	if bytes.ContainsAny([]byte(w.out.String()), "\x1b\x07") {
		t.Errorf("raw control bytes in the stream")
	}
}

// waitWatching returns once the watch process tells changes on p: the
// state at its start is not a change, so probe nodes are created (and
// deleted) until one is told joined.
func waitWatching(t *testing.T, w *proc, c *zk.Conn, p string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		probe := createNode(t, c, p, curatorPrefix, "probe")
		seen := false
		for end := time.Now().Add(2 * time.Second); !seen && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			seen = strings.Contains(w.out.String(), `"joined","path":"`+p+`","type":"mutex","node":"`+probe+`"`)
		}
		if err := c.Delete(p+"/"+probe, -1); err != nil {
			t.Fatal(err)
		}
		if seen {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch %s tells no change; stdout %q, stderr %q", p, w.out.String(), w.err.String())
		}
	}
}

// TestWatchText: watch's default, -o text, is one line per change: the
// time, the event, the path and the node, never JSON.
func TestWatchText(t *testing.T) {
	p := testPath(t)
	c := testConn(t)
	mkdirs(t, c, p, nil)
	w := startBinary(t, nil, serversFlag(t), "watch", "-o", "text", p)
	line := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} joined +` + regexp.QuoteMeta(p) + ` #\d+ \S+ 0x[0-9a-f]+`)
	deadline := time.Now().Add(30 * time.Second)
	for !line.MatchString(w.out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("watch -o text tells no joined line; stdout %q, stderr %q", w.out.String(), w.err.String())
		}
		// The state at the start is not a change: probe until one is told.
		probe := createNode(t, c, p, curatorPrefix, "probe")
		for end := time.Now().Add(2 * time.Second); !line.MatchString(w.out.String()) && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
		if err := c.Delete(p+"/"+probe, -1); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(w.out.String(), "{") {
		t.Errorf("watch -o text printed JSON: %q", w.out.String())
	}
}

// TestWatchBadInput: one clear line and a non-zero exit.
func TestWatchBadInput(t *testing.T) {
	_, errOut, code := runBinary(t, nil, serversFlag(t), "watch", "--json")
	assertOneLineFailure(t, errOut, code, "nothing to watch")
	_, errOut, code = runBinary(t, nil, serversFlag(t), "watch", "--json", "locks")
	assertOneLineFailure(t, errOut, code, "")
}
