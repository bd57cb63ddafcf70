package cmd

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/exporter"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/zkview"
)

// TestExportBuildInfo: zklock_build_info is 1 with the version, commit
// and Go release `zklock version -o json` reports (buildInfo), before the
// first snapshot too.
func TestExportBuildInfo(t *testing.T) {
	c := exportConfig(exporter.DefaultTop)
	b := buildInfo()
	if want := (exporter.Build{Version: b.Version, Commit: b.Commit, Go: b.Go}); c.Build != want {
		t.Errorf("collector's build %+v, want buildInfo's %+v", c.Build, want)
	}
	if c.Build.Go != runtime.Version() {
		t.Errorf("build Go %q, want %q", c.Build.Go, runtime.Version())
	}
	// A test binary has no VCS stamp: the labels are checked on one.
	c.Build = exporter.Build{Version: "v1.2.3", Commit: "0123abcd", Go: "go1.99"}
	lc := exporter.New(func() *model.Snapshot { return nil }, c)
	v, ok := metricValue(scrape(t, lc), "zklock_build_info", "version", "v1.2.3", "commit", "0123abcd", "goversion", "go1.99")
	if !ok || v != 1 {
		t.Errorf("build_info{version=v1.2.3,commit=0123abcd,goversion=go1.99} = %v (%v), want 1", v, ok)
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
	if got := f.Lookup("top").DefValue; got != strconv.Itoa(exporter.DefaultTop) {
		t.Errorf("export: --top %s, want %d", got, exporter.DefaultTop)
	}
	if err := f.Parse([]string{"--max-series-parents", "7"}); err != nil || f.Lookup("top").Value.String() != "7" {
		t.Errorf("--max-series-parents 7: %v, --top %s", err, f.Lookup("top").Value)
	}
	w := newWatchCmd(&config.Flags{}).Flags().Lookup("max-parents").DefValue
	if w != strconv.Itoa(zkview.DefaultMaxParents) {
		t.Errorf("watch: --max-parents %s, want the model's default %d", w, zkview.DefaultMaxParents)
	}
}
