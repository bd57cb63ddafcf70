package exporter

// The collector: one scrape, one snapshot, constant metrics.

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
)

// DefaultTop is how many lock parents get series of their own per
// scrape (--top): the 200 that wait longest (about eight series each,
// 1,600 series) find the stuck locks of a root of 100,000 parents, and
// the aggregate series count every parent. A root of one series set per
// parent would be 800,000 series, more than a Prometheus target should
// carry.
const DefaultTop = 200

// Collector is a prometheus.Collector over the live model: each scrape
// reads the latest snapshot (nothing is done per change, except counting
// handoffs, below) and turns it into constant metrics.
type Collector struct {
	snapshot func() *model.Snapshot
	top      int // lock parents with series of their own per scrape
	build    Build
	failing  []string // warning codes ranked first (Config.Failing)

	mu sync.Mutex
	// handoffs counts per path the handoffs the Watcher saw. A queue
	// keeps only its last 64 handoffs, so a scrape alone would miss
	// those beyond 64 between two scrapes (a hot lock hands over
	// hundreds of times a minute): follow counts them per update.
	handoffs map[string]*handoffCount
	// pictured: a snapshot with every watched path read was seen. Paths
	// discovered later make Unread non-zero again; the first picture
	// stays complete.
	pictured bool
}

type handoffCount struct {
	total float64
	last  time.Time // the newest handoff counted
}

