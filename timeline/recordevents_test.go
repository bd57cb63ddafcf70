package timeline

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
)

// TestRecordingBeforeTypedChanges: a recording made before changes were
// typed (its records' events under "e": a kind of seven and the line)
// still replays, each event read as a change that says its line as it
// was, under the log's same heading.
func TestRecordingBeforeTypedChanges(t *testing.T) {
	var out bytes.Buffer
	r, err := NewRecorder(&out, RecordingHeader{Zklock: "v0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	s := &model.Snapshot{At: streamT0, Conn: model.Conn{State: model.StateConnected}}
	if err := r.Record(model.Update{Snapshot: s}); err != nil {
		t.Fatal(err)
	}
	// A delta as v0.1.0 wrote it, byte for byte.
	payload := []byte(`{"k":"delta","at":"2026-11-23T03:12:01Z","e":[` +
		`{"At":"2026-11-23T03:12:01Z","Kind":2,"Path":"/locks/x","Node":"lock-0000000042","Text":"#41 gone → #42 holds after 300µs"},` +
		`{"At":"2026-11-23T03:12:01Z","Kind":1,"Path":"/locks/x","Node":"lock-0000000041","Text":"lock-0000000041 deleted (held 2.0s)"},` +
		`{"At":"2026-11-23T03:12:01Z","Kind":3,"Path":"","Node":"","Text":"disconnected: the model is stale until the link is back"},` +
		`{"At":"2026-11-23T03:12:01Z","Kind":9,"Path":"","Node":"","Text":"a kind this build never knew"}],"x":2}` + "\n")
	frame := binary.AppendUvarint(nil, uint64(len(payload)))
	frame = binary.BigEndian.AppendUint32(frame, crc32.Checksum(payload, crcTable))
	if _, err := r.gz.Write(append(frame, payload...)); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadRecording(&out)
	if err != nil || rec.Cut || rec.Len() != 2 {
		t.Fatalf("read: %v, cut %v (%v), %d steps", err, rec.Cut, rec.CutErr, rec.Len())
	}
	cs, dropped := rec.Changes(1)
	want := []struct{ word, text, node string }{
		{"handoff", "#41 gone → #42 holds after 300µs", "lock-0000000042"},
		{"deleted", "lock-0000000041 deleted (held 2.0s)", "lock-0000000041"},
		{"conn", "disconnected: the model is stale until the link is back", ""},
		{"info", "a kind this build never knew", ""},
	}
	if len(cs) != len(want) || dropped != 2 {
		t.Fatalf("%d changes, %d dropped: %+v", len(cs), dropped, cs)
	}
	for i, w := range want {
		c := cs[i]
		if c.Kind.LogWord() != w.word || c.Text() != w.text || c.Node.Name != w.node || !c.At.Equal(streamT0.Add(time.Second)) {
			t.Errorf("change %d: %s %q node %q, want %s %q node %q", i, c.Kind.LogWord(), c.Text(), c.Node.Name, w.word, w.text, w.node)
		}
	}
}

// TestRecordingKeepsChanges: typed changes come back from a recording
// as they went in (both renderings alike).
func TestRecordingKeepsChanges(t *testing.T) {
	var out bytes.Buffer
	r, err := NewRecorder(&out, RecordingHeader{Zklock: "test"})
	if err != nil {
		t.Fatal(err)
	}
	n := stn(7, 0x1000a, true)
	n.SetData([]byte("evil\x07"))
	in := []model.Change{
		{Kind: model.ChangeReleased, At: streamT0, Path: "/locks/a", Type: model.TypeMutex, Node: n, Held: 2 * time.Second, HeldBound: model.BoundLatest, Wakes: []string{"x-0000000008"}},
		{Kind: model.ChangeAcquired, At: streamT0, Path: "/locks/a", Node: n, From: "x-0000000006", Gap: 300 * time.Microsecond},
		{Kind: model.ChangeConn, At: streamT0, Conn: model.Conn{State: model.StateConnected, Server: "zk1:2181", SessionID: 0x10}, Resume: model.ResumeNew},
		{Kind: model.ChangeCycle, At: streamT0, Path: "/a", Cycle: model.Deadlock{Sessions: []int64{1}, State: model.CycleSelfWait,
			Waits: []model.Wait{{Session: 1, Path: "/a", Node: "x-0000000002", Holder: 1, HolderNode: "x-0000000001"}}}},
		{Kind: model.ChangeListed, At: streamT0, Path: "/s", Type: model.TypeSemaphore, Count: 2, Holders: 1, Limit: 2, Waiting: 1},
	}
	s := &model.Snapshot{At: streamT0}
	if err := r.Record(model.Update{Snapshot: s, Changes: in}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadRecording(&out)
	if err != nil || rec.Len() != 1 {
		t.Fatalf("read: %v, %d steps", err, rec.Len())
	}
	got, _ := rec.Changes(0)
	if len(got) != len(in) {
		t.Fatalf("%d changes back, %d in", len(got), len(in))
	}
	for i := range in {
		gj, _ := json.Marshal(got[i].ToJSON())
		ij, _ := json.Marshal(in[i].ToJSON())
		if got[i].Text() != in[i].Text() || string(gj) != string(ij) || got[i].Kind != in[i].Kind {
			t.Errorf("change %d: back %q (%s), in %q (%s)", i, got[i].Text(), got[i].Kind, in[i].Text(), in[i].Kind)
		}
	}
}
