package cmd

// `zklock export`: Prometheus metrics of the Watcher, read from the
// latest snapshot at each scrape.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/model"
)

// DefaultExportParents bounds the lock parents exported per scrape: with
// about eight series each, 2,000 parents are 16,000 series, what one
// Prometheus target should carry at most. The rest are counted as
// dropped, never exported.
const DefaultExportParents = 2000

// exportShutdown bounds the wait for scrapes in flight on the way out.
const exportShutdown = 5 * time.Second

func newExportCmd(g *config.Flags) *cobra.Command {
	var (
		lf        liveFlags
		listen    string
		maxSeries int
	)
	cmd := &cobra.Command{
		Use:   "export --listen ADDR [--root PATH] [PATH...]",
		Short: "Serve Prometheus metrics of the lock queues",
		Long: `export watches the lock parents (and those found below --root) and
serves their metrics at http://ADDR/metrics for Prometheus: per lock
parent the holders, waiters, oldest wait, current hold, handoffs and
warnings by code; the connection's state and the age of the servers'
four-letter-word view. Metric names and an example alert rule file are
in the README (deploy/prometheus/zklock-alerts.yml).

Labels stay bounded: paths come only from the watched paths and roots,
at most --max-series-parents of them per scrape; the others are counted
in zklock_export_dropped_parents.`,
		Example: `  zklock export --listen :9464 --root /locks
  curl -s localhost:9464/metrics | grep zklock_lock_waiters`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if listen == "" {
				return errors.New("export: give --listen ADDR (for example :9464)")
			}
			if maxSeries <= 0 {
				return fmt.Errorf("--max-series-parents %d: want 1 or more", maxSeries)
			}
			// Listen before connecting: a busy port is said at once.
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			defer ln.Close()
			ctx, stop := signalContext(cmd.Context())
			defer stop()
			lm, err := startLive(ctx, cmd, g, &lf, args)
			if err != nil {
				return err
			}
			defer lm.Close()
			lc := newLockCollector(lm.w.Snapshot, time.Now, maxSeries)
			go lc.follow(ctx, lm.w.Updates())
			fmt.Fprintf(cmd.OutOrStdout(), "zklock export: serving http://%s/metrics\n", ln.Addr())
			return serveMetrics(ctx, ln, lc)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "address to serve /metrics on (host:port, :port)")
	cmd.Flags().IntVar(&maxSeries, "max-series-parents", DefaultExportParents, "export at most this many lock parents per scrape")
	lf.register(cmd)
	return cmd
}

