package ui

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zklock/zklock/model"

	tea "github.com/charmbracelet/bubbletea"
)

// frameClock is the program's output: it notes when each change's marker
// first reaches the terminal.
type frameClock struct {
	mu   sync.Mutex
	seen map[int]time.Time
	// reached is closed when the marker awaited reaches the terminal.
	reached chan struct{}
	awaited int
}

// await makes reached close once marker n is seen (at once if it was).
func (f *frameClock) await(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.awaited = n
	if _, ok := f.seen[n]; ok {
		close(f.reached)
		f.awaited = -1
	}
}

func (f *frameClock) Write(b []byte) (int, error) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	for rest := b; ; {
		i := bytes.Index(rest, []byte("mark"))
		if i < 0 || i+10 > len(rest) {
			break
		}
		if n, err := strconv.Atoi(string(rest[i+4 : i+10])); err == nil {
			if _, ok := f.seen[n]; !ok {
				f.seen[n] = now
				if n == f.awaited {
					close(f.reached)
					f.awaited = -1
				}
			}
		}
		rest = rest[i+4:]
	}
	return len(b), nil
}

// BenchmarkEventToFrame: the time from zkview publishing a change to the
// terminal receiving the frame that shows it, through the real Bubble
// Tea program (pump, Update, View, renderer), under 200 changes a second.
// Each op is one change; ns/op is the pacing (5 ms), the figures are the
// p50/p99/max metrics. Bubble Tea's renderer draws at most 60 frames a
// second, so ~8 ms median and ~17 ms worst are the renderer's own floor.
func BenchmarkEventToFrame(b *testing.B) {
	const every = time.Second / 200
	out := &frameClock{seen: map[int]time.Time{}, reached: make(chan struct{}), awaited: -1}
	updates := make(chan model.Update, 1)
	m := New(Options{Theme: mustTheme("dark"), Updates: updates, Paths: []string{"/locks/job-a"}, Now: time.Now})
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(out), tea.WithoutSignalHandler())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	p.Send(tea.WindowSizeMsg{Width: 160, Height: 48})

	snapshot := func(i int) *model.Snapshot {
		s := fleet()
		s.Queues = model.QueuesOf([]model.Queue{curatorJob()}...)
		s.Queues.At(0).Nodes.At(0).SetData(fmt.Appendf(nil, "mark%06d", i))
		return s
	}
	sent := make([]time.Time, 0, b.N)
	tick := time.NewTicker(every)
	defer tick.Stop()
	b.ResetTimer()
	for i := range b.N {
		<-tick.C
		if i == b.N-1 {
			out.await((b.N - 1) % 1000000)
		}
		sent = append(sent, time.Now())
		updates <- model.Update{Snapshot: snapshot(i % 1000000)}
	}
	// The last change's frame: wait for it, bounded.
	select {
	case <-out.reached:
	case <-time.After(5 * time.Second):
	}
	b.StopTimer()
	p.Quit()
	if err := <-done; err != nil {
		b.Fatal(err)
	}

	// A change superseded before the next frame is never drawn: that is
	// the point of drawing only the newest. Its latency is the wait until
	// a later change's frame.
	out.mu.Lock()
	defer out.mu.Unlock()
	var lat []time.Duration
	shown := 0
	for i, at := range sent {
		for j := i; j < len(sent); j++ {
			if f, ok := out.seen[j%1000000]; ok {
				lat = append(lat, f.Sub(at))
				if j == i {
					shown++
				}
				break
			}
		}
	}
	if len(lat) == 0 {
		b.Fatal("no change reached the terminal")
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
	b.ReportMetric(float64(shown)/float64(len(sent)), "drawn/change")
}
