package lockrun

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// TestWaitReporterTerminal: on a terminal the line is redrawn in place
// (carriage return, erase) with the elapsed wait, and erased at Stop, so
// CMD's output starts on a clean line.
func TestWaitReporterTerminal(t *testing.T) {
	var out lockedBuffer
	holder := model.Node{Name: "lock-0000000003", Seq: 3, Session: 1, Role: ordering.RoleHolder}
	r := newReporter(&out, true, "/locks/x", func(context.Context, string) queueLook {
		return queueLook{Position: 2, Holders: []model.Node{holder}, At: time.Now()}
	})
	r.Start(context.Background())
	r.Progress(ordering.Progress{State: ordering.LockQueued, Position: 2, Watching: "lock-0000000003"})
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "held by #3") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	r.Progress(ordering.Progress{State: ordering.LockHolding, Position: 1})
	r.Stop()
	got := out.String()
	if !strings.HasPrefix(got, "\r\x1b[Kzklock: waiting for /locks/x: 2nd in line, watching #3; held by #3 (session 0x1); waited ") {
		t.Fatalf("terminal output %q", got)
	}
	if !strings.HasSuffix(got, "\r\x1b[K") || strings.Contains(got, "\n") {
		t.Errorf("the line is not erased at the end, or a newline was written: %q", got)
	}
}

// TestWaitReporterQuickHold: a lock held within QuietWait is not reported.
func TestWaitReporterQuickHold(t *testing.T) {
	var out lockedBuffer
	r := newReporter(&out, false, "/locks/x", nil)
	r.Start(context.Background())
	r.Progress(ordering.Progress{State: ordering.LockQueued, Position: 1})
	r.Progress(ordering.Progress{State: ordering.LockHolding, Position: 1})
	r.Stop()
	if out.String() != "" {
		t.Errorf("a quick hold was reported: %q", out.String())
	}
}

// TestWaitReporterLogsMoves: written to a log, the wait says each move
// in line the reads of the queue show, though the Lock itself hears of
// none (it watches only its predecessor): one line per change, never
// the same line twice, ending at the place it reached.
func TestWaitReporterLogsMoves(t *testing.T) {
	var out lockedBuffer
	var mu sync.Mutex
	places := []int{8, 8, 6, 5, 5, 3, 2}
	r := newReporter(&out, false, "/locks/x", func(_ context.Context, own string) queueLook {
		mu.Lock()
		defer mu.Unlock()
		if own != "lock-0000000009" {
			return queueLook{At: time.Now()} // not the own node: no place
		}
		pos := places[0]
		if len(places) > 1 {
			places = places[1:]
		}
		return queueLook{Position: pos, At: time.Now()}
	})
	r.every, r.gap = 5*time.Millisecond, 5*time.Millisecond
	r.Start(context.Background())
	r.Progress(ordering.Progress{State: ordering.LockQueued, Node: "lock-0000000009", Position: 8, Watching: "lock-0000000008", At: time.Now()})
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "2nd in line") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	r.Stop()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.Contains(lines[0], ": 8th in line, watching #8") || !strings.Contains(lines[len(lines)-1], ": 2nd in line") {
		t.Fatalf("the wait's lines %q: want 8th first, 2nd last", lines)
	}
	for i := 1; i < len(lines); i++ {
		if lines[i] == lines[i-1] {
			t.Errorf("line %q written twice", lines[i])
		}
	}
}

// TestHoldersText: who holds, with no age a one-off read cannot know (a
// node's age bounds its hold from above only); with how long it has held
// at least, since the reports first saw it.
func TestHoldersText(t *testing.T) {
	h := model.Node{Name: "lock-0000000131", Seq: 131, Session: 0x1a, DataLen: 9,
		Role: ordering.RoleHolder}.WithClient("10.0.0.7:4711").WithData([]byte("deploy@ci")).WithCtime(time.Now().Add(-time.Hour))
	at := time.Now()
	silent := h
	silent.SetHealth(model.Health{Member: "zk1:2181", Heard: at.Add(-14 * time.Second), Timeout: 20 * time.Second, Expires: at.Add(15500 * time.Millisecond), At: at})
	lease := model.Node{Name: "_c_0f6e4c9a-1d2b-4c3d-8e9f-0a1b2c3d4e5f-lease-0000000004", Seq: 4, Session: 0x2b, Lease: true, Role: ordering.RoleHolder}
	for _, tc := range []struct {
		hs      []model.Node
		full    bool
		heldFor func(*model.Node) string
		want    string
	}{
		{nil, false, nil, ""},
		{[]model.Node{h}, false, nil, "#131 (session 0x1a, 10.0.0.7:4711, deploy@ci)"},
		{[]model.Node{h}, true, nil, "lock-0000000131 (session 0x1a, 10.0.0.7:4711, deploy@ci)"},
		{[]model.Node{h}, false, func(*model.Node) string { return "held ≥2.0s" }, "#131 (session 0x1a, 10.0.0.7:4711, deploy@ci, held ≥2.0s)"},
		{[]model.Node{lease, h, h}, false, nil, "lease #4 (session 0x2b) and 2 more"},
		{[]model.Node{silent}, false, nil, "#131 (session 0x1a, 10.0.0.7:4711, deploy@ci, silent 14s · expires ≤16s)"},
	} {
		if got := holdersText(tc.hs, tc.full, tc.heldFor); got != tc.want {
			t.Errorf("holdersText = %q, want %q", got, tc.want)
		}
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

// lockedBuffer is written by the Reporter's goroutine while a test reads
// it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWaitLineLease: an admitted contender waiting for a lease says so,
// naming the path whose children it watches.
func TestWaitLineLease(t *testing.T) {
	got := waitLine("/jobs/slots", ordering.Progress{State: ordering.LockQueued, Position: 1, Watching: "/jobs/slots/leases"}, "", 0, false)
	want := "zklock: waiting for /jobs/slots: 1st in line, waiting for a lease (watching the children of /jobs/slots/leases)"
	if got != want {
		t.Fatalf("%q\nwant %q", got, want)
	}
}