// serveMetrics serves /metrics from lc (and the Go runtime's and the
// process's metrics) on ln until ctx ends.
func serveMetrics(ctx context.Context, ln net.Listener, lc *lockCollector) error {
	reg := prometheus.NewRegistry()
	reg.MustRegister(lc, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "zklock export: metrics at /metrics")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("export: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), exportShutdown)
	defer cancel()
	_ = srv.Shutdown(sctx)
	return nil
}

// lockCollector is a prometheus.Collector over the Watcher: each
// scrape reads the latest snapshot (nothing is done per change, except
// counting handoffs, below) and turns it into constant metrics.
type lockCollector struct {
	snapshot   func() *model.Snapshot
	now        func() time.Time
	maxParents int

	mu sync.Mutex
	// handoffs counts per path the handoffs the Watcher saw. A queue
	// keeps only its last 64 handoffs, so a scrape alone would miss
	// those beyond 64 between two scrapes (a hot lock hands over
	// hundreds of times a minute): follow counts them per update.
	handoffs     map[string]*handoffCount
	droppedTotal float64
}

type handoffCount struct {
	total float64
	last  time.Time // the newest handoff counted
}

var (
	labelPath = []string{"path"}
	descs     = struct {
		holders, waiters, oldestWait, hold, handoffs, warnings, stale, exists *prometheus.Desc
		conn, snapStale, serverView, serverViewAge, parents, dropped          *prometheus.Desc
		droppedTotal, capped, deadlocks, snapAge                              *prometheus.Desc
	}{
		holders:    prometheus.NewDesc("zklock_lock_holders", "Nodes holding the lock (by sequence order), as ls --json role holder.", labelPath, nil),
		waiters:    prometheus.NewDesc("zklock_lock_waiters", "Nodes waiting for the lock, as ls --json role waiting.", labelPath, nil),
		oldestWait: prometheus.NewDesc("zklock_lock_oldest_wait_seconds", "How long the longest waiter has waited (since its creation); 0 with no waiter.", labelPath, nil),
		hold:       prometheus.NewDesc("zklock_lock_hold_seconds", "How long the current holder has held (the longest, when several); 0 with no holder. A holder found holding counts from its creation.", labelPath, nil),
		handoffs:   prometheus.NewDesc("zklock_lock_handoffs_total", "Handoffs (release, then the next holder) the Watcher saw since it started.", labelPath, nil),
		warnings:   prometheus.NewDesc("zklock_lock_warnings", "Warnings on the lock parent by code (split-holders, deadlock, mixed-recipes, missing-watch, herd, over-limit, self-wait); absent means none.", []string{"path", "code"}, nil),
		stale:      prometheus.NewDesc("zklock_lock_stale", "1 while the lock parent's data may be out of date (the Watcher's link is down).", labelPath, nil),
		exists:     prometheus.NewDesc("zklock_lock_exists", "1 when the lock parent exists, as ls --json exists.", labelPath, nil),

		conn:          prometheus.NewDesc("zklock_connection_state", "The Watcher's connection: 1 for the current state.", []string{"state"}, nil),
		snapStale:     prometheus.NewDesc("zklock_stale", "1 while the Watcher is disconnected and the model may be out of date.", nil, nil),
		serverView:    prometheus.NewDesc("zklock_server_view", "1 when the servers' four-letter words (cons, wchc) answer: client addresses and verified watches.", nil, nil),
		serverViewAge: prometheus.NewDesc("zklock_server_view_age_seconds", "Age of the last four-letter-word answer (links verified then); absent without a server view.", nil, nil),
		parents:       prometheus.NewDesc("zklock_parents", "Lock parents in the model.", nil, nil),
		dropped:       prometheus.NewDesc("zklock_export_dropped_parents", "Lock parents not exported by this scrape (beyond --max-series-parents).", nil, nil),
		droppedTotal:  prometheus.NewDesc("zklock_export_dropped_series_total", "Per-parent series left out of scrapes so far, for the cap.", nil, nil),
		capped:        prometheus.NewDesc("zklock_discovery_capped", "1 when discovery under the roots stopped at its bound (--max-parents): more lock parents may exist.", nil, nil),
		deadlocks:     prometheus.NewDesc("zklock_session_deadlocks", "Cycles of the wait-for graph over sessions across every lock, by state (deadlock, cycle, self-wait).", []string{"state"}, nil),
		snapAge:       prometheus.NewDesc("zklock_snapshot_age_seconds", "Age of the model's snapshot this scrape read.", nil, nil),
	}
	connStates     = []model.ConnState{model.StateConnecting, model.StateConnected, model.StateDisconnected, model.StateExpired, model.StateClosed}
	deadlockStates = []string{model.CycleDeadlock, model.CycleYoung, model.CycleSelfWait}
)

// seriesPerParent is what one lock parent costs, for the dropped count:
// six gauges and the counter, plus its warnings.
const seriesPerParent = 7

func newLockCollector(snapshot func() *model.Snapshot, now func() time.Time, maxParents int) *lockCollector {
	return &lockCollector{snapshot: snapshot, now: now, maxParents: maxParents, handoffs: map[string]*handoffCount{}}
}

// Describe sends every descriptor the collector uses.
func (c *lockCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descs.holders, descs.waiters, descs.oldestWait, descs.hold, descs.handoffs,
		descs.warnings, descs.stale, descs.exists, descs.conn, descs.snapStale, descs.serverView, descs.serverViewAge,
		descs.parents, descs.dropped, descs.droppedTotal, descs.capped, descs.deadlocks, descs.snapAge} {
		ch <- d
	}
}

