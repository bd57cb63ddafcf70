// Package cmd is zklock's command layer: the cobra commands, their flags,
// the exit codes, and the wiring of the pieces that must not know each
// other (the lock core's session, the Watcher, the console, the audit
// log). main.go only calls Main. Nothing imports this package but main.
//
// What a command prints lives beside it: lsout.go and sessionsout.go are
// the text, JSON and --check exit codes of `ls` and `sessions` (their
// JSON schemas are zkview's, the model's serialisable form); `why`
// prints package verdict's judgement (why.go holds only its flags, the
// read it shares with ls, readSnapshot, and its exit code).
package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/ensemble"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/third_party/zk"
)

// exitError carries a process exit code with the one line to print.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// exitCode wraps err so that main exits with code. A nil err is a silent
// exit with that code (used when a child command's exit code is passed on).
func exitCode(code int, err error) error { return &exitError{code: code, err: err} }

func newRootCmd() *cobra.Command {
	g := &config.Flags{}
	var roots []string
	root := &cobra.Command{
		Use:   "zklock [flags] [PATH...]",
		Short: "A terminal console for ZooKeeper locks",
		Long: `zklock watches ZooKeeper lock parents and draws every queue of
ephemeral-sequential lock nodes: holders, waiters, and who watches whom.

With PATHs (lock parents such as /locks/billing), --root or a context's
roots, zklock opens the console on them. The subcommands print one
snapshot (ls), who blocks whom across locks (sessions), hold a lock
while a command runs (run), delete or revoke someone else's lock node
(release --force, revoke), or start a local demo (demo).

Environment: ZKLOCK_SERVERS (the servers when neither --servers nor a
context names them), ZKLOCK_CONTEXT (the context when --context is not
given), ZKLOCK_AUTH (digest credentials user:password when no auth file
is given), ZKLOCK_CONFIG (the config file of contexts when --config is
not given; zklock config view prints the one in use).

Exit codes:
` + exitCodesText(),
		Example: `  zklock --servers zk1:2181,zk2:2181 /locks/billing /locks/orders
  zklock --context prod --root /locks`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE:          newConsoleRun(g, &roots),
		Version:       version,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return startLogging(cmd, g)
		},
	}
	root.SetVersionTemplate("zklock {{.Version}}\n")
	root.SuggestionsMinimumDistance = 2 // "sesions" -> sessions
	root.Flags().StringArrayVar(&roots, "root", nil, "discover lock parents below this path (repeatable)")
	// An unknown flag, or one this command does not take, is a usage
	// error: refused before connecting.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitCode(exitUsage, flagError{flagElsewhere(c.Root(), err)})
	})
	root.AddCommand(newVersionCmd(), newLsCmd(g), newSessionsCmd(g), newWhyCmd(g), newRunCmd(g), newReleaseCmd(g), newRevokeCmd(g), newDemoCmd(g), newDoctorCmd(g))
	root.AddCommand(newWatchCmd(g), newExportCmd(g), newRecordCmd(g), newReplayCmd(g), newGenManCmd())
	root.AddCommand(newConfigCmd(g))
	registerFlags(root, g)
	registerCompletion(root, g)
	usageArgs(root)
	return root
}

// Main executes the command line of the build b (version.go) and returns
// the process exit code, printing any error as one line on stderr: never a
// panic or a stack trace.
func Main(args []string, b Build) int {
	stamped = b
	version = buildInfo().Version
	return execute(args)
}

// execute runs the command line and returns the process exit code.
func execute(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := runWithoutDash(root, args, root.Execute())
	closeLog()
	if err == nil {
		return 0
	}
	code := exitFailure
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	err = ensemble.SASLHint(err)
	if errors.Is(err, zk.ErrNoAuth) && !strings.Contains(err.Error(), "ZKLOCK_AUTH") {
		err = fmt.Errorf("%w (NoAuth: %s)", err, ensemble.NoAuthFix)
	}
	// Errors carry node names and data read from ZooKeeper: sanitized
	// here once, whatever path they took.
	fmt.Fprintf(os.Stderr, "zklock: %s\n", model.SanitizeString(oneLine(err.Error()), 0))
	return code
}

// warn prints a line on stderr for a problem that does not end the
// command (its exit code stands), sanitized as errors are.
func warn(err error) {
	fmt.Fprintf(os.Stderr, "zklock: %s\n", model.SanitizeString(oneLine(err.Error()), 0))
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

// writeJSON writes v as indented JSON, HTML left unescaped.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
