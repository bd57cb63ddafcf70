package zkview

import (
	"testing"
	"time"
)

// TestPublishBudget: a build after a quiet spell goes at once; a stream
// of builds that cost more than the burst is spaced by ten times an
// average build, not by one slow build; the first picture fills in at
// loadingFrame.
func TestPublishBudget(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var b publishBudget
	if wait, every := b.wait(t0, false); wait > 0 || every != minPublish {
		t.Fatalf("first build: wait %v every %v", wait, every)
	}
	if _, every := b.wait(t0, true); every != loadingFrame {
		t.Fatalf("loading: every %v, want %v", every, loadingFrame)
	}

	// A stream: a build of 5 ms every 10 ms runs up a debt beyond the burst.
	now := t0
	for range 200 {
		b.spent(now, 5*time.Millisecond)
		now = now.Add(10 * time.Millisecond)
	}
	wait, every := b.wait(now, false)
	if every < 49*time.Millisecond || every > 50*time.Millisecond {
		t.Fatalf("stream of 5 ms builds: every %v, want 50ms (ten builds' worth)", every)
	}
	if wait < 39*time.Millisecond || wait > 40*time.Millisecond {
		t.Fatalf("stream: wait %v, want the rest of the spacing, 40ms", wait)
	}

	// One build slowed to 200 ms does not hold the next ones for 2 s.
	b.spent(now, 200*time.Millisecond)
	if _, every := b.wait(now.Add(time.Millisecond), false); every > 100*time.Millisecond {
		t.Fatalf("after one slow build: every %v", every)
	}

	// A quiet spell pays the debt back: the next build goes at once.
	later := now.Add(10 * time.Second)
	if wait, every := b.wait(later, false); wait > 0 || every != minPublish {
		t.Fatalf("after a quiet spell: wait %v every %v", wait, every)
	}
}

// TestKickWhileBuildDue: a change merged while the pump's timer is due
// wakes nobody (the due build takes it in); once the timer fired, a
// change kicks the pump again.
func TestKickWhileBuildDue(t *testing.T) {
	w := &Watcher{kick: make(chan struct{}, 1)}
	w.buildDue.Store(true)
	w.kickPublish()
	if len(w.kick) != 0 {
		t.Fatal("a kick sent while a build is due")
	}
	w.buildDue.Store(false)
	w.kickPublish()
	if len(w.kick) != 1 {
		t.Fatal("no kick once the due build began")
	}
}
