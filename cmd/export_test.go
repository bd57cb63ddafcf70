package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"github.com/zklock/zklock/exporter"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

// scrape serves lc through the registry and handler `export` uses and
// parses the text with Prometheus' own parser.
func scrape(t testing.TB, lc *exporter.Collector) map[string]*dto.MetricFamily {
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

// TestExportMatchesLs: the metrics of a real queue, scraped and parsed by
// Prometheus' text parser, equal `ls --json` of the same moment: holders,
// waiters, oldest wait and hold (from ls's since, at the scrape's clock),
// warnings by code; a handoff is counted. (The cap is exporter's
// TestExportCap.)
func TestExportMatchesLs(t *testing.T) {
	p, split := testPath(t), testPath(t)
	locks := queueOf(t, p, 3)
	c := testConn(t)
	mkdirs(t, c, split, nil)
	createNode(t, c, split, curatorPrefix, "java")
	createNode(t, c, split, kazooPrefix, "python")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := zkview.Watch(ctx, testSession(t), zkview.Options{Paths: []string{p, split}, ServerView: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	lc := exporter.New(w.Snapshot, exportConfig(exporter.DefaultTop))
	go lc.Follow(ctx, w.Updates())
	eventually(t, 20*time.Second, "the model to read both paths", func() bool {
		s := w.Snapshot()
		return s.Unread == 0 && s.Queues.Len() == 2 && s.Queues.At(0).Nodes.Len()+s.Queues.At(1).Nodes.Len() == 5
	})

	compare := func(what string) {
		t.Helper()
		out, errOut, code := runBinary(t, nil, serversFlag(t), "ls", "--json", p, split)
		if code != 0 {
			t.Fatalf("ls: %d %s", code, errOut)
		}
		fams := scrape(t, lc)
		var paths []model.JSONPath
		if err := json.Unmarshal([]byte(out), &paths); err != nil {
			t.Fatal(err)
		}
		for _, jp := range paths {
			var holders, waiters int
			var holdSince, waitSince float64 // the earliest; 0 with none
			holdBound := "exact"
			earliest := func(cur *float64, v float64) {
				if *cur == 0 || v < *cur {
					*cur = v
				}
			}
			for _, n := range jp.Queue {
				since, err := time.Parse(time.RFC3339Nano, n.Since)
				if err != nil {
					t.Fatalf("%s: since %q: %v", what, n.Since, err)
				}
				ts := float64(since.UnixMilli()) / 1000
				if n.Role == "holder" {
					holders++
					earliest(&holdSince, ts)
					if n.SinceBound != "exact" {
						holdBound = n.SinceBound
					}
				} else {
					waiters++
					earliest(&waitSince, ts)
				}
			}
			for _, m := range []struct {
				name      string
				want, tol float64
			}{
				{"zklock_lock_holders", float64(holders), 0},
				{"zklock_lock_waiters", float64(waiters), 0},
				{"zklock_lock_held_since_timestamp_seconds", holdSince, 0.002}, // ls prints milliseconds
				{"zklock_lock_oldest_wait_since_timestamp_seconds", waitSince, 0.002},
				{"zklock_lock_exists", 1, 0},
			} {
				got, ok := metricValue(fams, m.name, "path", jp.Path)
				if m.want == 0 && strings.HasSuffix(m.name, "_timestamp_seconds") {
					// No holder, or no waiter: no timestamp.
					if ok {
						t.Errorf("%s: %s{path=%s} = %v, want absent", what, m.name, jp.Path, got)
					}
					continue
				}
				if ok && m.name == "zklock_lock_held_since_timestamp_seconds" && holdBound == "earliest" && got >= m.want-m.tol {
					// ls found the holder holding: it has held at most
					// since its creation; the live model saw the handoff.
					continue
				}
				if !ok || math.Abs(got-m.want) > m.tol {
					t.Errorf("%s: %s{path=%s} = %v (%v), ls --json says %v", what, m.name, jp.Path, got, ok, m.want)
				}
			}
			codes := map[string]float64{}
			for _, w := range jp.Warnings {
				codes[w.Code]++
			}
			for code, n := range codes {
				if got, _ := metricValue(fams, "zklock_lock_warnings", "path", jp.Path, "code", code); got != n {
					t.Errorf("%s: warnings{%s,%s} = %v, want %v", what, jp.Path, code, got, n)
				}
			}
			for _, m := range fams["zklock_lock_warnings"].GetMetric() {
				var mp, mc string
				for _, l := range m.Label {
					switch l.GetName() {
					case "path":
						mp = l.GetValue()
					case "code":
						mc = l.GetValue()
					}
				}
				if mp == jp.Path && codes[mc] == 0 {
					t.Errorf("%s: warnings{%s,%s} exported, ls --json has none", what, mp, mc)
				}
			}
		}
		if v, _ := metricValue(fams, "zklock_connection_state", "state", "connected"); v != 1 {
			t.Errorf("%s: connection_state{connected} = %v", what, v)
		}
	}
	compare("queue of 3")
	if got, _ := metricValue(scrape(t, lc), "zklock_lock_warnings", "path", split, "code", model.WarnSplitHolders); got != 1 {
		t.Errorf("split-holders not exported: %v", got)
	}

	// A handoff: counted once, and the values follow.
	rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer rcancel()
	if err := locks[0].Release(rctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the handoff counted", func() bool {
		v, _ := metricValue(scrape(t, lc), "zklock_lock_handoffs_total", "path", p)
		return v == 1
	})
	eventually(t, 20*time.Second, "the second client to hold", func() bool { return locks[1].State() == ordering.LockHolding })
	compare("after the handoff")
	if v, _ := metricValue(scrape(t, lc), "zklock_lock_handoffs_total", "path", p); v != 1 {
		t.Errorf("handoffs_total %v after one handoff", v)
	}

}

// TestExportServes: the command serves /metrics over HTTP and stops with
// 0 on SIGTERM; a missing --listen is one line.
func TestExportServes(t *testing.T) {
	p := testPath(t)
	queueOf(t, p, 2)
	e := startBinary(t, nil, serversFlag(t), "export", "--listen", "127.0.0.1:0", p)
	var addr string
	eventually(t, 20*time.Second, "the serving line", func() bool {
		line, _, _ := strings.Cut(e.out.String(), "\n")
		_, addr, _ = strings.Cut(line, "serving ")
		return addr != ""
	})
	eventually(t, 20*time.Second, "the queue in the metrics", func() bool {
		resp, err := http.Get(addr)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		fams := parseMetrics(t, bufio.NewReader(resp.Body))
		h, _ := metricValue(fams, "zklock_lock_holders", "path", p)
		w, _ := metricValue(fams, "zklock_lock_waiters", "path", p)
		_, goOK := fams["go_goroutines"]
		pictured, _ := metricValue(fams, "zklock_first_picture_complete")
		build, _ := metricValue(fams, "zklock_build_info")
		return h == 1 && w == 1 && goOK && pictured == 1 && build == 1
	})
	if err := e.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := e.wait(t, 20*time.Second); code != 0 {
		t.Errorf("export after SIGTERM: code %d, stderr %q", code, e.err.String())
	}
	_, errOut, code := runBinary(t, nil, serversFlag(t), "export", p)
	assertOneLineFailure(t, errOut, code, "--listen")
}