// Times are exported as Unix timestamps, not ages, as Prometheus advises
// (process_start_time_seconds): a timestamp stays true between scrapes
// and alerts compute the age with time() - metric.
var (
	labelPath = []string{"path"}
	descs     = struct {
		holders, waiters, waitSince, holdSince, handoffs, warnings, stale, exists *prometheus.Desc
		conn, snapStale, serverView, serverViewAt, parents, dropped               *prometheus.Desc
		droppedSeries, capped, deadlocks, snapAt, pictured, build                 *prometheus.Desc
		system, mismatch, zxidRatio                                               *prometheus.Desc
		holderHeard, holderExpires                                                *prometheus.Desc
	}{
		holders:   prometheus.NewDesc("zklock_lock_holders", "Nodes holding the lock (by sequence order), as ls --json role holder.", labelPath, nil),
		waiters:   prometheus.NewDesc("zklock_lock_waiters", "Nodes waiting for the lock, as ls --json role waiting.", labelPath, nil),
		waitSince: prometheus.NewDesc("zklock_lock_oldest_wait_since_timestamp_seconds", "Unix time the longest waiter started waiting (its creation); absent with no waiter.", labelPath, nil),
		holdSince: prometheus.NewDesc("zklock_lock_held_since_timestamp_seconds", "Unix time the current holder started holding (the earliest, when several; one found holding counts from its creation); absent with no holder.", labelPath, nil),
		handoffs:  prometheus.NewDesc("zklock_lock_handoffs_total", "Handoffs (release, then the next holder) the Watcher saw since it started.", labelPath, nil),
		warnings:  prometheus.NewDesc("zklock_lock_warnings", "Warnings on the lock parent by code (split-holders, deadlock, mixed-recipes, missing-watch, herd, over-limit, self-wait, leader-mismatch, duplicate-participant); absent means none.", []string{"path", "code"}, nil),
		stale:     prometheus.NewDesc("zklock_lock_stale", "1 while the lock parent's data may be out of date (the Watcher's link is down).", labelPath, nil),
		exists:    prometheus.NewDesc("zklock_lock_exists", "1 when the lock parent exists, as ls --json exists.", labelPath, nil),
		// A paused or hung holder: the servers' last word from it
		// (memberview), as a timestamp like the others.
		holderHeard:   prometheus.NewDesc("zklock_lock_holder_heard_timestamp_seconds", "Unix time its member last heard the holder's session (the least recently heard, when several holders); absent where no member tells (neither the AdminServer nor the four-letter words).", labelPath, nil),
		holderExpires: prometheus.NewDesc("zklock_lock_holder_expires_timestamp_seconds", "Unix time the leader expires that holder's session (the one of zklock_lock_holder_heard_timestamp_seconds) if it stays silent: its expiry bucket, or last heard plus its timeout where the leader's buckets are not told; absent where no member tells.", labelPath, nil),

		conn:          prometheus.NewDesc("zklock_connection_state", "The monitor's connection: 1 for the current state.", []string{"state"}, nil),
		snapStale:     prometheus.NewDesc("zklock_stale", "1 while the monitor is disconnected and the model may be out of date.", nil, nil),
		serverView:    prometheus.NewDesc("zklock_server_view", "1 when the servers' four-letter words (cons, wchc) answer: client addresses and verified watches.", nil, nil),
		serverViewAt:  prometheus.NewDesc("zklock_server_view_timestamp_seconds", "Unix time of the last four-letter-word answer (links verified then); absent without a server view.", nil, nil),
		parents:       prometheus.NewDesc("zklock_parents", "Lock parents in the model.", nil, nil),
		dropped:       prometheus.NewDesc("zklock_export_dropped_parents", "Lock parents with no per-path series in this scrape (beyond --top); the aggregates still count them.", nil, nil),
		droppedSeries: prometheus.NewDesc("zklock_export_dropped_series", "Per-parent series this scrape left out (parents beyond --top).", nil, nil),
		capped:        prometheus.NewDesc("zklock_discovery_capped", "1 when discovery under the roots stopped at its bound (--max-parents): more lock parents may exist.", nil, nil),
		deadlocks:     prometheus.NewDesc("zklock_session_deadlocks", "Cycles of the wait-for graph over sessions across every lock, by state (deadlock, cycle, self-wait).", []string{"state"}, nil),
		snapAt:        prometheus.NewDesc("zklock_snapshot_timestamp_seconds", "Unix time of the model's snapshot this scrape read.", nil, nil),
		pictured:      prometheus.NewDesc("zklock_first_picture_complete", "0 until every watched path (and every lock parent discovered under the roots) was read once: until then the lock parents served are a partial picture.", nil, nil),
		build:         prometheus.NewDesc("zklock_build_info", "1, labelled with the version, commit and Go release of the zklock serving it.", []string{"version", "commit", "goversion"}, nil),

		// A system's path: an info series to join on path, so that the
		// other series keep their labels.
		system: prometheus.NewDesc("zklock_lock_system", "1 for a path whose layout a system wrote, labelled with the system (kafka, solr, hadoop-ha...) and its coordination (solr overseer); absent for a plain recipe.",
			[]string{"path", "system", "label"}, nil),
		mismatch: prometheus.NewDesc("zklock_lock_leader_mismatch_since_timestamp_seconds", "Unix time a system's leader record was first seen disagreeing with its election (the earliest, when several); absent when they agree. ls --check fails once it has lasted 10 s.",
			[]string{"path", "system"}, nil),
		// The Watcher polls no srvr: the counter is judged by the lock
		// nodes' czxids, which it reads anyway (docs/metrics.md).
		zxidRatio: prometheus.NewDesc("zklock_zxid_counter_ratio", "How far the zxid's 32-bit counter is towards its rollover (0 to 1; at 1 the whole ensemble elects a leader), by the highest czxid of the lock nodes in the model: a lower bound lagging by the transactions since the newest lock node (and of the old epoch after an election until a node is made). Absent with no lock node. zklock doctor reads each member's own zxid.",
			nil, nil),
	}
	connStates     = []model.ConnState{model.StateConnecting, model.StateConnected, model.StateDisconnected, model.StateExpired, model.StateClosed}
	deadlockStates = []string{model.CycleDeadlock, model.CycleYoung, model.CycleSelfWait}
)

// seriesPerParent is what one lock parent costs, for the dropped count:
// eight gauges and the counter, plus its warnings.
const seriesPerParent = 9

// Build is what zklock_build_info is labelled with: the serving zklock's
// version, commit and Go release (`zklock version`).
type Build struct {
	Version, Commit, Go string
}

// Config is what a Collector serves besides the model.
type Config struct {
	// Top is how many lock parents get series of their own per scrape
	// (--top; DefaultTop).
	Top int
	// Build labels zklock_build_info.
	Build Build
	// Failing are the warning codes that fail a check (`ls --check`'s):
	// a parent with one gets series of its own first, as the alert
	// rules read them per path.
	Failing []string
}

// New is a Collector of the snapshots snapshot returns (nil before the
// first).
func New(snapshot func() *model.Snapshot, c Config) *Collector {
	return &Collector{snapshot: snapshot, top: c.Top, build: c.Build, failing: c.Failing, handoffs: map[string]*handoffCount{}}
}

