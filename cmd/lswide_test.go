package cmd

import (
	"bytes"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
	"github.com/zklock/zklock/sessions"
)

// TestLsJSONStreamsSameBytes: the streamed `ls --json` is byte for byte
// what writeJSON wrote of the whole array, for an empty snapshot, one
// path and a root of thousands (holders, waiters, warnings, strays,
// escapes and HTML characters in data).
func TestLsJSONStreamsSameBytes(t *testing.T) {
	at := time.Date(2026, 3, 14, 3, 11, 4, 0, time.UTC)
	for _, snap := range []*model.Snapshot{{At: at}, modeltest.WideRoot(1, at), modeltest.WideRoot(3000, at), modeltest.Parents(20, 4, at)} {
		var want, got bytes.Buffer
		if err := writeJSON(&want, model.ToJSON(snap)); err != nil {
			t.Fatal(err)
		}
		if err := writeLsJSON(&got, snap); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			i := 0
			for i < min(got.Len(), want.Len()) && got.Bytes()[i] == want.Bytes()[i] {
				i++
			}
			t.Fatalf("%d paths: streamed output differs at byte %d:\n got …%q\nwant …%q", snap.Queues.Len(), i,
				got.Bytes()[max(i-40, 0):min(i+40, got.Len())], want.Bytes()[max(i-40, 0):min(i+40, want.Len())])
		}
	}
}

// heapWatch is an io.Writer that notes the largest heap in use at any
// write: what a writer holds while it writes.
type heapWatch struct{ peak uint64 }

func (h *heapWatch) Write(b []byte) (int, error) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.peak = max(h.peak, ms.HeapAlloc)
	return len(b), nil
}

// BenchmarkLsJSON100k writes `ls --json` of 100,000 lock parents,
// streamed (as ls does) and, for the floor of the old way, as one array
// marshalled at once: allocations per write and the heap in use at the
// writes (peak-heap-MB, sampled at each write to the output, above the
// snapshot's own).
func BenchmarkLsJSON100k(b *testing.B) {
	snap := modeltest.WideRoot(100_000, time.Now())
	for _, way := range []struct {
		name  string
		write func(w io.Writer) error
	}{
		{"stream", func(w io.Writer) error { return writeLsJSON(w, snap) }},
		{"array", func(w io.Writer) error { return writeJSON(w, model.ToJSON(snap)) }},
	} {
		b.Run(way.name, func(b *testing.B) {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			h := &heapWatch{}
			b.ReportAllocs()
			for b.Loop() {
				if err := way.write(h); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(h.peak-min(base, h.peak))/(1<<20), "peak-heap-MB")
		})
	}
}

// BenchmarkSessions10k is `zklock sessions --root` after the read, at a
// root of 100,000 lock parents and 10,000 sessions: the table
// (SessionsOf) and its text and JSON. Target: under 2 s.
func BenchmarkSessions10k(b *testing.B) {
	snap := modeltest.WideRoot(100_000, time.Now())
	b.Run("table", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ss := sessions.SessionsOf(snap); len(ss.List) != 10_000 {
				b.Fatalf("%d sessions", len(ss.List))
			}
		}
	})
	ss := sessions.SessionsOf(snap)
	b.Run("text", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := writeSessionsText(io.Discard, ss); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := writeSessionsJSON(io.Discard, ss); err != nil {
				b.Fatal(err)
			}
		}
	})
}
