package peers

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Interval is one critical section: who held, from Start to End. A zero
// End means it has not ended (the holder still holds), so it overlaps
// everything that starts after its Start.
type Interval struct {
	Who        string
	Start, End time.Time
}

func (iv Interval) String() string {
	end := "open"
	if !iv.End.IsZero() {
		end = iv.End.Format("15:04:05.000000")
	}
	return fmt.Sprintf("%s [%s, %s]", iv.Who, iv.Start.Format("15:04:05.000000"), end)
}

// Overlaps is the exclusion check shared by the tests and the benchmarks:
// it returns every pair of intervals that were open at once, the earlier
// start first, in order of the later one's start. Intervals that only
// touch (one ends at the very instant the other starts) do not overlap:
// a release call and the next holder's acquire return can share a clock
// tick.
//
// Times compare by their wall-clock readings (monotonic readings are
// ignored), so that intervals timed by Go and by a driver process compare
// on the one system clock they share.
func Overlaps(ivs []Interval) [][2]Interval {
	type span struct {
		iv         Interval
		start, end int64 // unix nanoseconds; end MaxInt64 when open
	}
	spans := make([]span, 0, len(ivs))
	for _, iv := range ivs {
		s := span{iv: iv, start: iv.Start.UnixNano(), end: math.MaxInt64}
		if !iv.End.IsZero() {
			s.end = iv.End.UnixNano()
		}
		spans = append(spans, s)
	}
	slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var out [][2]Interval
	var open []span // started earlier, maybe not yet ended
	for _, cur := range spans {
		kept := open[:0]
		for _, o := range open {
			if o.end > cur.start {
				out = append(out, [2]Interval{o.iv, cur.iv})
				kept = append(kept, o)
			}
		}
		open = append(kept, cur)
	}
	return out
}

// MostAtOnce is the exclusion check of a semaphore, as Overlaps is of a
// lock: the largest number of intervals open at one instant, and those
// intervals (earliest start first). As in Overlaps, intervals that only
// touch are not open together, an open End never ends, and times compare
// by their wall-clock readings.
func MostAtOnce(ivs []Interval) (int, []Interval) {
	type edge struct {
		at    int64
		start bool
		i     int
	}
	edges := make([]edge, 0, 2*len(ivs))
	for i, iv := range ivs {
		end := int64(math.MaxInt64)
		if !iv.End.IsZero() {
			end = iv.End.UnixNano()
		}
		edges = append(edges, edge{iv.Start.UnixNano(), true, i}, edge{end, false, i})
	}
	slices.SortStableFunc(edges, func(a, b edge) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		switch {
		case a.start == b.start:
			return 0
		case !a.start:
			return -1 // an end at the instant of a start comes first
		}
		return 1
	})
	open := map[int]bool{}
	most, at := 0, []Interval(nil)
	for _, e := range edges {
		if !e.start {
			delete(open, e.i)
			continue
		}
		open[e.i] = true
		if len(open) > most {
			most, at = len(open), at[:0]
			for i := range open {
				at = append(at, ivs[i])
			}
		}
	}
	slices.SortStableFunc(at, func(a, b Interval) int { return cmp.Compare(a.Start.UnixNano(), b.Start.UnixNano()) })
	return most, at
}
