package zkview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sandbox"
	"github.com/zklock/zklock/sandbox/sandboxtest"
	"github.com/zklock/zklock/timeline"
)

// SnapJSON is a snapshot in every field (json of the struct) and in
// `ls --json`'s form, for comparing a replayed snapshot with the live one.
func SnapJSON(t testing.TB, s *model.Snapshot) (all, ls string) {
	t.Helper()
	a, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	l, err := json.Marshal(model.ToJSON(s))
	if err != nil {
		t.Fatal(err)
	}
	return string(a), string(l)
}

func changesJSON(t testing.TB, cs []model.Change) string {
	var b bytes.Buffer
	if err := timeline.NewChangeWriter(&b).Write(cs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// recordLive records a real churned queue (and a quieter one with data)
// while keeping every live update; it returns the recording's bytes.
func recordLive(t *testing.T, churnFor time.Duration) ([]model.Update, []byte) {
	return recordLiveOn(t, testCluster(t), churnFor, nil)
}

// recordLiveOn is recordLive on c; fault, when given, runs halfway
// through the churn (a leader kill, say) while the churn goes on.
func recordLiveOn(t *testing.T, c *sandbox.Cluster, churnFor time.Duration, fault func()) ([]model.Update, []byte) {
	p, quiet := testPath(t), testPath(t)
	raw := rawConn(t, c.Servers())
	mkdirs(t, raw, p)
	mkdirs(t, raw, quiet)
	mon := session(t, c.Servers())
	w, err := Watch(context.Background(), mon, Options{Paths: []string{p, quiet}, ServerView: true, ServerViewEvery: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var (
		file    bytes.Buffer
		live    []model.Update
		recErr  error
		drained = make(chan struct{})
		last    atomic.Pointer[model.Snapshot] // the newest snapshot recorded
	)
	r, err := timeline.NewRecorder(&file, timeline.RecordingHeader{Started: time.Now(), Zklock: "test", Paths: []string{p, quiet}})
	if err != nil {
		t.Fatal(err)
	}
	r.FullEvery = 700 * time.Millisecond // several full snapshots: seeks start from them
	go func() {
		defer close(drained)
		for u := range w.Updates() {
			live = append(live, u)
			if err := r.Record(u); err != nil && recErr == nil {
				recErr = err
			}
			last.Store(u.Snapshot)
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), churnFor)
	defer cancel()
	var wg sync.WaitGroup
	rec := &churnRecord{made: map[string]bool{}, dels: map[string]time.Time{}}
	for range 4 {
		cc := rawConn(t, c.Servers())
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = churnClient(ctx, cc, p, rec)
		}()
	}
	// The quiet lock: lock-core clients with data, handing over slowly.
	for i := range 3 {
		s := session(t, c.Servers())
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				l := lockops.NewLock(s, quiet, lockops.WithNote(fmt.Sprintf("quiet-%d", i)))
				if err := l.Acquire(ctx); err != nil {
					return
				}
				time.Sleep(time.Duration(50+rand.IntN(100)) * time.Millisecond)
				_ = l.Release(context.Background())
			}
		}()
	}
	if fault != nil {
		time.Sleep(churnFor / 2)
		fault()
	}
	wg.Wait()
	// The last changes reach the recording: wait until the newest update
	// recorded shows the nodes the server has now (the churn is over).
	eventually(t, 20*time.Second, "the recording to show the churn's end", func() bool {
		s := last.Load()
		if s == nil {
			return false
		}
		for _, path := range []string{p, quiet} {
			kids, _, err := raw.Children(path)
			q := s.Queue(path)
			if err != nil || q == nil || q.Nodes.Len()+len(q.Other()) != len(kids) {
				return false
			}
			for _, n := range q.Nodes.All() {
				if !slices.Contains(kids, n.Name) {
					return false
				}
			}
		}
		return true
	})
	w.Close()
	<-drained
	if recErr != nil {
		t.Fatal(recErr)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return live, file.Bytes()
}

// TestRecordingReplaysLiveSnapshots: a recording of a real churned queue
// rebuilds, at every recorded update, the very snapshot the Watcher
// published then (every field, and `ls --json`'s form), forward and by
// seeking back; the watch stream of the replay is the live one.
func TestRecordingReplaysLiveSnapshots(t *testing.T) {
	live, file := recordLive(t, 3*time.Second)
	checkReplay(t, live, file, 100)
}

// TestRecordingThroughLeaderKill: the same through a fault: the leader of
// a 3-member ensemble is killed halfway through the churn (the Watcher
// and the clients reconnect, the Watcher marks the picture stale and
// reads again); every recorded update still replays as the live one.
func TestRecordingThroughLeaderKill(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Members: 3, TickTime: 100 * time.Millisecond})
	live, file := recordLiveOn(t, c, 4*time.Second, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		leader, err := c.Leader(ctx)
		if err != nil {
			t.Errorf("leader: %v", err)
			return
		}
		if err := c.Members()[leader].Kill(); err != nil {
			t.Errorf("kill the leader: %v", err)
		}
	})
	stale := false
	for _, u := range live {
		stale = stale || u.Snapshot.Stale
	}
	if !stale {
		t.Log("the Watcher's member survived the kill: no stale picture recorded")
	}
	checkReplay(t, live, file, 20)
}

