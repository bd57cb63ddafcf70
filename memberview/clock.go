package memberview

import "time"

// The members give last-heard times and expiry buckets on their own
// monotonic clocks (Java's nanoTime in ms), which no command reads out:
// a member's "now" is never told. A Reference ties one member's clock to
// ours: something the member stamped Mono happened while our clock was
// within At. The first comes from zklock's own session (a request made
// between two readings of our clock, then the member's record of it); the
// others are chained from it through the leader's expiry buckets, each
// link widening the span by what ZooKeeper lets drift.

// Span is an interval of our clock (time.Time with its monotonic reading,
// so a wall-clock step does not move it).
type Span struct{ Lo, Hi time.Time }

// Mid is the span's middle: the best single guess.
func (s Span) Mid() time.Time { return s.Lo.Add(s.Hi.Sub(s.Lo) / 2) }

// Width is how uncertain the span is.
func (s Span) Width() time.Duration { return s.Hi.Sub(s.Lo) }

// Reference ties a member's monotonic clock to ours: the member's Mono
// (ms) happened within At.
type Reference struct {
	Mono int64
	At   Span
}

// Valid reports whether the reference holds a span.
func (r Reference) Valid() bool { return !r.At.Lo.IsZero() && !r.At.Hi.Before(r.At.Lo) }

// Span maps the member's monotonic ms to our clock: the span within which
// it happened (or will).
func (r Reference) Span(mono int64) Span {
	d := time.Duration(mono-r.Mono) * time.Millisecond
	return Span{r.At.Lo.Add(d), r.At.Hi.Add(d)}
}

// Wall maps the member's monotonic ms to our clock, the span's middle.
func (r Reference) Wall(mono int64) time.Time { return r.Span(mono).Mid() }

// OwnReference is the reference the own session gives: a request sent at
// before, its answer read at after, and the member's last response to the
// session, read after that, at lastResponse. A ping the client sent in
// between would stamp a later moment, still before answered (when the
// member's own report came back), so the span runs to answered.
func OwnReference(before, answered time.Time, lastResponse int64) Reference {
	return Reference{Mono: lastResponse, At: Span{before, answered}}
}

// BucketReference ties the leader's clock to ours through one session's
// expiry bucket: the session was last heard (on its own member) within
// heard; the leader learned of it at most lag later (a follower tells the
// leader of its sessions' pings every half tick; on the leader itself lag
// is 0), and set its bucket to that moment plus timeout, rounded up to the
// next multiple of tick.
func BucketReference(heard Span, bucket int64, timeout, tick, lag time.Duration) Reference {
	// The touch came within [bucket-timeout-tick, bucket-timeout) on the
	// leader's clock, so bucket-timeout came up to a tick after it.
	return Reference{Mono: bucket - timeout.Milliseconds(), At: Span{heard.Lo, heard.Hi.Add(lag + tick)}}
}

// HeardThroughBucket is when a session was last heard, on our clock, as
// the leader's bucket tells it (for a session on a member whose own clock
// zklock cannot tie to its own): the leader, whose clock leader ties,
// touched it within [bucket-timeout-tick, bucket-timeout), at most lag
// after its member heard it.
func HeardThroughBucket(leader Reference, bucket int64, timeout, tick, lag time.Duration) Span {
	latest := leader.Span(bucket - timeout.Milliseconds())
	earliest := leader.Span(bucket - timeout.Milliseconds() - tick.Milliseconds())
	return Span{earliest.Lo.Add(-lag), latest.Hi}
}

// Narrow intersects two references of one clock (a clock's offset from
// ours does not change, so each poll can only narrow it); when they do not
// meet (the member restarted on another host, or a bound was broken), the
// newer one, next, wins.
func Narrow(prev, next Reference) Reference {
	if !prev.Valid() {
		return next
	}
	p := prev.Span(next.Mono)
	lo, hi := next.At.Lo, next.At.Hi
	if p.Lo.After(lo) {
		lo = p.Lo
	}
	if p.Hi.Before(hi) {
		hi = p.Hi
	}
	if hi.Before(lo) {
		return next
	}
	return Reference{Mono: next.Mono, At: Span{lo, hi}}
}

// TickBound is an upper bound of the leader's tick from what the members
// tell: buckets are multiples of the tick (their greatest common divisor
// is one too), and no session timeout is below two ticks. 0 when nothing
// bounds it.
func TickBound(buckets []int64, timeouts []time.Duration) time.Duration {
	var g int64
	distinct := map[int64]bool{}
	for _, b := range buckets {
		g = gcd(g, b)
		distinct[b] = true
	}
	bound := time.Duration(g) * time.Millisecond
	if len(distinct) < 2 {
		bound = 0 // one bucket's own value says nothing
	}
	for _, t := range timeouts {
		if t > 0 && (bound == 0 || t/2 < bound) {
			bound = t / 2
		}
	}
	return bound
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
