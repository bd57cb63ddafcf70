package memberview

import (
	"testing"
	"time"
)

var base = time.Date(2026, 12, 1, 22, 47, 0, 0, time.UTC)

func at(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }

func TestReferenceSpan(t *testing.T) {
	tests := []struct {
		name   string
		ref    Reference
		mono   int64
		lo, hi time.Time
		mid    time.Time
	}{
		{"the reference itself", OwnReference(at(0), at(10), 500_000), 500_000, at(0), at(10), at(5)},
		{"14 s before", OwnReference(at(0), at(10), 500_000), 486_000, at(-14_000), at(-13_990), at(-13_995)},
		{"a bucket ahead", OwnReference(at(0), at(2), 1_000), 13_000, at(12_000), at(12_002), at(12_001)},
		{"an empty span", OwnReference(at(7), at(7), 0), 0, at(7), at(7), at(7)},
	}
	for _, tt := range tests {
		s := tt.ref.Span(tt.mono)
		if !s.Lo.Equal(tt.lo) || !s.Hi.Equal(tt.hi) || !tt.ref.Wall(tt.mono).Equal(tt.mid) {
			t.Errorf("%s: Span(%d) = [%v, %v], Wall %v; want [%v, %v], %v", tt.name, tt.mono,
				s.Lo, s.Hi, tt.ref.Wall(tt.mono), tt.lo, tt.hi, tt.mid)
		}
	}
	if (Reference{}).Valid() || !OwnReference(at(0), at(0), 1).Valid() || OwnReference(at(5), at(4), 1).Valid() {
		t.Error("Valid: the zero reference is not, a point is, a reversed span is not")
	}
}

// TestBucketReference: the leader's bucket is the touch plus the timeout
// rounded up to the tick; the reference must hold the true tie whatever
// the rounding was.
func TestBucketReference(t *testing.T) {
	const tick, timeout = 2 * time.Second, 12 * time.Second
	// The leader's clock reads 1,000,000 ms at at(0); truth(m) = at(m-1e6).
	truth := func(mono int64) time.Time { return at(int(mono - 1_000_000)) }
	for _, touchMono := range []int64{1_000_000, 1_000_001, 1_001_999, 1_002_000, 1_003_500} {
		bucket := (touchMono+timeout.Milliseconds())/tick.Milliseconds()*tick.Milliseconds() + tick.Milliseconds()
		heard := Span{truth(touchMono).Add(-3 * time.Millisecond), truth(touchMono).Add(4 * time.Millisecond)}
		r := BucketReference(heard, bucket, timeout, tick, 0)
		s := r.Span(bucket)
		if want := truth(bucket); s.Lo.After(want) || s.Hi.Before(want) {
			t.Errorf("touch %d, bucket %d: expiry span [%v, %v] misses the truth %v", touchMono, bucket, s.Lo, s.Hi, want)
		}
		if w := s.Width(); w > tick+7*time.Millisecond {
			t.Errorf("touch %d: span %v wide, want at most a tick and the request", touchMono, w)
		}
		h := HeardThroughBucket(r, bucket, timeout, tick, time.Second)
		if want := truth(touchMono); h.Lo.After(want) || h.Hi.Before(want) {
			t.Errorf("touch %d: heard span [%v, %v] misses %v", touchMono, h.Lo, h.Hi, want)
		}
	}
}

func TestNarrow(t *testing.T) {
	a := Reference{Mono: 100, At: Span{at(0), at(2000)}}
	tests := []struct {
		name       string
		prev, next Reference
		want       Reference
	}{
		{"no previous", Reference{}, a, a},
		{"overlap narrows", a, Reference{Mono: 1100, At: Span{at(1500), at(4000)}}, Reference{Mono: 1100, At: Span{at(1500), at(3000)}}},
		{"inside stays", a, Reference{Mono: 100, At: Span{at(500), at(600)}}, Reference{Mono: 100, At: Span{at(500), at(600)}}},
		{"disjoint: the newer wins", a, Reference{Mono: 100, At: Span{at(5000), at(6000)}}, Reference{Mono: 100, At: Span{at(5000), at(6000)}}},
	}
	for _, tt := range tests {
		got := Narrow(tt.prev, tt.next)
		if got.Mono != tt.want.Mono || !got.At.Lo.Equal(tt.want.At.Lo) || !got.At.Hi.Equal(tt.want.At.Hi) {
			t.Errorf("%s: Narrow = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestTickBound(t *testing.T) {
	tests := []struct {
		name     string
		buckets  []int64
		timeouts []time.Duration
		want     time.Duration
	}{
		{"nothing", nil, nil, 0},
		{"one bucket says nothing", []int64{536000}, nil, 0},
		{"nor does one bucket of many sessions", []int64{536000, 536000, 536000}, nil, 0},
		{"buckets", []int64{534000, 536000, 540000}, nil, 2 * time.Second},
		{"timeouts bound it", []int64{536000}, []time.Duration{6 * time.Second, 30 * time.Second}, 3 * time.Second},
		{"the smaller of both", []int64{534000, 536000}, []time.Duration{6 * time.Second}, 2 * time.Second},
		{"a short tick", []int64{1100, 1300, 1700}, []time.Duration{4 * time.Second}, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := TickBound(tt.buckets, tt.timeouts); got != tt.want {
			t.Errorf("%s: TickBound = %v, want %v", tt.name, got, tt.want)
		}
	}
}
