package timeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zklock/zklock/model"
)

// A recording (`zklock record`, `zklock replay`) is the model's updates
// written as they come: a full snapshot at the start and every
// RecordFullEvery, and between them what changed (per queue: its header
// when it changed, the nodes that went, the nodes that came or changed
// with their place, the handoffs and depth samples added), with the
// update's changes.
//
// On disk it is gzip: one member per full snapshot and the deltas after
// it, flushed after every record, so a process killed at any moment
// leaves every record it finished readable (gzip readers stop at the
// cut). Inside, after the magic line, each record is framed as
// uvarint(length) crc32c(payload) payload, the payload JSON; the first
// record is the header, with the format version. A record cut short, or
// whose checksum fails, ends the recording there: what came before it
// replays.

// RecordingVersion is the format version written in a recording's
// header. A reader refuses any other version with one line, rather than
// guessing: the version changes when the records change meaning.
const RecordingVersion = 1

// RecordFullEvery spaces full snapshots: replay seeks from the nearest
// one before the wanted moment, and a recording whose start was lost
// (never: the first record is full) still has a place to start from.
const RecordFullEvery = 30 * time.Second

// recordingMagic opens the decompressed stream.
const recordingMagic = "zklock-recording\n"

// maxRecord bounds one record read back (a full snapshot of 1,000
// parents of 10 nodes is about 5 MB of JSON): a longer length is a
// damaged file, not an allocation to make.
const maxRecord = 1 << 30

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// ErrNotRecording: the file is not a zklock recording, or one whose
// format this build does not read.
var ErrNotRecording = errors.New("timeline: not a zklock recording")

// RecordingHeader opens a recording.
type RecordingHeader struct {
	Version int       `json:"version"`
	Started time.Time `json:"started"`
	Zklock  string    `json:"zklock"` // the build that wrote it
	Servers string    `json:"servers,omitempty"`
	Context string    `json:"context,omitempty"`
	Paths   []string  `json:"paths,omitempty"`
	Roots   []string  `json:"roots,omitempty"`
}

// record is one framed record. Kind: "header", "full" (Snap), "delta".
type record struct {
	Kind    string           `json:"k"`
	Header  *RecordingHeader `json:"h,omitempty"`
	Snap    *model.Snapshot  `json:"s,omitempty"`
	At      time.Time        `json:"at"`
	Top     *model.Snapshot  `json:"top,omitempty"` // the snapshot's fields but At and Queues, when they changed
	Queues  []queueDelta     `json:"q,omitempty"`
	Changes []model.Change   `json:"c,omitempty"`
	Events  []eventV0        `json:"e,omitempty"` // written before changes were typed (recordevents.go)
	Dropped int              `json:"x,omitempty"`
}

// queueDelta is how one queue changed; a queue not named did not.
type queueDelta struct {
	Path string `json:"p"`
	Gone bool   `json:"gone,omitempty"` // left the model
	// Head is the queue's fields but Nodes, Handoffs and Depth, when new
	// or changed.
	Head *model.Queue `json:"head,omitempty"`
	// Nodes replaces the node list whole (a new queue, or an order the
	// moves below cannot say); else Removed and Put apply.
	Nodes    []model.Node                  `json:"nodes,omitempty"`
	All      bool                          `json:"all,omitempty"` // Nodes is the whole list (maybe empty)
	Removed  []string                      `json:"rm,omitempty"`  // node keys
	Put      []nodeAt                      `json:"put,omitempty"` // ascending I
	Handoffs *listDelta[model.Handoff]     `json:"ho,omitempty"`
	Depth    *listDelta[model.DepthSample] `json:"dp,omitempty"`
}

// nodeAt is a node and its index in the new list.
type nodeAt struct {
	I int        `json:"i"`
	N model.Node `json:"n"`
}

// listDelta: new = old[Drop : len(old)-Trunc] + Add.
type listDelta[T any] struct {
	Drop  int `json:"d,omitempty"`
	Trunc int `json:"t,omitempty"`
	Add   []T `json:"a,omitempty"`
}

func (d *listDelta[T]) apply(old []T) []T {
	if d == nil {
		return old
	}
	end := len(old) - d.Trunc
	if d.Drop > end || end < 0 {
		return slices.Clone(d.Add) // damaged: keep what it says
	}
	out := make([]T, 0, end-d.Drop+len(d.Add))
	out = append(out, old[d.Drop:end]...)
	return append(out, d.Add...)
}

