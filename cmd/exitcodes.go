package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes (PRODUCT.md: Exit codes). exitCodes below is their one
// table: root --help prints it and README's "Exit codes" section is the
// same rows (TestExitCodesTable keeps the two equal).
//
// `zklock run` exits with its command's code once the command ran, so
// the codes of run's own that come before (not held within --timeout)
// or instead of it (the lock lost) are taken from sysexits.h's range,
// which commands seldom use for their own meanings, and never 2 or 3:
// a probe reading --check's codes must not mistake them.
const (
	exitOK      = 0
	exitFailure = 1 // bad input, unreachable ensemble, NoAuth, any failure
	// exitCheck: --check found a failing condition (ls: failsCheck's
	// warnings or a cross-lock deadlock; sessions: a deadlock). 2 is
	// CRITICAL to monitoring plugins (Nagios, Icinga, Sensu).
	exitCheck = 2
	// exitCheckUnknown: --check could not tell (the ensemble could not
	// be reached, a path could not be read): UNKNOWN to the plugins,
	// so that an outage of the probe is not paged as a deadlock.
	exitCheckUnknown = 3
	// exitUsage is sysexits' EX_USAGE: the command line is wrong
	// (unknown command or flag, a flag the command does not take, a bad
	// -o, run without --), refused before connecting.
	exitUsage = 64
	// exitLost is sysexits' EX_UNAVAILABLE: the lock CMD ran under went
	// away (session expired, node deleted); CMD was stopped. A code of
	// zklock's, not CMD's (whose code after SIGTERM says only that it
	// was stopped), so that a script can tell it must check its work.
	exitLost = 69
	// exitNotAcquired is sysexits' EX_TEMPFAIL: run's --timeout passed
	// before the lock was held; CMD did not run. Busy, try later: what
	// `flock -w -E 75` scripts and consul lock's callers tell from
	// "broken" (1).
	exitNotAcquired = 75
	exitSignal      = 130 // stopped by SIGINT/SIGTERM before the command ran (own locks released)
)

// exitCodeRow is one row of the exit codes table.
type exitCodeRow struct {
	code    string
	meaning string
}

// exitCodes is the table of exit codes, as `zklock --help` and README
// show it. Words in backquotes are literal.
var exitCodes = []exitCodeRow{
	{fmt.Sprint(exitOK), "success (`--check`: healthy)"},
	{fmt.Sprint(exitFailure), "an error: bad input, unreachable ensemble, NoAuth, refused action; one line on stderr starting `zklock:`"},
	{fmt.Sprint(exitCheck), "`--check` found a failing condition: `ls`: a " + checkFailingList() + " warning, or a cross-lock deadlock; `sessions`: a cross-lock deadlock; `why`: either, on its lock"},
	{fmt.Sprint(exitCheckUnknown), "`--check` (and `why`) could not tell: the ensemble could not be reached or read (connection, TLS, auth, a path not readable, a bad context)"},
	{fmt.Sprint(exitUsage), "usage error, refused before connecting: " + strings.Join(usageMisuses, ", ")},
	{fmt.Sprint(exitLost), "`run`: the lock was lost while CMD ran; CMD was stopped"},
	{fmt.Sprint(exitNotAcquired), "`run`: the lock was not held within `--timeout`; CMD did not run"},
	{"126, 127", "`run`: CMD could not be started / was not found"},
	{fmt.Sprint(exitSignal), "stopped by a signal before CMD ran (own locks released)"},
	{"other", "`run`: CMD's own exit code (128+N when signal N ended it)"},
}

// usageMisuses are the misuses of the command line that exit 64
// (exitUsage), as the table names them: TestUsageErrorTable has a row of
// each, so a misuse named here is one that is refused.
var usageMisuses = []string{
	"an unknown command or flag",
	"a flag the command does not take",
	"a flag value of the wrong type (`--timeout soon`)",
	"an unknown `-o` format",
	"too many or too few arguments",
	"flags that exclude each other, or a flag that needs another",
	"`run` without `--` before CMD",
}

// exitCodesText is the table as --help shows it: the meanings wrapped
// beside their codes, the backquotes dropped.
func exitCodesText() string {
	var b strings.Builder
	for _, r := range exitCodes {
		lines := wrapWords(strings.ReplaceAll(r.meaning, "`", ""), 62)
		for i, l := range lines {
			code := ""
			if i == 0 {
				code = r.code
			}
			fmt.Fprintf(&b, "  %-9s %s\n", code, l)
		}
	}
	return b.String()
}

// wrapWords breaks s into lines of at most width columns, at spaces.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) > width:
			lines = append(lines, line)
			line = w
		default:
			line += " " + w
		}
	}
	return append(lines, line)
}

// usageArgs makes every command's argument check a usage error (exit 64,
// before connecting), and gives a command that only groups others an
// action that refuses an unknown subcommand the same way. Cobra's
// default commands (help, completion) are made first so they are
// covered too.
func usageArgs(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		check := c.Args
		if check == nil && c.HasSubCommands() && c != root {
			check = cobra.NoArgs // cobra's "unknown command" line
		}
		if check != nil {
			c.Args = func(c *cobra.Command, args []string) error {
				if err := check(c, args); err != nil {
					if !strings.Contains(err.Error(), c.CommandPath()) {
						err = fmt.Errorf("%s: %w", strings.TrimPrefix(c.CommandPath(), root.Name()+" "), err)
					}
					return exitCode(exitUsage, err)
				}
				return nil
			}
		}
		if c.HasSubCommands() && !c.Runnable() {
			// Cobra checks no arguments of a command that cannot run:
			// it prints the help and exits 0, even for a mistyped
			// subcommand.
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// checkUnknown is the error of a --check that could not judge: exit 3
// (could not tell) for whatever stopped it, except the usage errors
// (64) and the verdict itself (2), which keep their codes.
func checkUnknown(err error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) && (ee.code == exitUsage || ee.code == exitCheck) {
		return err
	}
	return exitCode(exitCheckUnknown, err)
}
