package queue

import (
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/zklock/zklock/model"
)

// TestModelSize holds a Model to 240 bytes: a root keeps one for each of
// up to a million lock parents (the next size class is 256).
func TestModelSize(t *testing.T) {
	if n := unsafe.Sizeof(Model{}); n > 240 {
		t.Errorf("a Model takes %d bytes, want <= 240", n)
	}
}

// TestRecordSize holds a Record to 96 bytes: a root keeps one for each
// lock node of up to a million parents (the next size class is 112).
func TestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(Record{}); n > 96 {
		t.Errorf("a Record takes %d bytes, want <= 96", n)
	}
}

// TestDepthSharedUntilSampled: a built Queue shares the model's depth
// samples, and a later sample, in the same second or the next, changes
// the model's only.
func TestDepthSharedUntilSampled(t *testing.T) {
	t0 := time.Date(2026, 3, 14, 3, 12, 0, 0, time.UTC)
	qm := New("/l", "/l", &Hooks{Emit: func(model.Change) {}})
	one := []string{"lock-0000000000"}
	two := []string{"lock-0000000000", "lock-0000000001"}
	qm.Apply(one, nil, t0, t0, t0)
	q1 := Build(qm, nil, false, time.Time{})
	qm.Apply(two, nil, t0, t0.Add(time.Millisecond), t0)
	q2 := Build(qm, nil, false, time.Time{})
	qm.Apply(one, nil, t0, t0.Add(time.Second), t0)
	q3 := Build(qm, nil, false, time.Time{})
	for _, c := range []struct {
		name string
		q    model.Queue
		want []int
	}{{"first", q1, []int{1}}, {"same second", q2, []int{2}}, {"next second", q3, []int{2, 1}}} {
		var got []int
		for _, s := range c.q.Depth {
			got = append(got, s.Depth)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: depth %v, want %v", c.name, got, c.want)
		}
	}
}

// TestAbsKeptOnlyWhenNotDerived: a Model's path on the server is what it
// was made with, kept apart (its rare part) only when the hooks do not
// derive it from the path: below a chroot a root's parents keep no copy.
func TestAbsKeptOnlyWhenNotDerived(t *testing.T) {
	chroot := func(p string) string { return "/app" + p }
	for _, c := range []struct {
		name, p, abs string
		hooks        *Hooks
		kept         bool
	}{
		{"no chroot", "/l", "/l", &Hooks{}, false},
		{"chroot derived", "/l", "/app/l", &Hooks{Abs: chroot}, false},
		{"chroot not derived", "/l", "/app/l", &Hooks{}, true},
		{"derived otherwise", "/l", "/other/l", &Hooks{Abs: chroot}, true},
	} {
		qm := New(c.p, c.abs, c.hooks)
		if got := qm.Abs(); got != c.abs {
			t.Errorf("%s: Abs %q, want %q", c.name, got, c.abs)
		}
		if kept := qm.rare != nil; kept != c.kept {
			t.Errorf("%s: a rare part %v, want %v", c.name, kept, c.kept)
		}
	}
}

// TestRecordDataNullAndEmpty: a Record keeps its data as a string, and
// the published Node's Data still tells a null data (nil) from an empty
// one (empty, not nil): JSON encodes the two apart.
func TestRecordDataNullAndEmpty(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
	}{{"null", nil}, {"empty", []byte{}}, {"some", []byte("host-a pid 7")}} {
		var r Record
		r.SetData(c.in)
		got := r.DataBytes()
		if (got == nil) != (c.in == nil) || string(got) != string(c.in) {
			t.Errorf("%s: data %#v, want %#v", c.name, got, c.in)
		}
	}
}
