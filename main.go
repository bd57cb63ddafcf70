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

// version is set by the Makefile from git describe.
var version = "dev"

func main() {
	os.Exit(cmd.Main(os.Args[1:], version))
}