// checkReplay: the recording of live, read back, rebuilds every live
// update (every field and `ls --json`'s form), forward and seeking back,
// and its watch stream is the live one; at least minChanges changes.
func checkReplay(t *testing.T, live []model.Update, file []byte, minChanges int) {
	t.Helper()
	rec, err := timeline.ReadRecording(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Cut || rec.Len() != len(live) {
		t.Fatalf("read back %d steps (cut %v: %v), recorded %d", rec.Len(), rec.Cut, rec.CutErr, len(live))
	}
	changes := 0
	cur := rec.NewCursor()
	var prevLive, prevReplay *model.Snapshot
	for i, u := range live {
		got := cur.Seek(i)
		wa, wl := SnapJSON(t, u.Snapshot)
		ga, gl := SnapJSON(t, got)
		if gl != wl {
			t.Fatalf("step %d: ls --json differs:\nlive   %s\nreplay %s", i, wl, gl)
		}
		if ga != wa {
			t.Fatalf("step %d: snapshot differs:\nlive   %s\nreplay %s", i, wa, ga)
		}
		if !rec.At(i).Equal(u.Snapshot.At) {
			t.Fatalf("step %d: at %v, live %v", i, rec.At(i), u.Snapshot.At)
		}
		evs, _ := rec.Changes(i)
		if len(evs) != len(u.Changes) {
			t.Fatalf("step %d: %d events, live %d", i, len(evs), len(u.Changes))
		}
		lc, rc := timeline.Diff(prevLive, u.Snapshot), timeline.Diff(prevReplay, got)
		if changesJSON(t, lc) != changesJSON(t, rc) {
			t.Fatalf("step %d: the replay's watch stream differs:\nlive   %s\nreplay %s", i, changesJSON(t, lc), changesJSON(t, rc))
		}
		changes += len(lc)
		prevLive, prevReplay = u.Snapshot, got
	}
	// Seeking back lands on the same snapshots.
	for range 50 {
		i := rand.IntN(len(live))
		_, wl := SnapJSON(t, live[i].Snapshot)
		if _, gl := SnapJSON(t, cur.Seek(i)); gl != wl {
			t.Fatalf("seek to %d: differs", i)
		}
	}
	if changes < minChanges {
		t.Fatalf("only %d changes recorded: not a churn", changes)
	}
	t.Logf("%d updates, %d changes, %d bytes: %.1f bytes per change", len(live), changes, len(file), float64(len(file))/float64(changes))
}

// TestRecordingCut: a recording cut at any byte (a recorder killed
// mid-write) replays the records before the cut, each equal to the live
// one; a damaged byte ends it there.
func TestRecordingCut(t *testing.T) {
	live, file := recordLive(t, time.Second)
	full, err := timeline.ReadRecording(bytes.NewReader(file))
	if err != nil || full.Cut {
		t.Fatalf("whole file: %v %v", err, full.CutErr)
	}
	// Each step is compared as `ls --json` shows it; the live steps'
	// once, not once per cut (113 replays of every step under -race).
	lsJSON := func(s *model.Snapshot) string {
		b, err := json.Marshal(model.ToJSON(s))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := make([]string, len(live))
	for i := range live {
		want[i] = lsJSON(live[i].Snapshot)
	}
	check := func(what string, rec *timeline.Recording) {
		t.Helper()
		cur := rec.NewCursor()
		for i := range rec.Len() {
			if lsJSON(cur.Seek(i)) != want[i] {
				t.Fatalf("%s: step %d differs from the live one", what, i)
			}
		}
	}
	last := -1
	for cut := 64; cut < len(file); cut += 1 + len(file)/97 {
		rec, err := timeline.ReadRecording(bytes.NewReader(file[:cut]))
		if last == -1 && err != nil && strings.Contains(err.Error(), "inside its header") {
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d of %d: %v", cut, len(file), err)
		}
		if !rec.Cut {
			t.Errorf("cut at %d: not said to be cut", cut)
		}
		if rec.Len() < last {
			t.Errorf("cut at %d: %d steps, fewer than a shorter cut's %d", cut, rec.Len(), last)
		}
		last = rec.Len()
		check(fmt.Sprintf("cut at %d", cut), rec)
	}
	if last < full.Len()/2 {
		t.Errorf("cuts replayed at most %d of %d steps", last, full.Len())
	}
	// A damaged byte: what is replayed is never wrong, and damage that
	// changes what the file says ends it there. (A flipped bit can fall
	// where the compressed stream ignores it, in a flush's padding: then
	// nothing changed, and the whole recording replays as it was.)
	detected := 0
	for k := range 16 {
		at := len(file)/2 + k*(len(file)/64)
		damaged := bytes.Clone(file)
		damaged[at] ^= 0x5a
		rec, err := timeline.ReadRecording(bytes.NewReader(damaged))
		if err != nil {
			t.Fatalf("damaged at %d: %v", at, err)
		}
		if rec.Cut {
			detected++
		} else if rec.Len() != full.Len() {
			t.Errorf("damaged at %d: %d of %d steps and not said to be cut", at, rec.Len(), full.Len())
		}
		check(fmt.Sprintf("damaged at %d", at), rec)
	}
	if detected == 0 {
		t.Errorf("none of 16 damaged bytes was detected")
	}
}
