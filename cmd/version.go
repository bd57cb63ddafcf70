package cmd

import (
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// bugReportURL is where `zklock version` tells users to report bugs, with
// its output pasted in.
const bugReportURL = "https://github.com/zklock/zklock/issues"

// Build is what a release build stamps into package main with -ldflags
// "-X main.version=... -X main.commit=... -X main.date=..." (goreleaser,
// `make build`) and hands to Main. A field left empty is read from what
// the go command recorded instead (identify).
type Build struct {
	Version string // the tag, or git describe for a build from a checkout
	Commit  string // the full revision hash
	Date    string // when it was built, RFC 3339
}

var (
	// stamped is the Build given to Main.
	stamped Build
	// version is the build's version as Main settled it (identify): the
	// --version line, recordings' and the console's zklock field.
	version = "dev"
)

func newVersionCmd() *cobra.Command {
	var output *outputFlag
	cmd := &cobra.Command{
		Use:   "version [-o text|json]",
		Short: "Print the version, commit, build date, Go release and platform (for bug reports)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := output.format()
			if err != nil {
				return err
			}
			v := buildInfo()
			if format == "json" {
				return writeJSON(cmd.OutOrStdout(), v)
			}
			return writeVersion(cmd.OutOrStdout(), v)
		},
	}
	output = addOutputFlag(cmd, "text or json (version, commit, built, go, os, arch, schema)", "text", "json")
	return cmd
}

// versionInfo is `zklock version -o json`.
type versionInfo struct {
	Schema  int    `json:"schema"`
	Version string `json:"version"`         // the stamped tag, else the module version `go install` recorded, else "dev"
	Commit  string `json:"commit"`          // the revision the binary was built from, "" when unknown
	Dirty   bool   `json:"dirty"`           // built from a tree with uncommitted changes
	Built   string `json:"built,omitempty"` // the stamped build date, else the commit's time, RFC 3339
	Go      string `json:"go"`              // the Go release that built it
	OS      string `json:"os"`              // GOOS
	Arch    string `json:"arch"`            // GOARCH
}

// writeVersion is `zklock version`: what a bug report asks for, and where
// to send it.
func writeVersion(w io.Writer, v versionInfo) error {
	or := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	commit := or(v.Commit)
	if v.Dirty {
		commit += " (modified)"
	}
	_, err := fmt.Fprintf(w, "zklock %s\ncommit:   %s\nbuilt:    %s\ngo:       %s\nplatform: %s/%s\nReport bugs at %s with this output.\n",
		v.Version, commit, or(v.Built), v.Go, v.OS, v.Arch, bugReportURL)
	return err
}

// buildInfo is this binary's versionInfo.
func buildInfo() versionInfo {
	bi, _ := debug.ReadBuildInfo()
	return identify(stamped, bi)
}

// identify settles the build's identity: what the release build stamped
// wins; a binary built by `go install module@version` has no stamped but
// its module version (and, for a pseudo-version, the commit and its time
// in it); one built with `go build` in a checkout has the vcs.* settings.
// bi may be nil.
func identify(s Build, bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Schema: 1, Version: s.Version, Commit: s.Commit, Built: s.Date,
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi == nil {
		if v.Version == "" {
			v.Version = "dev"
		}
		return v
	}
	if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	var vcsTime string
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			if v.Commit == "" {
				v.Commit = kv.Value
			}
		case "vcs.modified":
			v.Dirty = kv.Value == "true"
		case "vcs.time":
			vcsTime = kv.Value
		}
	}
	if rev, at, ok := pseudoVersion(bi.Main.Version); ok && v.Commit == "" {
		v.Commit, vcsTime = rev, at
	}
	if v.Built == "" {
		v.Built = vcsTime
	}
	// git describe --dirty says so where -buildvcs=false left no vcs.modified.
	v.Dirty = v.Dirty || strings.HasSuffix(v.Version, "-dirty")
	return v
}

// pseudoRE matches the tail of a Go pseudo-version (go.dev/ref/mod#pseudo-versions):
// the commit's UTC time and its 12-digit revision prefix.
var pseudoRE = regexp.MustCompile(`[.-](\d{14})-([0-9a-f]{12})(\+incompatible)?$`)

// pseudoVersion reads the revision prefix and the commit time (RFC 3339)
// out of a pseudo-version such as v0.1.1-0.20261127043950-ed98e931b22b,
// which `go install module@branch` records.
func pseudoVersion(v string) (rev, at string, ok bool) {
	m := pseudoRE.FindStringSubmatch(v)
	if m == nil {
		return "", "", false
	}
	t, err := time.Parse("20060102150405", m[1])
	if err != nil {
		return "", "", false
	}
	return m[2], t.UTC().Format(time.RFC3339), true
}
