// Command zklock is a terminal console for ZooKeeper locks: it draws every
// queue of ephemeral-sequential lock nodes with its holders and its
// predecessor-watch chain, and lets an operator take or force-release a lock
// through the same lock core that reads the queue. The commands live in
// package cmd.
package main

import (
	"os"

	"github.com/zklock/zklock/cmd"
)

// version, commit and date are stamped by the release build (goreleaser)
// and `make build` with -ldflags "-X main.version=...". Left empty (go
// install, go build), cmd reads what the go command recorded instead.
var (
	version string
	commit  string
	date    string
)

func main() {
	os.Exit(cmd.Main(os.Args[1:], cmd.Build{Version: version, Commit: commit, Date: date}))
}
