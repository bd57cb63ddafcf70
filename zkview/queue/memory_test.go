package queue

import (
	"reflect"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// TestModelSize holds a Tracker to 96 bytes: a root keeps one for each of
// up to a million lock parents (the next size class is 112).
func TestTrackerSize(t *testing.T) {
	if n := unsafe.Sizeof(Tracker{}); n > 96 {
		t.Errorf("a Tracker takes %d bytes, want <= 96", n)
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

// TestAbsKeptOnlyWhenNotDerived: a Tracker's path on the server is what it
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

// TestDepthFirstSampleShared: models sampled in the same second with the
// same small depth share one array of one sample, and a later sample of
// one of them changes neither the others' samples nor a Queue built
// before it.
func TestDepthFirstSampleShared(t *testing.T) {
	t0 := time.Date(2026, 3, 14, 3, 12, 0, 0, time.UTC)
	h := &Hooks{Emit: func(model.Change) {}}
	one := []string{"lock-0000000000"}
	two := []string{"lock-0000000000", "lock-0000000001"}
	a, b, c := New("/a", "/a", h), New("/b", "/b", h), New("/c", "/c", h)
	a.Apply(one, nil, t0, t0, t0)
	b.Apply(one, nil, t0, t0.Add(time.Millisecond), t0)
	c.Apply(two, nil, t0, t0, t0)
	if a.x != b.x {
		t.Errorf("a and b sampled depth 1 in one second: extras %p and %p, want one", a.x, b.x)
	}
	if a.x == c.x {
		t.Errorf("a (depth 1) and c (depth 2) share their samples")
	}
	qa := Build(a, nil, false, time.Time{})
	b.Apply(two, nil, t0, t0.Add(2*time.Millisecond), t0) // same second, deeper
	a.Apply(one, nil, t0, t0.Add(time.Second), t0)        // the next second
	depths := func(d []model.DepthSample) []int {
		var got []int
		for _, s := range d {
			got = append(got, s.Depth)
		}
		return got
	}
	for _, x := range []struct {
		name string
		got  []model.DepthSample
		want []int
	}{
		{"a's Queue built before", qa.Depth, []int{1}},
		{"a after the next second", Build(a, nil, false, time.Time{}).Depth, []int{1, 1}},
		{"b deeper in the same second", Build(b, nil, false, time.Time{}).Depth, []int{2}},
		{"c", Build(c, nil, false, time.Time{}).Depth, []int{2}},
	} {
		if !slices.Equal(depths(x.got), x.want) {
			t.Errorf("%s: depth %v, want %v", x.name, depths(x.got), x.want)
		}
	}
	d, e := New("/d", "/d", h), New("/e", "/e", h)
	d.Apply(one, nil, t0, t0.Add(time.Second), t0)
	e.Apply(one, nil, t0, t0.Add(time.Second+time.Millisecond), t0)
	if d.x != e.x || len(d.x.depth) != 1 || d.x.depth[0] != (model.DepthSample{At: t0.Add(time.Second), Depth: 1}) {
		t.Errorf("d and e sampled depth 1 in the next second: %v and %v, want one shared sample", d.x.depth, e.x.depth)
	}
	// A model that keeps its listing has an extra of its own, and shares
	// only the sample's array.
	g := New("/g", "/g", h)
	g.Apply([]string{"lock-0000000000", "config"}, nil, t0, t0.Add(time.Second), t0)
	if g.x == d.x || &g.x.depth[0] != &d.x.depth[0] {
		t.Errorf("g: extra shared %v, sample's array shared %v; want false, true", g.x == d.x, &g.x.depth[0] == &d.x.depth[0])
	}
	g.Apply(two, nil, t0, t0.Add(time.Second+time.Millisecond), t0)
	if got, want := depths(g.x.depth), []int{2}; !slices.Equal(got, want) {
		t.Errorf("g deeper in the same second: depth %v, want %v", got, want)
	}
	for name, m := range map[string]*Tracker{"d": d, "e": e} {
		if got, want := depths(m.x.depth), []int{1}; !slices.Equal(got, want) || m.Kids()[0] != "lock-0000000000" || len(m.Kids()) != 1 {
			t.Errorf("%s after g changed: depth %v, kids %v; want %v, [lock-0000000000]", name, got, m.Kids(), want)
		}
	}
}

// TestKidsAsListed: Kids is the last listing in the listing's order,
// kept apart only when it is not the lock nodes' names in sequence
// order, and nil after a change merged (ApplyChange) or a reset; Order,
// kept in parts, reads back as the ordering function made it.
func TestKidsAsListed(t *testing.T) {
	t0 := time.Date(2026, 3, 14, 3, 12, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		kids []string
		kept bool
	}{
		{"none", nil, false},
		{"one lock node", []string{"lock-0000000000"}, false},
		{"in sequence order", []string{"lock-0000000000", "lock-0000000001"}, false},
		{"listed out of order", []string{"lock-0000000001", "lock-0000000000"}, true},
		{"with another child", []string{"lock-0000000000", "config"}, true},
		{"another child only", []string{"config"}, true},
	} {
		qm := New("/l", "/l", &Hooks{Emit: func(model.Change) {}})
		qm.Apply(c.kids, nil, t0, t0, t0)
		if got := qm.Kids(); !slices.Equal(got, c.kids) {
			t.Errorf("%s: Kids %v, want %v", c.name, got, c.kids)
		}
		if kept := qm.x.kids != nil; kept != c.kept {
			t.Errorf("%s: listing kept apart %v, want %v", c.name, kept, c.kept)
		}
		// The order taken apart (Other in x) reads back whole, its
		// shape as found.
		if got, want := qm.Order(), ordering.Order(c.kids); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Order %+v, want %+v", c.name, got, want)
		}
	}
	qm := New("/l", "/l", &Hooks{Emit: func(model.Change) {}})
	qm.Apply([]string{"config", "lock-0000000000"}, nil, t0, t0, t0)
	qm.Apply([]string{"lock-0000000000"}, nil, t0, t0, t0)
	if got, want := qm.Order(), ordering.Order([]string{"lock-0000000000"}); !reflect.DeepEqual(got, want) {
		t.Errorf("after another child went: Order %+v, want %+v", got, want)
	}
	order, touched, ok := qm.Order().ChangeOwned([]string{"lock-0000000001"}, nil)
	if !ok {
		t.Fatal("a join at the tail does not fit a change")
	}
	qm.ApplyChange(order, touched, PriorOf(qm.Order(), nil), nil, t0, t0, t0)
	if got := qm.Order(); !reflect.DeepEqual(got, order) {
		t.Errorf("after a change: Order %+v, want %+v", got, order)
	}
	if got := qm.Kids(); got != nil {
		t.Errorf("after a change: Kids %v, want nil", got)
	}
	qm.SetState(model.PathAbsent, "", t0)
	if got := qm.Kids(); got != nil {
		t.Errorf("absent: Kids %v, want nil", got)
	}
}
