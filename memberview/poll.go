package memberview

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/zklock/zklock/fourletter"
)

// Config says how to reach the members and how to make the own request.
type Config struct {
	// Members are the client addresses, in --servers order.
	Members []string
	// AdminPorts says where each member's AdminServer is (ParseAdminPorts).
	AdminPorts AdminPorts
	// TLS, when set (the context's CA and client certificate), makes the
	// AdminServer be asked over https first, then http.
	TLS *tls.Config
	// Dial opens a four-letter link (lockops.Session.DialMember: inside
	// TLS for a TLS member); nil dials plain TCP.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// Own makes one request on zklock's own session and returns the
	// session and our clock just before and just after it; the members'
	// record of that request ties their clocks to ours. Nil: no tie, so
	// no Heard and no Expires.
	Own func(ctx context.Context) (session int64, before, after time.Time, err error)
}

// adminDialTimeout bounds reaching an AdminServer, within the poll's
// context: port 8080 is asked by default, and where a firewall drops it
// silently the four-letter words must still be asked in time.
const adminDialTimeout = 2 * time.Second

// defaultTick is ZooKeeper's default tickTime, assumed until the
// servers bound it.
const defaultTick = 2 * time.Second

// lagMargin is added to the half tick a follower may take to tell the
// leader of its sessions' pings: the ping's round trip and the leader's
// processing on a loaded machine.
const lagMargin = 250 * time.Millisecond

// Poller asks the members what they know, one Poll at a time, and keeps
// what one poll learns for the next: which source answered each member,
// which member leads, and the tie of the leader's clock to ours (each poll
// narrows it).
type Poller struct {
	cfg    Config
	client *http.Client

	mu        sync.Mutex
	prefer    []Source // per member: the source that answered last
	leader    int      // last known, -1
	leaderRef Reference
	tick      time.Duration // the last poll's TickBound
	toldTick  time.Duration // the tickTime a member told, 0 until one does
}

// New makes a Poller.
func New(cfg Config) *Poller {
	tr := &http.Transport{TLSClientConfig: cfg.TLS, MaxIdleConnsPerHost: 2, IdleConnTimeout: time.Minute,
		DialContext: (&net.Dialer{Timeout: adminDialTimeout}).DialContext, TLSHandshakeTimeout: adminDialTimeout}
	return &Poller{cfg: cfg, client: &http.Client{Transport: tr}, prefer: make([]Source, len(cfg.Members)), leader: -1}
}

// Close drops the Poller's idle links to the AdminServers.
func (p *Poller) Close() { p.client.CloseIdleConnections() }

// lag is how long a follower may take to tell the leader of a touch.
func lag(tick time.Duration) time.Duration { return tick/2 + lagMargin }

// Poll asks every member at once (bounded by ctx) and returns what they
// told, merged. Members that do not answer are reported so, never waited
// on past ctx.
func (p *Poller) Poll(ctx context.Context) *View {
	v := &View{Start: time.Now(), Leader: -1, Sessions: map[int64]Health{},
		Watches: map[int64]map[string]bool{}, Watchers: map[string][]int64{}}
	var t0, t1 time.Time
	if p.cfg.Own != nil {
		var err error
		if v.Own, t0, t1, err = p.cfg.Own(ctx); err != nil {
			v.Own = 0
		}
	}
	answers := p.askAll(ctx, v)
	home := homeOf(answers, v.Own)
	p.askDumps(ctx, answers, home, t1)
	p.merge(v, answers, home, t0, t1)
	v.At = time.Now()
	return v
}

// askAll asks every member for connections and watches, from the source
// that answered last first.
func (p *Poller) askAll(ctx context.Context, v *View) []*memberAnswer {
	out := make([]*memberAnswer, len(p.cfg.Members))
	var wg sync.WaitGroup
	for i, addr := range p.cfg.Members {
		wg.Go(func() { out[i] = p.askMember(ctx, i, addr) })
	}
	wg.Wait()
	v.Members = make([]MemberReport, len(out))
	for i, a := range out {
		v.Members[i] = a.report
	}
	return out
}

// memberAnswer is one member's answers of one poll.
type memberAnswer struct {
	report MemberReport
	used   *answer // nil when no source answered
	asked  time.Time
}

func (p *Poller) askMember(ctx context.Context, i int, addr string) *memberAnswer {
	m := &memberAnswer{report: MemberReport{Addr: addr}, asked: time.Now()}
	admin := p.cfg.AdminPorts.Addr(i, addr)
	p.mu.Lock()
	order := []Source{FourLetter, Admin}
	if p.prefer[i] == Admin || (p.prefer[i] == "" && admin != "") {
		order = []Source{Admin, FourLetter}
	}
	p.mu.Unlock()
	for _, src := range order {
		var a *answer
		switch {
		case src == Admin && admin == "":
			continue
		case src == Admin:
			a = p.askAdminAt(ctx, admin, m)
		default:
			a = askFourLetter(ctx, addr, p.cfg.Dial, false)
		}
		m.report.Bytes += a.bytes
		m.report.Refused = append(m.report.Refused, a.refused...)
		if a.ok() {
			m.used, m.report.Source, m.report.Sessions = a, src, len(a.conns)
			p.mu.Lock()
			p.prefer[i] = src
			p.mu.Unlock()
			break
		}
	}
	m.report.Took = time.Since(m.asked)
	return m
}

