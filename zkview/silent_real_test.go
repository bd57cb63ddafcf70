package zkview

import (
	"net"
	"slices"
	"testing"
	"time"

	"github.com/zklock/zklock/memberview"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/peers"
	"github.com/zklock/zklock/sandbox/sandboxtest"
)

// silentTimeout is the paused holder's session timeout: long enough for
// a poll after half of it and a resume before all of it on a loaded
// machine.
const silentTimeout = 12 * time.Second

// TestSilentHolder: a Kazoo holder stopped with SIGSTOP past half its
// session timeout is flagged silent-holder by the next poll, on a server
// as deployed (default whitelist, AdminServer); resumed, the warning
// clears at the next poll; stopped again until its session expires, the
// expiry the servers told is within a tick of the moment its node goes.
func TestSilentHolder(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{FourLetterWords: sandbox.ZooKeeperDefaultWords, AdminServer: &sandbox.AdminOptions{}})
	ctx := tctx(t, 2*time.Minute)
	p := testPath(t)
	holder := peers.StartT(t, peers.Kazoo, peers.Options{Servers: c.Servers(), SessionTimeout: silentTimeout})
	t.Cleanup(func() { _ = holder.Resume() }) // before its close: a stopped driver cannot quit
	waiter := peers.StartT(t, peers.Kazoo, peers.Options{Servers: c.Servers(), SessionTimeout: silentTimeout})
	h, err := holder.Acquire(ctx, 0, p, peers.Mutex)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waiter.Request(0, p, peers.Mutex); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(c.Members()[0].AdminAddr())
	ports, err := memberview.ParseAdminPorts(port, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := watch(t, session(t, c.Servers()), Options{Paths: []string{p}, ServerView: true, AdminPorts: ports, ServerViewEvery: time.Hour})
	holderNode := model.ShortName(h.Node())
	warned := func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && slices.ContainsFunc(q.Warnings(), func(w model.Warning) bool { return w.Code == model.WarnSilentHolder })
	}
	healthOf := func(s *model.Snapshot) model.Health {
		if q := queueOf(s, p); q != nil && q.Nodes.Len() > 0 {
			return q.Nodes.At(0).Health()
		}
		return model.Health{}
	}
	waitFor(t, w, 30*time.Second, "two nodes, the holder's health told", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && q.Nodes.Len() == 2 && healthOf(s).Known() && !warned(s)
	})

	// pausedPoll pauses the holder, waits past half its timeout, asks
	// for one poll and returns its snapshot, which must warn.
	pausedPoll := func(what string) *model.Snapshot {
		t.Helper()
		if err := holder.Pause(); err != nil {
			t.Fatal(err)
		}
		paused := time.Now()
		eventually(t, silentTimeout, "half the timeout", func() bool { return time.Since(paused) > silentTimeout/2+time.Second })
		polled := time.Now()
		w.Refresh()
		return waitFor(t, w, 10*time.Second, what+": silent-holder after one poll", func(s *model.Snapshot) bool {
			return s.ServerViewAt.After(polled) && warned(s)
		})
	}
	snap := pausedPoll("paused")
	if hl := healthOf(snap); hl.Text(snap.ServerViewAt) == "" || hl.Member != c.Servers()[0] {
		t.Errorf("holder %s health %+v: no words for the console", holderNode, hl)
	}
	if err := holder.Resume(); err != nil {
		t.Fatal(err)
	}
	// Kazoo speaks again at its next ping, up to a third of its timeout
	// after the resume: poll until then.
	resumed := time.Now()
	waitFor(t, w, silentTimeout, "resumed: the warning cleared", func(s *model.Snapshot) bool {
		w.Refresh()
		return s.ServerViewAt.After(resumed) && !warned(s) && queueOf(s, p).Nodes.Len() == 2
	})

	snap = pausedPoll("paused until it expires")
	told := healthOf(snap).Expires
	gone := waitFor(t, w, 2*silentTimeout, "the holder's node to go", func(s *model.Snapshot) bool {
		q := queueOf(s, p)
		return q != nil && (q.Nodes.Len() < 2 || q.Nodes.At(0).Name != h.Node())
	})
	// The snapshot's time is when the Watcher saw the deletion: within a
	// moment of the server's.
	const tick = 2 * time.Second
	if told.IsZero() || told.Sub(gone.At).Abs() > tick {
		t.Errorf("expiry told %v, the node went at %v (%v apart; at most a tick)", told, gone.At, told.Sub(gone.At))
	}
	t.Logf("expiry told %s, node gone %s (%v apart)", told.Format("15:04:05.000"), gone.At.Format("15:04:05.000"), told.Sub(gone.At))
	// The event log tells the expiry as such, never as a release.
	var how []string
	for _, e := range w.events() {
		if e.Path == p && e.Node.Name == h.Node() && e.Kind.Departure() {
			how = append(how, e.Kind.String()+"/"+e.Cause.String())
		}
	}
	if !slices.Equal(how, []string{model.ChangeSessionLost.String() + "/" + model.CauseExpired.String()}) {
		t.Errorf("the holder's departure told as %v, want one session-lost/expired", how)
	}
}
