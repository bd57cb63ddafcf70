package exporter

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
)

// testConfig is export's default, with ls --check's failing codes as
// cmd passes them.
var testConfig = Config{Top: DefaultTop, Failing: []string{model.WarnSplitHolders, model.WarnDeadlock, model.WarnOverLimit, model.WarnMissingWatch, model.WarnLeaderMismatch}}

// scrape serves lc through the registry and handler `export` uses and
// parses the text with Prometheus' own parser.
func scrape(t testing.TB, lc *Collector) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(lc)
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body.String())
	}
	return parseMetrics(t, rec.Body)
}

func parseMetrics(t testing.TB, r io.Reader) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(pmodel.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		t.Fatalf("parse metrics: %v", err)
	}
	return fams
}

// metricValue is the value of name with the labels given (pairs), and
// whether it is there.
func metricValue(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		}
	}
	return 0, false
}

// TestExportCap: with --top 1, one parent is exported and the other
// counted as dropped, the same at every scrape (a gauge of this scrape,
// not a running sum).
func TestExportCap(t *testing.T) {
	snap := modeltest.Parents(2, 3, time.Now())
	capped := New(func() *model.Snapshot { return snap }, Config{Top: 1})
	for range 2 {
		fams := scrape(t, capped)
		// The top one is kept (the one waiting longest).
		if n := len(fams["zklock_lock_holders"].GetMetric()); n != 1 {
			t.Errorf("%d parents exported, want 1 (the cap)", n)
		}
		if v, _ := metricValue(fams, "zklock_export_dropped_parents"); v != 1 {
			t.Errorf("dropped parents %v, want 1", v)
		}
		if f := fams["zklock_export_dropped_series"]; f.GetType() != dto.MetricType_GAUGE {
			t.Errorf("dropped series: %v, want a gauge", f)
		}
		if v, _ := metricValue(fams, "zklock_export_dropped_series"); v != seriesPerParent {
			t.Errorf("dropped series %v, want %d", v, seriesPerParent)
		}
	}
}

// TestExportFirstPicture: zklock_first_picture_complete is 0 before the
// first snapshot and while paths are unread, 1 once a snapshot had every
// path read, and stays 1 when a path discovered later is being read.
func TestExportFirstPicture(t *testing.T) {
	var snap *model.Snapshot
	lc := New(func() *model.Snapshot { return snap }, testConfig)
	at := time.Now()
	for i, step := range []struct {
		snap *model.Snapshot
		want float64
	}{
		{nil, 0},
		{withUnread(modeltest.Parents(2, 3, at), 3), 0},
		{withUnread(modeltest.Parents(5, 3, at), 0), 1},
		{withUnread(modeltest.Parents(6, 3, at), 1), 1},
	} {
		snap = step.snap
		fams := scrape(t, lc)
		if v, ok := metricValue(fams, "zklock_first_picture_complete"); !ok || v != step.want {
			t.Errorf("step %d: first_picture_complete %v (%v), want %v", i, v, ok, step.want)
		}
	}
}

func withUnread(s *model.Snapshot, n int) *model.Snapshot {
	s.Unread = n
	return s
}

// TestExportTimestamps: times are Unix timestamps of when a hold or a
// wait began, absent without one; no metric reports an age ("seconds
// since"), which is wrong between two scrapes.
func TestExportTimestamps(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	snap := modeltest.Parents(2, 3, at)
	q0 := *modeltest.Parents(1, 1, at).Queues.At(0) // a holder alone
	q0.Path = "/locks/alone"
	snap.Queues = model.QueuesOf(append(snap.Queues.Slice(), q0)...)
	fams := scrape(t, New(func() *model.Snapshot { return snap }, testConfig))
	p := snap.Queues.At(0).Path
	// syntheticSnapshot: node k of n was created n-k seconds before at;
	// node 0 holds, node 1 waits longest.
	for name, want := range map[string]time.Time{
		"zklock_lock_held_since_timestamp_seconds":        at.Add(-3 * time.Second),
		"zklock_lock_oldest_wait_since_timestamp_seconds": at.Add(-2 * time.Second),
		"zklock_snapshot_timestamp_seconds":               at,
		"zklock_server_view_timestamp_seconds":            at,
	} {
		labels := []string{"path", p}
		if !strings.HasPrefix(name, "zklock_lock_") {
			labels = nil
		}
		if v, ok := metricValue(fams, name, labels...); !ok || v != float64(want.Unix()) {
			t.Errorf("%s = %v (%v), want %d", name, v, ok, want.Unix())
		}
	}
	if v, ok := metricValue(fams, "zklock_lock_oldest_wait_since_timestamp_seconds", "path", "/locks/alone"); ok {
		t.Errorf("a parent without waiters has a wait timestamp %v", v)
	}
	for name, f := range fams {
		if strings.HasSuffix(name, "_seconds") && !strings.HasSuffix(name, "_timestamp_seconds") {
			t.Errorf("%s: a time as an age, want a timestamp (..._timestamp_seconds)", name)
		}
		if strings.HasSuffix(name, "_total") && f.GetType() != dto.MetricType_COUNTER {
			t.Errorf("%s: a _total that is not a counter", name)
		}
	}
}

