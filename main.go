// Command zklock is a terminal console for ZooKeeper locks: it draws every
// queue of ephemeral-sequential lock nodes with its holders and its
// predecessor-watch chain, and lets an operator take or force-release a lock
// through the same lock core that reads the queue.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// version is set by the Makefile from git describe.
var version = "dev"

// exitError carries a process exit code with the one line to print.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitCode wraps err so that main exits with code. A nil err is a silent
// exit with that code (used when a child command's exit code is passed on).
func exitCode(code int, err error) error { return &exitError{code: code, err: err} }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "zklock",
		Short: "A terminal console for ZooKeeper locks",
		Long: `zklock watches ZooKeeper lock parents and draws every queue of
ephemeral-sequential lock nodes: holders, waiters, and who watches whom.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return exitCode(1, err)
	})
	root.AddCommand(newVersionCmd())
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print zklock's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "zklock %s\n", version)
			return err
		},
	}
}

// run executes the command line and returns the process exit code, printing
// any error as one line on stderr: never a panic or a stack trace.
func run(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	fmt.Fprintf(os.Stderr, "zklock: %s\n", oneLine(err.Error()))
	return code
}

// oneLine keeps error output to a single line whatever the error holds.
func oneLine(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '\n' || r == '\r' {
			r = ' '
		}
		out = append(out, r)
	}
	return string(out)
}

func main() {
	os.Exit(run(os.Args[1:]))
}