// diffList finds the delta from old to new (elements compared with eq).
func diffList[T any](old, new []T, eq func(a, b T) bool) *listDelta[T] {
	if len(old) == len(new) {
		same := true
		for i := range old {
			if !eq(old[i], new[i]) {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	if len(new) == 0 {
		return &listDelta[T]{Drop: len(old)}
	}
	drop := len(old)
	for i := range old {
		if eq(old[i], new[0]) {
			drop = i
			break
		}
	}
	keep := 0
	for drop+keep < len(old) && keep < len(new) && eq(old[drop+keep], new[keep]) {
		keep++
	}
	return &listDelta[T]{Drop: drop, Trunc: len(old) - drop - keep, Add: slices.Clone(new[keep:])}
}

// Recorder writes a recording. Not safe for concurrent use.
type Recorder struct {
	w        io.Writer
	gz       *gzip.Writer
	last     *model.Snapshot
	lastFull time.Time
	// FullEvery spaces full snapshots (RecordFullEvery when zero).
	FullEvery time.Duration
	buf       bytes.Buffer
	frame     []byte
	records   int
}

// NewRecorder starts a recording on w (a file opened for writing) with
// its header; h.Version is set to RecordingVersion.
func NewRecorder(w io.Writer, h RecordingHeader) (*Recorder, error) {
	h.Version = RecordingVersion
	r := &Recorder{w: w}
	if err := r.startMember(); err != nil {
		return nil, err
	}
	if _, err := r.gz.Write([]byte(recordingMagic)); err != nil {
		return nil, fmt.Errorf("timeline: record: %w", err)
	}
	if err := r.write(&record{Kind: "header", Header: &h, At: h.Started}); err != nil {
		return nil, err
	}
	return r, nil
}

// Records is how many records were written (the header included).
func (r *Recorder) Records() int { return r.records }

// startMember ends the current gzip member, if any, and starts another.
func (r *Recorder) startMember() error {
	if r.gz != nil {
		if err := r.gz.Close(); err != nil {
			return fmt.Errorf("timeline: record: %w", err)
		}
		r.gz.Reset(r.w)
		return nil
	}
	gz, err := gzip.NewWriterLevel(r.w, gzip.BestSpeed)
	if err != nil {
		return fmt.Errorf("timeline: record: %w", err)
	}
	r.gz = gz
	return nil
}

// write frames one record and flushes it to w.
func (r *Recorder) write(rec *record) error {
	r.buf.Reset()
	enc := json.NewEncoder(&r.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return fmt.Errorf("timeline: record: %w", err)
	}
	payload := r.buf.Bytes()
	r.frame = binary.AppendUvarint(r.frame[:0], uint64(len(payload)))
	r.frame = binary.BigEndian.AppendUint32(r.frame, crc32.Checksum(payload, crcTable))
	if _, err := r.gz.Write(r.frame); err != nil {
		return fmt.Errorf("timeline: record: %w", err)
	}
	if _, err := r.gz.Write(payload); err != nil {
		return fmt.Errorf("timeline: record: %w", err)
	}
	if err := r.gz.Flush(); err != nil {
		return fmt.Errorf("timeline: record: %w", err)
	}
	r.records++
	return nil
}

// Record writes one update: a full snapshot at the start and every
// FullEvery (of the snapshots' clock), else what changed since the
// previous one.
func (r *Recorder) Record(u model.Update) error {
	snap := u.Snapshot
	if snap == nil {
		return nil
	}
	every := r.FullEvery
	if every <= 0 {
		every = RecordFullEvery
	}
	if r.last == nil || snap.At.Sub(r.lastFull) >= every {
		if r.last != nil {
			if err := r.startMember(); err != nil {
				return err
			}
		}
		if err := r.write(&record{Kind: "full", Snap: snap, At: snap.At, Changes: u.Changes, Dropped: u.Dropped}); err != nil {
			return err
		}
		r.last, r.lastFull = snap, snap.At
		return nil
	}
	rec := deltaOf(r.last, snap)
	rec.Changes, rec.Dropped = u.Changes, u.Dropped
	if err := r.write(rec); err != nil {
		return err
	}
	r.last = snap
	return nil
}

// Close ends the recording's last gzip member (the file stays the
// caller's to close). A recording not closed still replays.
func (r *Recorder) Close() error {
	if err := r.gz.Close(); err != nil {
		return fmt.Errorf("timeline: record: %w", err)
	}
	return nil
}

// topOf is s without At and Queues, for comparing and recording.
func topOf(s *model.Snapshot) model.Snapshot {
	t := *s
	t.At, t.Queues = time.Time{}, model.Queues{}
	return t
}

// headOf is q without its lists.
func headOf(q *model.Queue) model.Queue {
	h := *q
	h.Nodes, h.Depth = model.Nodes{}, nil
	h.SetHandoffs(nil)
	return h
}

// deltaOf is the delta record from prev to next.
func deltaOf(prev, next *model.Snapshot) *record {
	rec := &record{Kind: "delta", At: next.At}
	if pt, nt := topOf(prev), topOf(next); !reflect.DeepEqual(pt, nt) {
		rec.Top = &nt
	}
	prevBy := make(map[string]*model.Queue, prev.Queues.Len())
	for _, pq := range prev.Queues.All() {
		prevBy[pq.Path] = pq
	}
	for _, nq := range next.Queues.All() {
		pq := prevBy[nq.Path]
		delete(prevBy, nq.Path)
		if pq == nil {
			h := headOf(nq)
			rec.Queues = append(rec.Queues, queueDelta{Path: nq.Path, Head: &h, Nodes: nq.Nodes.Slice(), All: true,
				Handoffs: diffList(nil, nq.Handoffs(), eqHandoff), Depth: diffList(nil, nq.Depth, eqDepth)})
			continue
		}
		if qd, changed := queueDeltaOf(pq, nq); changed {
			rec.Queues = append(rec.Queues, qd)
		}
	}
	gone := make([]string, 0, len(prevBy))
	for p := range prevBy {
		gone = append(gone, p)
	}
	sort.Strings(gone)
	for _, p := range gone {
		rec.Queues = append(rec.Queues, queueDelta{Path: p, Gone: true})
	}
	return rec
}

func eqHandoff(a, b model.Handoff) bool {
	return a.Path == b.Path && a.From == b.From && a.To == b.To && a.At.Equal(b.At) && a.Gap == b.Gap
}
func eqDepth(a, b model.DepthSample) bool { return a.Depth == b.Depth && a.At.Equal(b.At) }

// sameList reports that a and b are the very same slice.
func sameList[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// queueDeltaOf is how pq became nq, and whether it changed.
func queueDeltaOf(pq, nq *model.Queue) (queueDelta, bool) {
	if nq.Nodes.Len() > 0 && pq.Nodes.Shares(nq.Nodes) && sameList(pq.Warnings(), nq.Warnings()) &&
		sameList(pq.Handoffs(), nq.Handoffs()) && sameList(pq.Depth, nq.Depth) && sameList(pq.Other(), nq.Other()) {
		return queueDelta{}, false // the watcher published the same queue again
	}
	qd := queueDelta{Path: nq.Path}
	changed := false
	if ph, nh := headOf(pq), headOf(nq); !reflect.DeepEqual(ph, nh) {
		qd.Head, changed = &nh, true
	}
	if d := diffList(pq.Handoffs(), nq.Handoffs(), eqHandoff); d != nil {
		qd.Handoffs, changed = d, true
	}
	if d := diffList(pq.Depth, nq.Depth, eqDepth); d != nil {
		qd.Depth, changed = d, true
	}
	if !pq.Nodes.Shares(nq.Nodes) {
		prevBy := make(map[string]*model.Node, pq.Nodes.Len())
		for _, n := range pq.Nodes.All() {
			prevBy[n.Key()] = n
		}
		inNext := make(map[string]bool, nq.Nodes.Len())
		for k, n := range nq.Nodes.All() {
			key := n.Key()
			inNext[key] = true
			if p, ok := prevBy[key]; !ok || !reflect.DeepEqual(*p, *n) {
				qd.Put = append(qd.Put, nodeAt{I: k, N: *n})
			}
		}
		for _, n := range pq.Nodes.All() {
			if key := n.Key(); !inNext[key] {
				qd.Removed = append(qd.Removed, key)
			}
		}
		// The moves must give next's order; when they do not (nodes
		// that changed places without changing), send the list whole.
		if got := applyNodes(pq.Nodes, qd.Removed, qd.Put); !sameKeys(got, nq.Nodes) {
			qd.Removed, qd.Put, qd.Nodes, qd.All = nil, nil, nq.Nodes.Slice(), true
		}
		if qd.All || len(qd.Put) > 0 || len(qd.Removed) > 0 {
			changed = true
		}
	}
	return qd, changed
}

// applyNodes is old without removed and put nodes, then each put node
// inserted at its index (ascending).
func applyNodes(old model.Nodes, removed []string, put []nodeAt) []model.Node {
	drop := make(map[string]bool, len(removed)+len(put))
	for _, k := range removed {
		drop[k] = true
	}
	for i := range put {
		drop[put[i].N.Key()] = true
	}
	out := make([]model.Node, 0, old.Len()+len(put))
	for _, n := range old.All() {
		if !drop[n.Key()] {
			out = append(out, *n)
		}
	}
	for _, p := range put {
		i := min(max(p.I, 0), len(out))
		out = slices.Insert(out, i, p.N)
	}
	return out
}

func sameKeys(a []model.Node, b model.Nodes) bool {
	if len(a) != b.Len() {
		return false
	}
	for i, n := range b.All() {
		if a[i].Key() != n.Key() {
			return false
		}
	}
	return true
}

// Recording is a recording read back: its header and its steps, each one
// update. Snapshots are rebuilt on demand (Cursor), from the nearest full
// snapshot before.
type Recording struct {
	Header RecordingHeader
	steps  []*record
	// Cut is true when the file ended inside a record (a recorder
	// killed mid-write) or a record was damaged: the steps are those
	// before it.
	Cut bool
	// CutErr says what ended it when Cut.
	CutErr error
}

// Len is the number of steps (updates) recorded.
func (rec *Recording) Len() int { return len(rec.steps) }

// At is when step i's snapshot was taken.
func (rec *Recording) At(i int) time.Time { return rec.steps[i].At }

// Changes are the model's changes of step i (for the console's log).
func (rec *Recording) Changes(i int) ([]model.Change, int) {
	return rec.steps[i].Changes, rec.steps[i].Dropped
}

// Search is the last step taken at or before t (0 when t is before the
// first).
func (rec *Recording) Search(t time.Time) int {
	i := sort.Search(len(rec.steps), func(i int) bool { return rec.steps[i].At.After(t) })
	return max(i-1, 0)
}

// ReadRecording reads a recording whole. A file that is not a recording,
// or of another format version, is an error (ErrNotRecording) saying so
// in one line; a file cut short is not (Recording.Cut).
func ReadRecording(r io.Reader) (*Recording, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	gz, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%w (not gzip: %v)", ErrNotRecording, err)
	}
	defer gz.Close()
	in := bufio.NewReaderSize(gz, 64<<10)
	magic := make([]byte, len(recordingMagic))
	if n, err := io.ReadFull(in, magic); err != nil || string(magic) != recordingMagic {
		if err != nil && strings.HasPrefix(recordingMagic, string(magic[:n])) {
			return nil, fmt.Errorf("%w (it ends inside its header: the recorder stopped at once)", ErrNotRecording)
		}
		return nil, fmt.Errorf("%w (no zklock header)", ErrNotRecording)
	}
	first, err := readRecord(in)
	if errors.Is(err, errCut) || errors.Is(err, errUnclosed) {
		return nil, fmt.Errorf("%w (it ends inside its header: the recorder stopped at once)", ErrNotRecording)
	}
	if err != nil || first.Kind != "header" || first.Header == nil {
		return nil, fmt.Errorf("%w (its header is damaged)", ErrNotRecording)
	}
	h := *first.Header
	if h.Version != RecordingVersion {
		by := ""
		if h.Zklock != "" {
			by = ", written by zklock " + h.Zklock
		}
		return nil, fmt.Errorf("%w: format version %d%s; this zklock reads version %d", ErrNotRecording, h.Version, by, RecordingVersion)
	}
	rec := &Recording{Header: h}
	for {
		r, err := readRecord(in)
		if err == io.EOF {
			return rec, nil
		}
		if err != nil {
			rec.Cut, rec.CutErr = true, err
			return rec, nil
		}
		switch r.Kind {
		case "full":
			if r.Snap == nil {
				rec.Cut, rec.CutErr = true, errors.New("a full record without its snapshot")
				return rec, nil
			}
		case "delta":
			if len(rec.steps) == 0 {
				rec.Cut, rec.CutErr = true, errors.New("a delta before any full snapshot")
				return rec, nil
			}
		default:
			continue // a kind from a newer build within this version: skipped
		}
		rec.steps = append(rec.steps, r)
	}
}

// errCut: the stream ended inside a record; errUnclosed: it ended
// between two records without the end of its compression (the recorder
// was killed).
var (
	errCut      = errors.New("the recording ends inside a record (cut)")
	errUnclosed = errors.New("the recording was not closed (the recorder stopped without closing it)")
)

// readRecord reads one framed record; io.EOF at a clean end.
func readRecord(in *bufio.Reader) (*record, error) {
	if _, err := in.Peek(1); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		// Every record before is whole; the gzip stream was not ended.
		return nil, errUnclosed
	}
	n, err := binary.ReadUvarint(in)
	if err != nil {
		return nil, cutError(err)
	}
	if n > maxRecord {
		return nil, fmt.Errorf("a record of %d bytes: damaged", n)
	}
	var sum [4]byte
	if _, err := io.ReadFull(in, sum[:]); err != nil {
		return nil, cutError(err)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(in, payload); err != nil {
		return nil, cutError(err)
	}
	if crc32.Checksum(payload, crcTable) != binary.BigEndian.Uint32(sum[:]) {
		return nil, errors.New("a record's checksum fails: damaged")
	}
	var r record
	if err := json.Unmarshal(payload, &r); err != nil {
		return nil, fmt.Errorf("a record does not decode: %w", err)
	}
	r.Changes = append(r.Changes, changesOf(r.Events)...)
	r.Events = nil
	return &r, nil
}

func cutError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errCut
	}
	return fmt.Errorf("%w: %w", errCut, err)
}

// Cursor rebuilds a recording's snapshots, moving forward by deltas and
// back from the nearest full snapshot.
type Cursor struct {
	rec  *Recording
	i    int
	snap *model.Snapshot
}

// NewCursor is a cursor before the first step.
func (rec *Recording) NewCursor() *Cursor { return &Cursor{rec: rec, i: -1} }

// Index is the step the cursor is on (-1 before the first).
func (c *Cursor) Index() int { return c.i }

// Snapshot is the snapshot at the cursor (nil before the first step).
func (c *Cursor) Snapshot() *model.Snapshot { return c.snap }

// Seek moves to step i and returns its snapshot.
func (c *Cursor) Seek(i int) *model.Snapshot {
	if len(c.rec.steps) == 0 {
		return nil
	}
	i = min(max(i, 0), len(c.rec.steps)-1)
	if i < c.i || c.i < 0 {
		// Back to the nearest full snapshot at or before i.
		k := i
		for c.rec.steps[k].Kind != "full" {
			k--
		}
		c.i, c.snap = k, c.rec.steps[k].Snap
	}
	for c.i < i {
		c.i++
		st := c.rec.steps[c.i]
		if st.Kind == "full" {
			c.snap = st.Snap
		} else {
			c.snap = applyDelta(c.snap, st)
		}
	}
	return c.snap
}

// applyDelta is prev changed by a delta record: a new snapshot (prev is
// not modified; unchanged queues share their lists with it).
func applyDelta(prev *model.Snapshot, d *record) *model.Snapshot {
	var next model.Snapshot
	if d.Top != nil {
		next = *d.Top
	} else {
		next = topOf(prev)
	}
	next.At = d.At
	byPath := make(map[string]int, len(d.Queues))
	for k := range d.Queues {
		byPath[d.Queues[k].Path] = k
	}
	queues := make([]model.Queue, 0, prev.Queues.Len()+len(d.Queues))
	for _, pq := range prev.Queues.All() {
		k, ok := byPath[pq.Path]
		if !ok {
			queues = append(queues, *pq)
			continue
		}
		qd := &d.Queues[k]
		delete(byPath, pq.Path)
		if qd.Gone {
			continue
		}
		queues = append(queues, applyQueue(pq, qd))
	}
	for k := range d.Queues { // new queues
		qd := &d.Queues[k]
		if _, ok := byPath[qd.Path]; !ok || qd.Gone {
			continue
		}
		queues = append(queues, applyQueue(&model.Queue{Path: qd.Path}, qd))
	}
	sort.SliceStable(queues, func(a, b int) bool { return queues[a].Path < queues[b].Path })
	next.Queues = model.QueuesOf(queues...)
	return &next
}

func applyQueue(pq *model.Queue, qd *queueDelta) model.Queue {
	q := *pq
	if qd.Head != nil {
		q = *qd.Head
		q.Nodes, q.Depth = pq.Nodes, pq.Depth
		q.SetHandoffs(pq.Handoffs())
	}
	switch {
	case qd.All:
		q.Nodes = model.NodesOf(qd.Nodes...)
	case len(qd.Removed) > 0 || len(qd.Put) > 0:
		q.Nodes = model.NodesOf(applyNodes(pq.Nodes, qd.Removed, qd.Put)...)
	}
	q.SetHandoffs(qd.Handoffs.apply(q.Handoffs()))
	q.Depth = qd.Depth.apply(q.Depth)
	return q
}