// TestExportSystems: a system's path gets the zklock_lock_system info
// series and, with a leader-mismatch, when it was first seen; a plain
// recipe's path gets neither.
func TestExportSystems(t *testing.T) {
	at := time.Unix(1700000000, 0)
	since := at.Add(-12 * time.Second)
	snap := &model.Snapshot{At: at, Queues: model.QueuesOf(
		model.Queue{Path: "/locks/a", State: model.PathPresent, Type: model.TypeMutex},
		model.Queue{Path: "/solr/overseer_elect/election", State: model.PathPresent, Type: model.TypeElection}.WithRare(model.QueueRare{
			System:   "solr",
			Label:    "solr overseer",
			Warnings: []model.Warning{{Code: model.WarnLeaderMismatch, Key: "k", Since: since, Message: "m"}},
		}),
	)}
	fams := scrape(t, New(func() *model.Snapshot { return snap }, testConfig))
	if v, ok := metricValue(fams, "zklock_lock_system", "path", "/solr/overseer_elect/election", "system", "solr", "label", "solr overseer"); !ok || v != 1 {
		t.Errorf("zklock_lock_system: %v %v", v, ok)
	}
	if _, ok := metricValue(fams, "zklock_lock_system", "path", "/locks/a"); ok {
		t.Errorf("zklock_lock_system for a plain recipe")
	}
	if v, ok := metricValue(fams, "zklock_lock_leader_mismatch_since_timestamp_seconds", "path", "/solr/overseer_elect/election", "system", "solr"); !ok || v != float64(since.Unix()) {
		t.Errorf("leader mismatch since: %v %v, want %d", v, ok, since.Unix())
	}
	if v, ok := metricValue(fams, "zklock_lock_warnings", "path", "/solr/overseer_elect/election", "code", model.WarnLeaderMismatch); !ok || v != 1 {
		t.Errorf("zklock_lock_warnings leader-mismatch: %v %v", v, ok)
	}
}

// BenchmarkExportScrape: one scrape (collect, encode the text format)
// of 1,000 lock parents of 10 nodes. Target: under 100 ms.
func BenchmarkExportScrape(b *testing.B) {
	at := time.Now()
	snap := modeltest.Parents(1000, 10, at)
	lc := New(func() *model.Snapshot { return snap }, testConfig)
	reg := prometheus.NewRegistry()
	reg.MustRegister(lc)
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	req := httptest.NewRequest("GET", "/metrics", nil)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/scrape")
}

// TestAlertRulesUseExportedMetrics: the example alert rules are valid
// YAML and name only metrics that export serves.
func TestAlertRulesUseExportedMetrics(t *testing.T) {
	raw, err := os.ReadFile("../deploy/prometheus/zklock-alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	snap := withHolderHealth(modeltest.Parents(3, 3, at), at)
	fams := scrape(t, New(func() *model.Snapshot { return snap }, testConfig))
	names := regexp.MustCompile(`zklock_[a-z_]+`)
	var alerts []string
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			for _, m := range names.FindAllString(r.Expr, -1) {
				if fams[m] == nil {
					t.Errorf("alert %s uses %s, which export does not serve", r.Alert, m)
				}
			}
		}
	}
	for _, want := range []string{"ZklockLockHeldWithWaiters", "ZklockDeadlock", "ZklockSplitHolders"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s in %v", want, alerts)
		}
	}
}

// withHolderHealth is snap with what the servers know of each holder: heard
// 14 s before at, timeout 20 s, expiring 16 s after.
func withHolderHealth(snap *model.Snapshot, at time.Time) *model.Snapshot {
	qs := snap.Queues.Slice()
	for i := range qs {
		nodes := qs[i].Nodes.Slice()
		for k := range nodes {
			if nodes[k].Role == ordering.RoleHolder {
				nodes[k].SetHealth(model.Health{Member: "zk1:2181", Heard: at.Add(-14 * time.Second), Timeout: 20 * time.Second,
					Expires: at.Add(16 * time.Second), At: at})
			}
		}
		qs[i].Nodes = model.NodesOf(nodes...)
	}
	out := *snap
	out.Queues = model.QueuesOf(qs...)
	return &out
}

// TestExportHolderHealth: a holder's last-heard and expiry times are
// served as timestamps per path; absent where no member tells.
func TestExportHolderHealth(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	plain := modeltest.Parents(1, 2, at)
	fams := scrape(t, New(func() *model.Snapshot { return withHolderHealth(plain, at) }, testConfig))
	p := plain.Queues.At(0).Path
	for name, want := range map[string]time.Time{
		"zklock_lock_holder_heard_timestamp_seconds":   at.Add(-14 * time.Second),
		"zklock_lock_holder_expires_timestamp_seconds": at.Add(16 * time.Second),
	} {
		if v, ok := metricValue(fams, name, "path", p); !ok || v != float64(want.Unix()) {
			t.Errorf("%s = %v (%v), want %d", name, v, ok, want.Unix())
		}
	}
	fams = scrape(t, New(func() *model.Snapshot { return plain }, testConfig))
	if v, ok := metricValue(fams, "zklock_lock_holder_heard_timestamp_seconds", "path", p); ok {
		t.Errorf("no member tells, yet heard = %v", v)
	}
}
