package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
	"github.com/zklock/zklock/zkview/layouts"
)

// steadyFor is how long TestDemoNoFalseAlarm samples the running demo:
// every lock, the semaphore and the election change hands several times.
const steadyFor = 10 * time.Second

// consoleView is what the demo's console watches, with the systems'
// layouts read as the console reads them.
func consoleView() zkview.Options {
	return zkview.Options{
		Paths:           append(Paths(), SystemPaths()...),
		Roots:           []string{Root},
		Systems:         layouts.New,
		SemaphoreLimits: Limits(),
	}
}

// loadView reads one snapshot of the demo as `ls --root` would.
func loadView(ctx context.Context, t *testing.T, sess *lockops.Session) *model.Snapshot {
	t.Helper()
	lctx, cancel := context.WithTimeout(ctx, demoWait)
	defer cancel()
	snap, err := zkview.Load(lctx, sess, consoleView())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return snap
}

// mismatches lists the leader-mismatch warnings of the queue at p.
func mismatches(snap *model.Snapshot, p string) []model.Warning {
	var out []model.Warning
	for _, q := range snap.Queues.All() {
		for _, w := range q.Warnings() {
			if q.Path == p && w.Code == model.WarnLeaderMismatch {
				out = append(out, w)
			}
		}
	}
	return out
}

// noFalseAlarm fails on a system named, or a leader-mismatch raised, on
// any queue but the Solr scene's.
func noFalseAlarm(t *testing.T, snap *model.Snapshot, from string) {
	t.Helper()
	for _, q := range snap.Queues.All() {
		if q.Path == SolrElection {
			continue
		}
		if q.System() != "" || q.Label() != "" {
			t.Fatalf("%s: %s recognised as %s %q", from, q.Path, q.System(), q.Label())
		}
		if ws := mismatches(snap, q.Path); len(ws) > 0 {
			t.Fatalf("%s: %s raised %s", from, q.Path, ws[0].Message)
		}
	}
}

// solrCleared says that e is the end of the Solr scene's own mismatch: a
// cleared leader-mismatch names no path (the systems' check ends it, by
// its Key), and the Key names the leader record it was about. The scene
// raises one at each failover, on SolrElection, and it clears once the
// record catches up: when that falls in the test's window, its end is seen
// too.
func solrCleared(e model.Change) bool {
	return e.Kind == model.ChangeWarningCleared && strings.Contains(e.Warning.Key, SolrLeader+"\x00")
}

// solrQueue is the Solr scene's queue in snap, nil when not shown.
func solrQueue(snap *model.Snapshot) *model.Queue {
	for i := range snap.Queues.Len() {
		if snap.Queues.At(i).Path == SolrElection {
			return snap.Queues.At(i)
		}
	}
	return nil
}

// TestDemoNoFalseAlarm runs the demo as `zklock demo` does (the Solr
// scene on) and reads it with the systems' recognisers for steadyFor, by
// a live Watcher and by a Load every second: the locks, the semaphore and
// the LeaderLatch election are never named a system nor raise a
// leader-mismatch; the Solr scene is named "solr overseer".
func TestDemoNoFalseAlarm(t *testing.T) {
	cfg, conn, at := demoConfig(t, true)
	cfg.Solr = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := startDemo(ctx, t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	sess := adminFor(ctx, t, cfg)
	defer sess.Close()
	waitUntil(t, "every lock, the semaphore and both elections in use", func() bool {
		// Reports is quiet for a minute at a time; the semaphore's leases
		// are one level down.
		for _, p := range []string{Billing, Orders, Slots + "/leases", Leader, SolrElection} {
			if kids, _, err := conn.Children(at(p)); err != nil || len(kids) == 0 {
				return false
			}
		}
		return true
	})

	w, err := zkview.Watch(ctx, sess, consoleView())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	end := time.After(steadyFor)
	solrSeen, updates := false, 0
	for done := false; !done; {
		select {
		case u, ok := <-w.Updates():
			if !ok {
				t.Fatal("the watcher stopped")
			}
			updates++
			if u.Snapshot != nil {
				noFalseAlarm(t, u.Snapshot, "watcher")
			}
			for _, e := range u.Changes {
				if strings.Contains(e.Text(), model.WarnLeaderMismatch) && e.Path != SolrElection && !solrCleared(e) {
					t.Errorf("watcher event on %s: %s (key %q)", e.Path, e.Text(), e.Warning.Key)
				}
			}
		case <-tick.C:
			snap := loadView(ctx, t, sess)
			noFalseAlarm(t, snap, "load")
			if q := solrQueue(snap); q != nil && q.System() == "solr" && q.Label() == "solr overseer" {
				solrSeen = true
			}
		case <-end:
			done = true
		}
	}
	if !solrSeen {
		t.Error("the Solr scene was never named solr overseer")
	}
	if updates == 0 {
		t.Error("the watcher published nothing")
	}
}

// TestSolrSceneMismatch: killing the overseer takes its leader record
// with its session, and the record lags: a leader-mismatch, then cleared
// when the new overseer writes its own. S fails over with the record
// kept stale: the mismatch stays until S again.
func TestSolrSceneMismatch(t *testing.T) {
	cfg, _, _ := demoConfig(t, true)
	cfg.Solr = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := startDemo(ctx, t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	sess := adminFor(ctx, t, cfg)
	defer sess.Close()
	recordFollows := func() bool {
		snap := loadView(ctx, t, sess)
		q := solrQueue(snap)
		return q != nil && q.Label() == "solr overseer" && q.Nodes.Len() == len(solrNodes) && len(mismatches(snap, SolrElection)) == 0
	}
	lagging := func(says string) func() bool {
		return func() bool {
			ws := mismatches(loadView(ctx, t, sess), SolrElection)
			return len(ws) == 1 && strings.Contains(ws[0].Message, says)
		}
	}
	waitUntil(t, "three Solr nodes and their overseer's record", recordFollows)

	// A kill: the record goes with the overseer's session, then follows.
	if text, err := d.Kill(ctx, SolrElection); err != nil || !strings.Contains(text, "killed Solr node") {
		t.Fatalf("Kill = %q, %v", text, err)
	}
	waitUntil(t, "a leader-mismatch: no record", lagging("names nobody (no record)"))
	waitUntil(t, "the new overseer's record", recordFollows)

	// S fails over once and keeps the record stale: the mismatch stays,
	// the same one (its Key), past the lag.
	if text, err := d.Split(ctx, SolrElection); err != nil || !strings.Contains(text, "stays stale") {
		t.Fatalf("Split = %q, %v", text, err)
	}
	waitUntil(t, "a leader-mismatch: the old overseer's record", lagging("names "))
	key := mismatches(loadView(ctx, t, sess), SolrElection)[0].Key
	staleUntil := time.Now().Add(solrLag + time.Second)
	for time.Now().Before(staleUntil) {
		if ws := mismatches(loadView(ctx, t, sess), SolrElection); len(ws) != 1 || ws[0].Key != key {
			t.Fatalf("the stale record's mismatch changed: %v", ws)
		}
		time.Sleep(500 * time.Millisecond) // sampling the stale record
	}
	if text, err := d.Split(ctx, SolrElection); err != nil || !strings.Contains(text, "follows the election again") {
		t.Fatalf("Split = %q, %v", text, err)
	}
	waitUntil(t, "the record caught up", recordFollows)
}
