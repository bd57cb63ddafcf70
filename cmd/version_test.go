package cmd

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestIdentify: a stamp wins over what the go command recorded; without
// one, `go install module@v0.1.0` says v0.1.0, `go install module@branch`
// the commit in its pseudo-version, and `go build` in a checkout the
// vcs.* settings.
func TestIdentify(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs.revision", Value: "ed98e931b22b1402a791b06a69ef53dae9424a36"},
		{Key: "vcs.time", Value: "2026-11-27T04:39:50Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	for _, tc := range []struct {
		name  string
		stamp Build
		bi    *debug.BuildInfo
		want  versionInfo // Schema, Go, OS and Arch are checked apart
	}{
		{"nothing recorded", Build{}, nil, versionInfo{Version: "dev"}},
		{"stamped", Build{Version: "v0.1.0", Commit: "abc", Date: "2026-11-27T05:00:00Z"},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			versionInfo{Version: "v0.1.0", Commit: "abc", Dirty: true, Built: "2026-11-27T05:00:00Z"}},
		{"stamped, built where the go command records a version too", Build{Version: "v0.1.0", Commit: "abc", Date: "2026-11-27T05:00:00Z"},
			&debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20261127043950-ed98e931b22b+dirty"}},
			versionInfo{Version: "v0.1.0", Commit: "abc", Built: "2026-11-27T05:00:00Z"}},
		{"go install at a tag", Build{},
			&debug.BuildInfo{Main: debug.Module{Path: "github.com/zklock/zklock", Version: "v0.1.0"}},
			versionInfo{Version: "v0.1.0"}},
		{"go install at a branch", Build{},
			&debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20261127043950-ed98e931b22b"}},
			versionInfo{Version: "v0.1.1-0.20261127043950-ed98e931b22b", Commit: "ed98e931b22b", Built: "2026-11-27T04:39:50Z"}},
		{"go install before any tag", Build{},
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261127043950-ed98e931b22b"}},
			versionInfo{Version: "v0.0.0-20261127043950-ed98e931b22b", Commit: "ed98e931b22b", Built: "2026-11-27T04:39:50Z"}},
		{"go build in a checkout", Build{},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			versionInfo{Version: "dev", Commit: "ed98e931b22b1402a791b06a69ef53dae9424a36", Dirty: true, Built: "2026-11-27T04:39:50Z"}},
		{"make build in a modified checkout", Build{Version: "v0.1.0-2-ged98e93-dirty", Commit: "ed98e931b22b1402a791b06a69ef53dae9424a36"},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			versionInfo{Version: "v0.1.0-2-ged98e93-dirty", Commit: "ed98e931b22b1402a791b06a69ef53dae9424a36", Dirty: true}},
		{"make build without git", Build{Version: "dev"},
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			versionInfo{Version: "dev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := identify(tc.stamp, tc.bi)
			if got.Schema != 1 || got.Go != runtime.Version() || got.OS != runtime.GOOS || got.Arch != runtime.GOARCH {
				t.Errorf("schema, go, os, arch: %+v", got)
			}
			got.Schema, got.Go, got.OS, got.Arch = 0, "", "", ""
			if got != tc.want {
				t.Errorf("identify:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestPseudoVersion: only a pseudo-version's tail is read as a commit.
func TestPseudoVersion(t *testing.T) {
	for v, wantRev := range map[string]string{
		"v0.1.0":      "",
		"v0.1.0-rc.1": "",
		"v1.2.4-pre.0.20261127043950-0123456789ab":          "0123456789ab",
		"v2.0.1-0.20261127043950-0123456789ab+incompatible": "0123456789ab",
		"v0.1.1-0.20261127043950-ed98e931b22b":              "ed98e931b22b",
		"v0.1.1-0.2026112704395-ed98e931b22b":               "",
		"v0.1.1-0.20261127043950-ED98E931B22B":              "",
	} {
		rev, _, ok := pseudoVersion(v)
		if rev != wantRev || ok != (wantRev != "") {
			t.Errorf("pseudoVersion(%q) = %q, %v; want %q", v, rev, ok, wantRev)
		}
	}
}

// TestWriteVersion: the text names every part a bug report needs, and
// where to send it; an unknown part says so.
func TestWriteVersion(t *testing.T) {
	var b bytes.Buffer
	v := versionInfo{Version: "v0.1.0", Commit: "abc", Dirty: true, Go: "go1.26.8", OS: "linux", Arch: "arm64"}
	if err := writeVersion(&b, v); err != nil {
		t.Fatal(err)
	}
	want := "zklock v0.1.0\ncommit:   abc (modified)\nbuilt:    unknown\ngo:       go1.26.8\nplatform: linux/arm64\nReport bugs at " + bugReportURL + " with this output.\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if !strings.HasPrefix(bugReportURL, "https://github.com/zklock/zklock/") {
		t.Errorf("bug report URL %q is not the module's repository", bugReportURL)
	}
}
