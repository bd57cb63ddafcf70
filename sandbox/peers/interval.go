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