// Describe sends every descriptor the collector uses.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descs.holders, descs.waiters, descs.waitSince, descs.holdSince, descs.handoffs,
		descs.warnings, descs.stale, descs.exists, descs.conn, descs.snapStale, descs.serverView, descs.serverViewAt,
		descs.parents, descs.dropped, descs.droppedSeries, descs.capped, descs.deadlocks, descs.snapAt, descs.pictured, descs.build,
		aggDescs.held, aggDescs.waiting, aggDescs.holders, aggDescs.waiters, aggDescs.warned, aggDescs.oldestWait,
		descs.system, descs.mismatch, descs.zxidRatio, descs.holderHeard, descs.holderExpires} {
		ch <- d
	}
}

// Follow counts handoffs from every update until ctx ends or the updates
// stop. A queue keeps only its last handoffs: without Follow, a hot lock's
// beyond those between two scrapes go uncounted.
func (c *Collector) Follow(ctx context.Context, updates <-chan model.Update) {
	for {
		select {
		case <-ctx.Done():
			return
		case u, ok := <-updates:
			if !ok {
				return
			}
			if u.Snapshot != nil {
				c.countHandoffs(u.Snapshot)
			}
		}
	}
}

// countHandoffs adds the handoffs snap shows that were not counted yet,
// and forgets the paths that left the model. Only queues with handoffs
// are looked at: most parents of a wide root never hand off.
func (c *Collector) countHandoffs(snap *model.Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := 0 // counted paths still in snap with handoffs
	for _, q := range snap.Queues.All() {
		if len(q.Handoffs()) == 0 {
			continue
		}
		hc := c.handoffs[q.Path]
		if hc == nil {
			hc = &handoffCount{}
			c.handoffs[q.Path] = hc
		}
		seen++
		for k := len(q.Handoffs()) - 1; k >= 0 && q.Handoffs()[k].At.After(hc.last); k-- {
			hc.total++
		}
		if n := len(q.Handoffs()); n > 0 && q.Handoffs()[n-1].At.After(hc.last) {
			hc.last = q.Handoffs()[n-1].At
		}
	}
	if len(c.handoffs) > seen {
		in := make(map[string]bool, seen)
		for _, q := range snap.Queues.All() {
			if len(q.Handoffs()) > 0 {
				in[q.Path] = true
			}
		}
		for p := range c.handoffs {
			if !in[p] {
				delete(c.handoffs, p)
			}
		}
	}
}

// Collect turns the latest snapshot into metrics. zklock_build_info is
// served before the first snapshot too: a target that is up says what it
// runs.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descs.build, 1, c.build.Version, c.build.Commit, c.build.Go)
	snap := c.snapshot()
	if snap == nil {
		gauge(descs.pictured, 0)
		return
	}
	c.countHandoffs(snap)
	c.collectModel(snap, gauge)
	c.collectParents(snap, ch, gauge)
}

// collectModel sends the metrics of the model as a whole.
func (c *Collector) collectModel(snap *model.Snapshot, gauge func(*prometheus.Desc, float64, ...string)) {
	c.mu.Lock()
	c.pictured = c.pictured || snap.Unread == 0
	pictured := c.pictured
	c.mu.Unlock()
	gauge(descs.pictured, boolValue(pictured))
	for _, st := range connStates {
		gauge(descs.conn, boolValue(snap.Conn.State == st), st.String())
	}
	gauge(descs.snapStale, boolValue(snap.Stale))
	gauge(descs.serverView, boolValue(snap.ServerView))
	if snap.ServerView && !snap.ServerViewAt.IsZero() {
		gauge(descs.serverViewAt, unixSeconds(snap.ServerViewAt))
	}
	gauge(descs.parents, float64(snap.Queues.Len()))
	gauge(descs.capped, boolValue(snap.DiscoveryCapped))
	gauge(descs.snapAt, unixSeconds(snap.At))
	if z := snap.HighestCzxid(); z > 0 {
		gauge(descs.zxidRatio, model.ZxidCounterRatio(z))
	}
	for _, st := range deadlockStates {
		n := 0
		for _, d := range snap.Deadlocks {
			if d.State == st {
				n++
			}
		}
		gauge(descs.deadlocks, float64(n), st)
	}
}

