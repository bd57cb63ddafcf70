package timeline

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// TestRecordingRefused: not a recording, or another format version: one
// clear error.
func TestRecordingRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "not a zklock recording"},
		{"text", []byte("hello\n"), "not a zklock recording"},
		{"gzip of text", gzipOf([]byte("hello, world, this is no recording\n")), "no zklock header"},
		{"a newer version", recordingWithVersion(t, 99), "format version 99, written by zklock v9.9; this zklock reads version 1"},
		{"an older version", recordingWithVersion(t, 0), "format version 0"},
	} {
		_, err := ReadRecording(bytes.NewReader(tc.file))
		if !errors.Is(err, ErrNotRecording) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", tc.name, err, tc.want)
		}
	}
}

func gzipOf(b []byte) []byte {
	var out bytes.Buffer
	gz := gzip.NewWriter(&out)
	gz.Write(b)
	gz.Close()
	return out.Bytes()
}

// recordingWithVersion writes a recording whose header says version v.
func recordingWithVersion(t *testing.T, v int) []byte {
	var out bytes.Buffer
	r := &Recorder{w: &out}
	if err := r.startMember(); err != nil {
		t.Fatal(err)
	}
	r.gz.Write([]byte(recordingMagic))
	if err := r.write(&record{Kind: "header", Header: &RecordingHeader{Version: v, Zklock: "v9.9"}}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	return out.Bytes()
}

// churnModel is a synthetic model of parents lock parents of depth
// nodes, handing over like the watcher publishes it: each step one
// parent's holder goes, its next holds, a node joins; every other queue
// is the very same value as before.
type churnModel struct {
	snap *model.Snapshot
	seq  []int
	at   time.Time
}

func newChurnModel(parents, depth int) *churnModel {
	m := &churnModel{at: streamT0, snap: &model.Snapshot{At: streamT0, Conn: model.Conn{State: model.StateConnected, SessionID: 0x2000}, WatchMode: model.ModeRecursive}}
	for i := range parents {
		q := model.Queue{Path: fmt.Sprintf("/locks/service-%02d/job", i), State: model.PathPresent, Type: model.TypeMutex}
		nodes := make([]model.Node, 0, depth)
		for k := range depth {
			nodes = append(nodes, m.node(i, k, k == 0))
		}
		q.Nodes = model.NodesOf(nodes...)
		m.seq = append(m.seq, depth)
		m.snap.Queues = model.QueuesOf(append(m.snap.Queues.Slice(), q)...)
	}
	return m
}

func (m *churnModel) node(parent, seq int, holder bool) model.Node {
	ctime := m.at.Add(-time.Duration(seq) * time.Millisecond)
	n := model.Node{
		Name: fmt.Sprintf("_c_%08x-1d2b-4c3d-8e9f-0a1b2c3d4e5f-lock-%010d", rand.Uint32(), seq), Seq: int32(seq),
		Kind: ordering.KindMutex, Recipe: ordering.RecipeCurator, Role: ordering.RoleWaiting, Believes: ordering.RoleWaiting,
		Session: 0x1000000000 + int64(parent*1000+seq), SinceExact: true, Link: model.LinkVerified,
	}.WithClient(fmt.Sprintf("10.0.%d.%d:%d", parent, seq%250, 30000+seq)).WithData([]byte(fmt.Sprintf("worker@host-%d pid %d", seq%40, 1000+seq))).WithCtime(ctime).WithMtime(ctime).WithSince(ctime)
	n.DataLen = int32(len(n.Data()))
	if holder {
		n.Role, n.Believes = ordering.RoleHolder, ordering.RoleHolder
	}
	return n
}

// step hands one parent over and returns the new snapshot.
func (m *churnModel) step(gap time.Duration) *model.Snapshot {
	m.at = m.at.Add(gap)
	next := *m.snap
	next.At = m.at
	qs := m.snap.Queues.Slice()
	i := rand.IntN(len(qs))
	q := qs[i]
	nodes := make([]model.Node, 0, q.Nodes.Len()+1)
	for k, n := range q.Nodes.Slice()[1:] {
		if k == 0 {
			n.Role, n.Believes, n.Link = ordering.RoleHolder, ordering.RoleHolder, model.LinkNone
			n.SetWatchesPredecessor("", "")
			n.SetSince(m.at)
		}
		nodes = append(nodes, n)
	}
	nn := m.node(i, m.seq[i], len(nodes) == 0)
	m.seq[i]++
	if len(nodes) > 0 {
		nn.SetWatchesPredecessor(nodes[len(nodes)-1].Name, nodes[len(nodes)-1].Name)
	}
	q.Nodes = model.NodesOf(append(nodes, nn)...)
	q.SetHandoffs(append(append([]model.Handoff(nil), q.Handoffs()[max(len(q.Handoffs())-63, 0):]...),
		model.Handoff{Path: q.Path, From: m.snap.Queues.At(i).Nodes.At(0).Name, To: nodes[0].Name, At: m.at, Gap: 300 * time.Microsecond}))
	q.Depth = append(append([]model.DepthSample(nil), q.Depth[max(len(q.Depth)-299, 0):]...), model.DepthSample{At: m.at, Depth: q.Nodes.Len()})
	qs[i] = q
	next.Queues = model.QueuesOf(qs...)
	m.snap = &next
	return &next
}

// BenchmarkRecord: the recorder's cost and size on a churned model (50
// parents of 10 nodes; each update one handoff and one join: released,
// acquired, joined). Targets: under 200 bytes per change on disk, under
// 5% of one core at 200 changes per second.
func BenchmarkRecord(b *testing.B) {
	m := newChurnModel(50, 10)
	var file bytes.Buffer
	r, err := NewRecorder(&file, RecordingHeader{Started: streamT0, Zklock: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	prev := m.snap
	if err := r.Record(model.Update{Snapshot: prev}); err != nil {
		b.Fatal(err)
	}
	start := file.Len()
	changes := 0
	b.ReportAllocs()
	// 200 changes per second, three per update: an update every 15 ms
	// (the model publishes at most every 25 ms; this is the worst case).
	b.ResetTimer()
	for range b.N {
		b.StopTimer() // the synthetic model and its diff are not the recorder's
		next := m.step(15 * time.Millisecond)
		changes += len(Diff(prev, next))
		prev = next
		b.StartTimer()
		if err := r.Record(model.Update{Snapshot: next, Changes: []model.Change{{At: next.At, Kind: model.ChangeAcquired, Path: "/locks/x", Node: model.Node{Name: "lock-0000000042"}, From: "lock-0000000041", Gap: 300 * time.Microsecond}}}); err != nil {
			b.Fatal(err)
		}
	}
	perUpdate := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(file.Len()-start)/float64(changes), "bytes/change")
	updatesPerSec := 200.0 / (float64(changes) / float64(b.N))
	b.ReportMetric(perUpdate*updatesPerSec/1e9*100, "%core@200changes/s")
}

// snapJSON is a snapshot in every field (json of the struct) and in
// `ls --json`'s form.
func snapJSON(t testing.TB, s *model.Snapshot) (all, ls string) {
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
