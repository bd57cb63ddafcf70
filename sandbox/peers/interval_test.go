package peers

import (
	"testing"
	"time"
)

func TestOverlaps(t *testing.T) {
	base := time.Unix(1_700_000_000, 0)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	iv := func(who string, from, to int) Interval {
		end := time.Time{}
		if to >= 0 {
			end = at(to)
		}
		return Interval{Who: who, Start: at(from), End: end}
	}
	tests := []struct {
		name string
		ivs  []Interval
		want [][2]string // pairs of Who, earlier start first
	}{
		{"none", nil, nil},
		{"one", []Interval{iv("a", 0, 10)}, nil},
		{"touching", []Interval{iv("a", 0, 10), iv("b", 10, 20), iv("c", 20, 30)}, nil},
		{"touching out of order", []Interval{iv("c", 20, 30), iv("a", 0, 10), iv("b", 10, 20)}, nil},
		{"gap", []Interval{iv("a", 0, 10), iv("b", 11, 20)}, nil},
		{"overlap by a nanosecond", []Interval{iv("a", 0, 10), {Who: "b", Start: at(10).Add(-time.Nanosecond), End: at(20)}}, [][2]string{{"a", "b"}}},
		{"inside", []Interval{iv("a", 0, 100), iv("b", 10, 20), iv("c", 30, 40)}, [][2]string{{"a", "b"}, {"a", "c"}}},
		{"same start", []Interval{iv("a", 5, 10), iv("b", 5, 6)}, [][2]string{{"a", "b"}}},
		{"chain", []Interval{iv("a", 0, 10), iv("b", 5, 15), iv("c", 12, 20)}, [][2]string{{"a", "b"}, {"b", "c"}}},
		{"open holder", []Interval{iv("a", 0, -1), iv("b", 1000, 1001)}, [][2]string{{"a", "b"}}},
		{"open after closed", []Interval{iv("a", 0, 10), iv("b", 10, -1)}, nil},
		{"zero length inside", []Interval{iv("a", 0, 10), iv("b", 5, 5)}, [][2]string{{"a", "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Overlaps(tt.ivs)
			if len(got) != len(tt.want) {
				t.Fatalf("Overlaps = %v, want pairs %v", got, tt.want)
			}
			for i, p := range got {
				if p[0].Who != tt.want[i][0] || p[1].Who != tt.want[i][1] {
					t.Errorf("pair %d = %v, want %v", i, p, tt.want[i])
				}
			}
		})
	}
}

// TestOverlapsWallClock: a Go time (with a monotonic reading) and a
// driver's time (wall clock only) compare on the wall clock.
func TestOverlapsWallClock(t *testing.T) {
	now := time.Now()
	driver := time.Unix(0, now.UnixNano()) // as a driver's line would give it
	a := Interval{Who: "go", Start: now.Add(-time.Second), End: now}
	b := Interval{Who: "curator", Start: driver, End: driver.Add(time.Second)}
	if ov := Overlaps([]Interval{a, b}); len(ov) != 0 {
		t.Fatalf("touching intervals from two clocks overlap: %v", ov)
	}
	b.Start = driver.Add(-time.Microsecond)
	if ov := Overlaps([]Interval{a, b}); len(ov) != 1 {
		t.Fatalf("overlap by a microsecond not found: %v", ov)
	}
}

func TestParseCycle(t *testing.T) {
	c, loop, err := parseCycle("l3 2 1 0 _c_x-lock-0000000004 100 200 300 400 0 0 1a2b release: boom went the lock")
	if err != nil {
		t.Fatal(err)
	}
	if loop != "l3" || c.Client != 2 || !c.Held || c.GaveUp || c.Node != "_c_x-lock-0000000004" ||
		c.Requested.UnixNano() != 100 || c.Acquired.UnixNano() != 200 || c.ReleaseCalled.UnixNano() != 300 ||
		c.ReleaseReturned.UnixNano() != 400 || !c.Notice.IsZero() || c.Lost || c.Session != 0x1a2b ||
		c.Err != "release: boom went the lock" {
		t.Fatalf("parsed %q %+v", loop, c)
	}
	g, _, err := parseCycle("l3 0 0 1 - 100 150 0 0 0 0 ff -")
	if err != nil || g.Held || !g.GaveUp || g.Node != "" || !g.ReleaseCalled.IsZero() || g.Err != "" {
		t.Fatalf("gave-up cycle %+v, %v", g, err)
	}
	if got := Intervals("kazoo", []Cycle{c, g}); len(got) != 1 || got[0].Who != "kazoo/2" {
		t.Fatalf("Intervals = %v", got)
	}
	if _, _, err := parseCycle("l3 0 0"); err == nil {
		t.Fatal("short line accepted")
	}
}

func TestMostAtOnce(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, int64(ms)*int64(time.Millisecond)) }
	for _, tt := range []struct {
		name string
		ivs  []Interval
		want int
	}{
		{"none", nil, 0},
		{"touching", []Interval{{Start: at(0), End: at(10)}, {Start: at(10), End: at(20)}}, 1},
		{"three over one", []Interval{{Start: at(0), End: at(100)}, {Start: at(10), End: at(20)}, {Start: at(15), End: at(30)}, {Start: at(25), End: at(26)}}, 3},
		{"open", []Interval{{Start: at(0)}, {Start: at(500), End: at(600)}}, 2},
	} {
		got, open := MostAtOnce(tt.ivs)
		if got != tt.want || len(open) != tt.want {
			t.Errorf("%s: %d (%v), want %d", tt.name, got, open, tt.want)
		}
	}
}
