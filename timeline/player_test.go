package timeline

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/zklock/zklock/model"
)

// syntheticRecording records steps updates of a churned model, 100 ms
// apart, with a full snapshot every second.
func syntheticRecording(t *testing.T, steps int) (*Recording, []*model.Snapshot) {
	t.Helper()
	m := newChurnModel(5, 4)
	var file bytes.Buffer
	r, err := NewRecorder(&file, RecordingHeader{Started: m.snap.At, Zklock: "test"})
	if err != nil {
		t.Fatal(err)
	}
	r.FullEvery = time.Second
	snaps := []*model.Snapshot{m.snap}
	if err := r.Record(model.Update{Snapshot: m.snap}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < steps; i++ {
		s := m.step(100 * time.Millisecond)
		snaps = append(snaps, s)
		if err := r.Record(model.Update{Snapshot: s, Changes: []model.Change{{At: s.At, Kind: model.ChangeAcquired, Node: model.Node{Name: "n"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := ReadRecording(&file)
	if err != nil || rec.Len() != steps {
		t.Fatalf("read back: %v, %d steps", err, rec.Len())
	}
	return rec, snaps
}

// TestPlayer: paused at the start; steps forward and back; seeks; plays
// on the recording's clock at the speed asked, every step in order, and
// stops at the end.
func TestPlayer(t *testing.T) {
	rec, snaps := syntheticRecording(t, 40)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := NewPlayer(ctx, rec)
	next := func() model.Update {
		t.Helper()
		select {
		case u := <-p.Updates():
			return u
		case <-time.After(10 * time.Second):
			t.Fatal("no update")
		}
		return model.Update{}
	}
	same := func(what string, got, want *model.Snapshot) {
		t.Helper()
		_, gl := snapJSON(t, got)
		_, wl := snapJSON(t, want)
		if gl != wl {
			t.Fatalf("%s: not the recorded snapshot", what)
		}
	}
	same("start", next().Snapshot, snaps[0])
	if st := p.State(); st.Playing || st.Step != 0 || !st.At.Equal(snaps[0].At) || st.Steps != 40 {
		t.Fatalf("start: %+v", st)
	}
	p.Step(1)
	u := next()
	same("step", u.Snapshot, snaps[1])
	if len(u.Changes) != 1 {
		t.Errorf("a step forward brings its changes: %v", u.Changes)
	}
	p.Step(-1)
	same("step back", next().Snapshot, snaps[0])
	st := p.Seek(snaps[25].At.Add(50 * time.Millisecond))
	same("seek", next().Snapshot, snaps[25])
	if st.Step != 25 || !st.At.Equal(snaps[25].At.Add(50*time.Millisecond)) {
		t.Errorf("seek: %+v", st)
	}
	for range 6 {
		p.Faster()
	}
	if st := p.Faster(); st.Speed != MaxSpeed {
		t.Errorf("speed %v after faster x7", st.Speed)
	}
	p.Seek(snaps[0].At)
	next()
	start := time.Now()
	p.Toggle()
	last := 0
	for last < 39 {
		u := next()
		for i := last; i < len(snaps); i++ {
			if u.Snapshot == nil {
				break
			}
			_, gl := snapJSON(t, u.Snapshot)
			if _, wl := snapJSON(t, snaps[i]); gl == wl {
				if i < last {
					t.Fatalf("went back from %d to %d", last, i)
				}
				last = i
				break
			}
		}
	}
	// 3.9 s of recording at 100x: about 39 ms.
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("playing 3.9 s at 100x took %v", took)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.State().Playing && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if st := p.State(); st.Playing || st.Step != 39 || !st.At.Equal(snaps[39].At) {
		t.Errorf("at the end: %+v", st)
	}
	cancel()
	for range p.Updates() {
	}
}