// follow counts handoffs from every update until ctx ends or the updates
// stop.
func (c *lockCollector) follow(ctx context.Context, updates <-chan model.Update) {
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
// and forgets the paths that left the model.
func (c *lockCollector) countHandoffs(snap *model.Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range snap.Queues {
		q := &snap.Queues[i]
		hc := c.handoffs[q.Path]
		if hc == nil {
			hc = &handoffCount{}
			c.handoffs[q.Path] = hc
		}
		for k := len(q.Handoffs) - 1; k >= 0 && q.Handoffs[k].At.After(hc.last); k-- {
			hc.total++
		}
		if n := len(q.Handoffs); n > 0 && q.Handoffs[n-1].At.After(hc.last) {
			hc.last = q.Handoffs[n-1].At
		}
	}
	if len(c.handoffs) > len(snap.Queues) {
		in := make(map[string]bool, len(snap.Queues))
		for i := range snap.Queues {
			in[snap.Queues[i].Path] = true
		}
		for p := range c.handoffs {
			if !in[p] {
				delete(c.handoffs, p)
			}
		}
	}
}

// Collect turns the latest snapshot into metrics.
func (c *lockCollector) Collect(ch chan<- prometheus.Metric) {
	snap := c.snapshot()
	if snap == nil {
		return
	}
	now := c.now()
	c.countHandoffs(snap)
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, st := range connStates {
		gauge(descs.conn, boolValue(snap.Conn.State == st), st.String())
	}
	gauge(descs.snapStale, boolValue(snap.Stale))
	gauge(descs.serverView, boolValue(snap.ServerView))
	if snap.ServerView && !snap.ServerViewAt.IsZero() {
		gauge(descs.serverViewAge, max(now.Sub(snap.ServerViewAt).Seconds(), 0))
	}
	gauge(descs.parents, float64(len(snap.Queues)))
	gauge(descs.capped, boolValue(snap.DiscoveryCapped))
	gauge(descs.snapAge, max(now.Sub(snap.At).Seconds(), 0))
	for _, st := range deadlockStates {
		n := 0
		for _, d := range snap.Deadlocks {
			if d.State == st {
				n++
			}
		}
		gauge(descs.deadlocks, float64(n), st)
	}

	exported := min(len(snap.Queues), c.maxParents)
	dropped := len(snap.Queues) - exported
	c.mu.Lock()
	c.droppedTotal += float64(dropped * seriesPerParent)
	droppedTotal := c.droppedTotal
	totals := make([]float64, exported)
	for i := range exported {
		if hc := c.handoffs[snap.Queues[i].Path]; hc != nil {
			totals[i] = hc.total
		}
	}
	c.mu.Unlock()
	gauge(descs.dropped, float64(dropped))
	ch <- prometheus.MustNewConstMetric(descs.droppedTotal, prometheus.CounterValue, droppedTotal)

	for i := range exported {
		q := &snap.Queues[i]
		p := model.SanitizeString(q.Path, 0)
		m := lockMetricsOf(q, now)
		gauge(descs.holders, float64(m.holders), p)
		gauge(descs.waiters, float64(m.waiters), p)
		gauge(descs.oldestWait, m.oldestWait, p)
		gauge(descs.hold, m.hold, p)
		gauge(descs.exists, boolValue(q.State == model.PathPresent || q.State == model.PathNoAuth), p)
		gauge(descs.stale, boolValue(m.stale), p)
		ch <- prometheus.MustNewConstMetric(descs.handoffs, prometheus.CounterValue, totals[i], p)
		for _, code := range m.codes {
			gauge(descs.warnings, float64(m.byCode[code]), p, code)
		}
	}
}

// lockMetrics are one lock parent's values.
type lockMetrics struct {
	holders, waiters int
	oldestWait, hold float64 // seconds
	stale            bool
	codes            []string // warning codes, first-seen order
	byCode           map[string]int
}

// lockMetricsOf reads one queue at now. Waits count from a waiter's
// creation; holds from the role's start (ls --json's since).
func lockMetricsOf(q *model.Queue, now time.Time) lockMetrics {
	var m lockMetrics
	for _, n := range q.Nodes.All() {
		start, _ := n.Tenure()
		age := 0.0
		if !start.IsZero() {
			age = max(now.Sub(start).Seconds(), 0)
		}
		if n.Role == lockops.RoleHolder {
			m.holders++
			m.hold = max(m.hold, age)
		} else {
			m.waiters++
			m.oldestWait = max(m.oldestWait, age)
		}
	}
	for _, w := range q.Warnings {
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

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