// collectParents sends the aggregates over every lock parent, then the
// metrics of each of the top ones (topParents).
func (c *Collector) collectParents(snap *model.Snapshot, ch chan<- prometheus.Metric, gauge func(*prometheus.Desc, float64, ...string)) {
	all := make([]lockMetrics, snap.Queues.Len())
	for i, q := range snap.Queues.All() {
		all[i] = lockMetricsOf(q)
	}
	collectAggregates(all, gauge)
	top := topParents(snap.Queues, all, c.top, c.failing)
	dropped := snap.Queues.Len() - len(top)
	gauge(descs.dropped, float64(dropped))
	gauge(descs.droppedSeries, float64(dropped*seriesPerParent))
	c.mu.Lock()
	totals := make([]float64, len(top))
	for k, i := range top {
		if hc := c.handoffs[snap.Queues.At(i).Path]; hc != nil {
			totals[k] = hc.total
		}
	}
	c.mu.Unlock()
	for k, i := range top {
		q, m := snap.Queues.At(i), &all[i]
		p := model.SanitizeString(q.Path, 0)
		gauge(descs.holders, float64(m.holders), p)
		gauge(descs.waiters, float64(m.waiters), p)
		if !m.waitSince.IsZero() {
			gauge(descs.waitSince, unixSeconds(m.waitSince), p)
		}
		if !m.holdSince.IsZero() {
			gauge(descs.holdSince, unixSeconds(m.holdSince), p)
		}
		if !m.holderHeard.IsZero() {
			gauge(descs.holderHeard, unixSeconds(m.holderHeard), p)
			gauge(descs.holderExpires, unixSeconds(m.holderExpires), p)
		}
		gauge(descs.exists, boolValue(q.State == model.PathPresent || q.State == model.PathNoAuth), p)
		gauge(descs.stale, boolValue(m.stale), p)
		ch <- prometheus.MustNewConstMetric(descs.handoffs, prometheus.CounterValue, totals[k], p)
		for _, code := range m.codes {
			gauge(descs.warnings, float64(m.byCode[code]), p, code)
		}
		collectSystem(q, p, gauge)
	}
}

// collectSystem sends a system's path's info series and its leader
// mismatch's start (the earliest, when several).
func collectSystem(q *model.Queue, p string, gauge func(*prometheus.Desc, float64, ...string)) {
	if q.System() == "" {
		return
	}
	gauge(descs.system, 1, p, q.System(), model.SanitizeString(q.Label(), 0))
	var since time.Time
	for _, w := range q.Warnings() {
		if w.Code == model.WarnLeaderMismatch && !w.Since.IsZero() && (since.IsZero() || w.Since.Before(since)) {
			since = w.Since
		}
	}
	if !since.IsZero() {
		gauge(descs.mismatch, unixSeconds(since), p, q.System())
	}
}

// lockMetrics are one lock parent's values.
type lockMetrics struct {
	holders, waiters     int
	waitSince, holdSince time.Time // the earliest start of a wait, of a hold; zero with none
	// holderHeard is when the least recently heard holder's member last
	// heard it, holderExpires when the leader expires it if it stays
	// silent; zero when no member tells.
	holderHeard, holderExpires time.Time
	stale                      bool
	codes                      []string // warning codes, first-seen order
	byCode                     map[string]int
}

// lockMetricsOf reads one queue. Waits count from a waiter's creation;
// holds from the role's start (ls --json's since).
func lockMetricsOf(q *model.Queue) lockMetrics {
	var m lockMetrics
	earliest := func(cur *time.Time, t time.Time) {
		if !t.IsZero() && (cur.IsZero() || t.Before(*cur)) {
			*cur = t
		}
	}
	for _, n := range q.Nodes.All() {
		start, _ := n.Tenure()
		if n.Role == ordering.RoleHolder {
			m.holders++
			earliest(&m.holdSince, start)
			if h := n.Health(); !h.Heard.IsZero() && h.Timeout > 0 && (m.holderHeard.IsZero() || h.Heard.Before(m.holderHeard)) {
				m.holderHeard, m.holderExpires = h.Heard, h.Expires
				if h.Expires.IsZero() {
					m.holderExpires = h.Heard.Add(h.Timeout)
				}
			}
		} else {
			m.waiters++
			earliest(&m.waitSince, start)
		}
	}
	for _, w := range q.Warnings() {
		if w.Code == model.WarnStale {
			m.stale = true
			continue
		}
		if m.byCode == nil {
			m.byCode = map[string]int{}
		}
		if m.byCode[w.Code] == 0 {
			m.codes = append(m.codes, w.Code)
		}
		m.byCode[w.Code]++
	}
	return m
}

// unixSeconds is t as a Prometheus timestamp value: seconds since the
// epoch, milliseconds kept.
func unixSeconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
