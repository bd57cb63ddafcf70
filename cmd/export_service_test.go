package cmd

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

// TestExportFirstPicture: zklock_first_picture_complete is 0 before the
// first snapshot and while paths are unread, 1 once a snapshot had every
// path read, and stays 1 when a path discovered later is being read.
func TestExportFirstPicture(t *testing.T) {
	var snap *model.Snapshot
	lc := newLockCollector(func() *model.Snapshot { return snap }, DefaultExportTop)
	at := time.Now()
	for i, step := range []struct {
		snap *model.Snapshot
		want float64
	}{
		{nil, 0},
		{withUnread(syntheticSnapshot(2, 3, at), 3), 0},
		{withUnread(syntheticSnapshot(5, 3, at), 0), 1},
		{withUnread(syntheticSnapshot(6, 3, at), 1), 1},
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

// TestExportBuildInfo: zklock_build_info is 1 with the version, commit
// and Go release `zklock version -o json` reports (buildInfo), before the
// first snapshot too.
func TestExportBuildInfo(t *testing.T) {
	lc := newLockCollector(func() *model.Snapshot { return nil }, DefaultExportTop)
	if got, want := lc.build, buildInfo(); got != want {
		t.Errorf("collector's build %+v, want buildInfo's %+v", got, want)
	}
	if lc.build.Go != runtime.Version() {
		t.Errorf("build Go %q, want %q", lc.build.Go, runtime.Version())
	}
	// A test binary has no VCS stamp: the labels are checked on one.
	lc.build = versionInfo{Version: "v1.2.3", Commit: "0123abcd", Go: "go1.99"}
	v, ok := metricValue(scrape(t, lc), "zklock_build_info", "version", "v1.2.3", "commit", "0123abcd", "goversion", "go1.99")
	if !ok || v != 1 {
		t.Errorf("build_info{version=v1.2.3,commit=0123abcd,goversion=go1.99} = %v (%v), want 1", v, ok)
	}
}

// TestExportTimestamps: times are Unix timestamps of when a hold or a
// wait began, absent without one; no metric reports an age ("seconds
// since"), which is wrong between two scrapes.
func TestExportTimestamps(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	snap := syntheticSnapshot(2, 3, at)
	q0 := *syntheticSnapshot(1, 1, at).Queues.At(0) // a holder alone
	q0.Path = "/locks/alone"
	snap.Queues = model.QueuesOf(append(snap.Queues.Slice(), q0)...)
	fams := scrape(t, newLockCollector(func() *model.Snapshot { return snap }, DefaultExportTop))
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

// TestExportDiscoveryReachesTheCap: export discovers as far as the
// model does (the aggregates count every parent; --top picks among
// them), and the old name of --top still parses.
func TestExportDiscoveryReachesTheCap(t *testing.T) {
	f := newExportCmd(&config.Flags{}).Flags()
	if got := f.Lookup("max-parents").DefValue; got != strconv.Itoa(zkview.DefaultMaxParents) {
		t.Errorf("export: --max-parents %s, want the model's default %d", got, zkview.DefaultMaxParents)
	}
	if got := f.Lookup("top").DefValue; got != strconv.Itoa(DefaultExportTop) {
		t.Errorf("export: --top %s, want %d", got, DefaultExportTop)
	}
	if err := f.Parse([]string{"--max-series-parents", "7"}); err != nil || f.Lookup("top").Value.String() != "7" {
		t.Errorf("--max-series-parents 7: %v, --top %s", err, f.Lookup("top").Value)
	}
	w := newWatchCmd(&config.Flags{}).Flags().Lookup("max-parents").DefValue
	if w != strconv.Itoa(zkview.DefaultMaxParents) {
		t.Errorf("watch: --max-parents %s, want the model's default %d", w, zkview.DefaultMaxParents)
	}
}
