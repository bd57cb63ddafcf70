package model

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

// TestQueueSize: a root holds one Queue per lock parent in each published
// snapshot (issue #34); it must not grow back (264 bytes before its rare
// fields moved behind a pointer).
func TestQueueSize(t *testing.T) {
	const want = 96
	if got := unsafe.Sizeof(Queue{}); got > want {
		t.Errorf("unsafe.Sizeof(Queue{}) = %d, want at most %d", got, want)
	}
}

// TestQueueJSONWire: JSON written before the rare fields moved (testdata,
// made at ad11d8e by testdata/gen-ad11d8e.go.txt: every field set, slices
// empty and nil, times in other zones and out of range, HTML to escape)
// reads back and is written again byte for byte, by json.Marshal of a
// Snapshot (as recordings hold queues) and by an encoder that does not
// escape HTML, over a []Queue.
func TestQueueJSONWire(t *testing.T) {
	snapJSON, err := os.ReadFile("testdata/snapshot-ad11d8e.json")
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	if err := json.Unmarshal(snapJSON, &snap); err != nil {
		t.Fatal(err)
	}
	if snap.Queues.Len() != 9 {
		t.Fatalf("read %d queues, want 9", snap.Queues.Len())
	}
	again, err := json.Marshal(&snap)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.TrimSpace(snapJSON); !bytes.Equal(again, want) {
		t.Errorf("snapshot written again differs:\ngot  %s\nwant %s", again, want)
	}

	qsJSON, err := os.ReadFile("testdata/queues-noescape-ad11d8e.json")
	if err != nil {
		t.Fatal(err)
	}
	var qs []Queue
	if err := json.Unmarshal(qsJSON, &qs); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(qs); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), qsJSON) {
		t.Errorf("queues written again differ:\ngot  %s\nwant %s", buf.Bytes(), qsJSON)
	}
	if !reflect.DeepEqual(qs, snap.Queues.Slice()) {
		t.Errorf("the two files read as different queues")
	}
}

// TestQueueRare: the common parent points to nothing; setting a rare
// field copies what the queue pointed to (a published queue sharing it
// is not changed), and setting it back to zero points to nothing again.
func TestQueueRare(t *testing.T) {
	var q Queue
	q.SetErr("")
	q.SetWarnings(nil)
	q.SetListedAt(time.Now())
	if q.rare != nil {
		t.Fatalf("zero rare fields and a local ListedAt allocated %+v", q.rare)
	}
	published := q
	published.SetWarnings([]Warning{{Code: WarnHerd}})
	published.SetSystem("kafka")
	q = published // shares published's rare fields
	q.SetErr("boom")
	q.SetLabel("kafka controller")
	q.AddWarnings(Warning{Code: WarnStale})
	if published.Err() != "" || published.Label() != "" || len(published.Warnings()) != 1 {
		t.Errorf("changing a copy changed the published queue: %+v", published.Rare())
	}
	if q.Err() != "boom" || q.System() != "kafka" || q.Label() != "kafka controller" || len(q.Warnings()) != 2 {
		t.Errorf("copy = %+v, want its own changes on published's fields", q.Rare())
	}
	q.SetRare(QueueRare{})
	if q.rare != nil {
		t.Errorf("rare fields set back to zero still point to %+v", q.rare)
	}
	if got := q.WithRare(QueueRare{Other: []string{}}); got.Other() == nil {
		t.Errorf("an empty Other became nil (it is written [], not null)")
	}
}

// TestQueueListedAt: ListedAt comes back as set, to the nanosecond, in
// the zone's offset it had; times the compact form cannot hold are kept
// whole.
func TestQueueListedAt(t *testing.T) {
	local := time.Date(2026, 3, 14, 3, 12, 4, 123456789, time.Local)
	for _, at := range []time.Time{
		{},
		local,
		local.UTC(),
		local.In(time.FixedZone("X", -7*3600)),
		time.Unix(0, 0),
		time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		var q Queue
		q.SetListedAt(at)
		got := q.ListedAt()
		_, go1 := got.Zone()
		_, wo := at.Zone()
		if !got.Equal(at) || go1 != wo || got.IsZero() != at.IsZero() {
			t.Errorf("SetListedAt(%v): ListedAt() = %v", at, got)
		}
		q.SetListedAt(local)
		if q.rare != nil {
			t.Errorf("after SetListedAt(%v), a local time still keeps %+v", at, q.rare)
		}
	}
}