// askAdminAt asks the AdminServer at addr over https first when the
// context has TLS, then http.
func (p *Poller) askAdminAt(ctx context.Context, addr string, m *memberAnswer) *answer {
	schemes := []string{"http://"}
	if p.cfg.TLS != nil {
		schemes = []string{"https://", "http://"}
	}
	var a *answer
	var refused []Refusal
	for _, s := range schemes {
		m.report.Admin = s + addr
		a = askAdmin(ctx, p.client, m.report.Admin, false)
		if a.ok() {
			break
		}
		refused = append(refused, a.refused...)
	}
	if !a.ok() {
		a.refused = refused
	}
	return a
}

// homeOf is the index of the member own is connected to, -1 if none.
func homeOf(answers []*memberAnswer, own int64) int {
	if own == 0 {
		return -1
	}
	for i, a := range answers {
		if a.used == nil {
			continue
		}
		for _, c := range a.used.conns {
			if c.Session == own {
				return i
			}
		}
	}
	return -1
}

// askDumps asks for the expiry buckets where they are: the last known
// leader, or every member that answered when none is known yet. The
// leader must have heard of the own request (sent before t1) through its
// follower's ping before its buckets can tie its clock: unless the own
// session is on the leader itself, it waits a half tick first.
func (p *Poller) askDumps(ctx context.Context, answers []*memberAnswer, home int, t1 time.Time) {
	p.mu.Lock()
	leader, tick, told := p.leader, p.tick, p.toldTick
	p.mu.Unlock()
	if told == 0 {
		told = p.askTick(ctx, answers, home)
	}
	if told > 0 {
		tick = told
	}
	if tick == 0 {
		tick = defaultTick
	}
	if len(answers) == 1 {
		leader = 0 // a standalone server keeps its own buckets
	}
	if home < 0 || leader != home {
		t := time.NewTimer(time.Until(t1.Add(lag(tick))))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	var wg sync.WaitGroup
	for i, a := range answers {
		if a.used == nil || (leader >= 0 && i != leader) {
			continue
		}
		wg.Go(func() {
			asked := time.Now()
			defer func() { a.report.Took += time.Since(asked) }() // the poll's spacing counts it
			var d *answer
			if a.used.source == Admin {
				d = askAdmin(ctx, p.client, a.report.Admin, true)
			} else {
				d = askFourLetter(ctx, a.report.Addr, p.cfg.Dial, true)
			}
			a.report.Bytes += d.bytes
			for _, r := range d.refused {
				if r.Command == "dump" {
					a.report.Refused = append(a.report.Refused, r)
				}
			}
			a.used.dumped, a.used.buckets, a.used.expiryWall = d.dumped, d.buckets, d.expiryWall
			a.used.bucketTimes = d.bucketTimes
			a.used.dumpAnswered = d.answered
		})
	}
	wg.Wait()
}

// askTick asks the own member (or the first that answered) for its
// tickTime, once per Poller: every member of an ensemble has the same.
func (p *Poller) askTick(ctx context.Context, answers []*memberAnswer, home int) time.Duration {
	for i, a := range answers {
		if a.used == nil || (home >= 0 && i != home) {
			continue
		}
		tick := askTick(ctx, p.client, a.used, a.report.Admin, a.report.Addr, p.cfg.Dial)
		if tick > 0 {
			p.mu.Lock()
			p.toldTick = tick
			p.mu.Unlock()
		}
		return tick
	}
	return 0
}

// merge builds the view from the answers: sessions, watches, and each
// session's health on our clock.
func (p *Poller) merge(v *View, answers []*memberAnswer, home int, t0, t1 time.Time) {
	leader := -1
	var buckets []int64
	var timeouts []time.Duration
	for i, a := range answers {
		v.Members[i] = a.report
		if a.used == nil {
			continue
		}
		if len(a.used.buckets) > 0 || len(a.used.expiryWall) > 0 {
			leader = i
			buckets = append(buckets, a.used.bucketTimes...)
		}
		for _, c := range a.used.conns {
			timeouts = append(timeouts, c.Timeout)
		}
		mergeWatches(v, a.used.watches)
	}
	v.Leader = leader
	v.Tick = TickBound(buckets, timeouts)
	p.mu.Lock()
	if p.toldTick > 0 {
		v.Tick = p.toldTick
	}
	p.mu.Unlock()
	tick := v.Tick
	if tick == 0 {
		tick = defaultTick
	}
	refs := p.references(v, answers, home, leader, t0, t1, tick)
	for i, a := range answers {
		if a.used == nil {
			continue
		}
		for _, c := range a.used.conns {
			h := health(c, a.report.Addr, refs, i, leader, answers, tick)
			if prev, dup := v.Sessions[c.Session]; dup && !fresher(h, prev) {
				continue // a link it left a moment ago, still listed
			}
			v.Sessions[c.Session] = h
		}
	}
}

// fresher reports whether h, a session's link, was heard more recently
// than prev, another link of the same session (a client that reconnected
// is listed on its old link until the member notices it closed).
func fresher(h, prev Health) bool {
	switch {
	case h.Member == prev.Member:
		return h.LastResponse > prev.LastResponse // one clock
	case !h.Heard.Lo.IsZero() && !prev.Heard.Lo.IsZero():
		return h.Heard.Mid().After(prev.Heard.Mid())
	}
	return false
}

// mergeWatches adds one member's watches to the view.
func mergeWatches(v *View, watches map[int64][]string) {
	for s, paths := range watches {
		m := v.Watches[s]
		if m == nil {
			m = map[string]bool{}
			v.Watches[s] = m
		}
		for _, path := range paths {
			if !m[path] {
				m[path] = true
				v.Watchers[path] = append(v.Watchers[path], s)
			}
		}
	}
}

// clockRefs are the poll's ties of the members' clocks to ours: mono per
// member (its lresp clock), and bucket for the leader's expiry buckets
// (its monotonic clock from the AdminServer, or its wall clock as the
// four-letter dump prints it).
type clockRefs struct {
	mono   []Reference
	bucket Reference
}

// references ties what it can: the own session's member through the own
// request, the leader through the own session's bucket (narrowed across
// polls), or, from a four-letter dump, the leader's wall clock to ours
// within the dump's second.
func (p *Poller) references(v *View, answers []*memberAnswer, home, leader int, t0, t1 time.Time, tick time.Duration) clockRefs {
	refs := clockRefs{mono: make([]Reference, len(answers))}
	var own fourletter.Connection
	if home >= 0 {
		for _, c := range answers[home].used.conns {
			if c.Session == v.Own {
				own = c
			}
		}
		if own.LastResponse >= 0 {
			refs.mono[home] = OwnReference(t0, answers[home].used.answered, own.LastResponse)
			v.Members[home].Clock = "own session"
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tick = v.Tick
	if leader != p.leader {
		p.leaderRef = Reference{}
	}
	p.leader = leader
	if leader < 0 {
		return refs
	}
	la := answers[leader].used
	switch {
	case la.buckets == nil: // a four-letter dump: wall times, to the second
		refs.bucket = Reference{Mono: 0, At: Span{time.UnixMilli(0), time.UnixMilli(1000)}}
	case leader == home && refs.mono[home].Valid():
		refs.bucket = refs.mono[home]
		p.leaderRef = refs.bucket
	case la.buckets[v.Own] != 0 && home >= 0:
		// The leader heard of the own request at its next ping of the
		// own member: at most a half tick after it, and before it answered.
		heard := Span{t0, t1.Add(lag(tick))}
		if la.dumpAnswered.Before(heard.Hi) {
			heard.Hi = la.dumpAnswered
		}
		r := BucketReference(heard, la.buckets[v.Own], own.Timeout, tick, 0)
		p.leaderRef = Narrow(p.leaderRef, r)
		refs.bucket = p.leaderRef
		refs.mono[leader] = p.leaderRef
		v.Members[leader].Clock = "leader's bucket"
	}
	for i, r := range refs.mono {
		if r.Valid() {
			v.Members[i].ClockError = r.At.Width() / 2
		}
	}
	return refs
}

// health is what the members tell of one connection's session.
func health(c fourletter.Connection, member string, refs clockRefs, i, leader int, answers []*memberAnswer, tick time.Duration) Health {
	h := Health{Session: c.Session, Member: member, Client: c.Client, Timeout: c.Timeout,
		Received: c.Received, LastResponse: c.LastResponse}
	var bucket int64
	haveBucket := false
	if leader >= 0 {
		la := answers[leader].used
		if b, ok := la.buckets[c.Session]; ok {
			bucket, haveBucket, h.Bucket = b, true, b
		} else if t, ok := la.expiryWall[c.Session]; ok {
			bucket, haveBucket = t.UnixMilli(), true
		}
	}
	switch {
	case refs.mono[i].Valid() && c.LastResponse >= 0:
		h.Heard = refs.mono[i].Span(c.LastResponse)
	case haveBucket && refs.bucket.Valid():
		h.Heard = HeardThroughBucket(refs.bucket, bucket, c.Timeout, tick, lag(tick))
	}
	if haveBucket && refs.bucket.Valid() {
		h.Expires = refs.bucket.Wall(bucket)
	}
	return h
}
