package exporter

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/model/modeltest"
)

// TestExportTopAndAggregates: at a root of 1,000 parents with --top 5,
// the per-path series are the parent with a failing warning, then the
// parents waiting longest; the aggregates count every parent.
func TestExportTopAndAggregates(t *testing.T) {
	at := time.Date(2026, 3, 14, 3, 11, 4, 0, time.UTC)
	snap := modeltest.WideRoot(1000, at)
	snap.Queues.At(7).SetWarnings([]model.Warning{{Code: model.WarnSplitHolders, Message: "two"}})
	fams := scrape(t, New(func() *model.Snapshot { return snap }, Config{Top: 5, Failing: testConfig.Failing}))
	var got []string
	for _, m := range fams["zklock_lock_holders"].GetMetric() {
		got = append(got, strings.TrimPrefix(m.GetLabel()[0].GetValue(), "/locks/orders/order-"))
	}
	slices.Sort(got)
	if want := []string{"0000007", "0000600", "0000700", "0000800", "0000900"}; !slices.Equal(got, want) {
		t.Errorf("per-path series for %v, want %v", got, want)
	}
	for _, c := range []struct {
		name   string
		want   float64
		labels []string
	}{
		{"zklock_parents", 1000, nil},
		{"zklock_parents_held", 100, nil},
		{"zklock_parents_waiting", 10, nil},
		{"zklock_holders", 100, nil},
		{"zklock_waiters", 20, nil},
		{"zklock_oldest_wait_since_timestamp_seconds", unixSeconds(at.Add(-902 * time.Second)), nil},
		{"zklock_parents_warned", 20, []string{"code", model.WarnHerd}},
		{"zklock_parents_warned", 1, []string{"code", model.WarnSplitHolders}},
		{"zklock_parents_warned", 0, []string{"code", model.WarnDeadlock}},
		{"zklock_export_dropped_parents", 995, nil},
	} {
		if v, ok := metricValue(fams, c.name, c.labels...); !ok || v != c.want {
			t.Errorf("%s%v = %v (%v), want %v", c.name, c.labels, v, ok, c.want)
		}
	}
	// Fewer interesting parents than --top: the rest fill in, by path.
	small := modeltest.WideRoot(30, at)
	fams = scrape(t, New(func() *model.Snapshot { return small }, Config{Top: 10, Failing: testConfig.Failing}))
	if n := len(fams["zklock_lock_holders"].GetMetric()); n != 10 {
		t.Errorf("%d parents with series, want 10", n)
	}
	if _, ok := metricValue(fams, "zklock_lock_holders", "path", "/locks/orders/order-0000001"); !ok {
		t.Error("an empty parent did not fill in a free place")
	}
}

// BenchmarkExportScrape100k: one scrape (collect, encode the text
// format) at a root of 100,000 lock parents, --top at its default.
// Target: under 200 ms.
func BenchmarkExportScrape100k(b *testing.B) {
	snap := modeltest.WideRoot(100_000, time.Now())
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
