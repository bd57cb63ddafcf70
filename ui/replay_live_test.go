package ui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/timeline"
)

// incident is what a recorder saw: three updates of the fleet (the
// job-a holder leaves, a semaphore appears), recorded with a header that
// names one path and one root, as `zklock record --root /locks
// /locks/job-a` writes it.
func incident() (timeline.RecordingHeader, []model.Update) {
	h := timeline.RecordingHeader{Started: t0, Zklock: "test", Servers: "zk1.prod:2181",
		Paths: []string{"/locks/job-a"}, Roots: []string{"/locks"}}
	s0 := fleet()
	s1 := fleet()
	s1.At = t0.Add(time.Second)
	for i := range s1.Queues.Len() {
		if q := s1.Queues.At(i); q.Path == "/locks/job-a" {
			job := curatorJob()
			var rest []model.Node
			for i, n := range job.Nodes.All() {
				if i > 0 {
					rest = append(rest, *n)
				}
			}
			rest[0].Role, rest[0].Believes = ordering.RoleHolder, ordering.RoleHolder
			rest[0].SetWatches("")
			rest[0].SetSince(s1.At)
			q.Nodes = model.NodesOf(rest...)
		}
	}
	s2 := *s1
	s2.At = t0.Add(2 * time.Second)
	slots := kazooSlots()
	slots.Path = "/locks/slots"
	s2.Queues = model.QueuesOf(append(s1.Queues.Slice(), slots)...)
	return h, []model.Update{
		{Snapshot: s0, Changes: changes()},
		{Snapshot: s1, Changes: []model.Change{{At: s1.At, Kind: model.ChangeAcquired, Path: "/locks/job-a", Said: "#41 gone → #42 holds"}}},
		{Snapshot: &s2, Changes: []model.Change{{At: s2.At, Kind: model.ChangePathFound, Path: "/locks/slots", Said: "/locks/slots: kazoo semaphore"}}},
	}
}

// TestReplayMatchesLive: the console over a recording (recorded, read
// back and played by a real timeline.Player, with the options `zklock
// replay` uses) draws what the live console drew from the same
// snapshots: the same rows, the same titles, the same queue and log;
// only the header differs, and it says REPLAY, never connected.
func TestReplayMatchesLive(t *testing.T) {
	h, updates := incident()
	var file bytes.Buffer
	r, err := timeline.NewRecorder(&file, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range updates {
		if err := r.Record(u); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := timeline.ReadRecording(&file)
	if err != nil {
		t.Fatal(err)
	}
	for _, sz := range sizes {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		p := timeline.NewPlayer(ctx, rec)
		ro := ReplayOptions(rec.Header, p)
		ro.Theme, ro.Title = mustTheme("mono"), "zklock"
		replay := step(New(ro), sizeMsg(sz[0], sz[1]))
		// The live console as `zklock --root /locks /locks/job-a` opens it:
		// the paths named, the roots discovered.
		live := step(New(Options{Theme: mustTheme("mono"), ReadOnly: true, Paths: h.Paths, Title: "zklock",
			Now: func() time.Time { return t0 }}), sizeMsg(sz[0], sz[1]))
		for i, u := range updates {
			if i > 0 {
				p.Step(1)
			}
			select {
			case got := <-p.Updates():
				replay = step(replay, updateMsg{got})
			case <-ctx.Done():
				t.Fatalf("update %d: the player sent nothing", i)
			}
			replay = step(replay, tickMsg(p.Now()))
			live = step(step(live, updateMsg{u}), tickMsg(u.Snapshot.At))
			name := fmt.Sprintf("replay-%d-%dx%d", i, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				rv, lv := ansi.Strip(replay.View()), ansi.Strip(live.View())
				checkFrame(t, rv, sz[0], sz[1])
				rl, ll := strings.Split(rv, "\n"), strings.Split(lv, "\n")
				// All but the header and the status bar are the same.
				for y := 1; y < len(ll)-2; y++ {
					if rl[y] != ll[y] {
						t.Errorf("line %d:\nreplay %q\nlive   %q", y, rl[y], ll[y])
					}
				}
				if !strings.Contains(rl[0], "REPLAY") || strings.Contains(rl[0], "connected") {
					t.Errorf("replay header %q: want REPLAY, not connected", rl[0])
				}
				if !strings.Contains(ll[0], "connected") || strings.Contains(ll[0], "REPLAY") {
					t.Errorf("live header %q", ll[0])
				}
				want := fmt.Sprintf("update %d/%d", i+1, len(updates))
				if !strings.Contains(rl[len(rl)-2], want) {
					t.Errorf("replay status %q lacks %q", rl[len(rl)-2], want)
				}
				matchGolden(t, name, rv)
			})
		}
		cancel()
	}
}

// playing is a replay that moves on its own: each look at it finds it
// one update further, up to its last, as a playing timeline.Player does
// between two ticks.
type playing struct {
	fakeTimeline
}

func (p *playing) State() timeline.PlayerState {
	if p.st.Step < p.st.Steps-1 {
		p.st.Step++
		p.st.At = p.st.At.Add(time.Second)
	} else {
		p.st.Playing = false
	}
	return p.st
}

// TestReplayStatusMovesWithoutKeys: while a replay plays, the status bar
// follows it on every tick, with no key pressed, to its last update.
func TestReplayStatusMovesWithoutKeys(t *testing.T) {
	tl := &playing{fakeTimeline{st: timeline.PlayerState{At: t0, Steps: 30, Speed: 1, Playing: true, Start: t0, End: t0.Add(29 * time.Second)}}}
	m := newTest("mono", 160, 48, func(o *Options) { o.Replay = tl; o.ReadOnly = true; o.Backend = nil })
	status := func() string {
		lines := strings.Split(ansi.Strip(m.View()), "\n")
		return lines[len(lines)-2]
	}
	for n := 1; n <= 40; n++ {
		m = step(m, tickMsg(t0.Add(time.Duration(n)*time.Second)))
		// The status says where the replay stands after these n ticks.
		want := fmt.Sprintf("update %d/30", tl.st.Step+1)
		if tl.st.Step < min(n, 29) {
			t.Fatalf("after %d ticks the console looked at the replay %d times", n, tl.st.Step)
		}
		if !strings.Contains(status(), want) {
			t.Fatalf("after %d ticks: status %q, want %q", n, status(), want)
		}
	}
	if !strings.Contains(status(), "‖ paused") {
		t.Errorf("at the end: %q", status())
	}
}
