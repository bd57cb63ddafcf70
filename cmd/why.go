package cmd

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/verdict"
)

func newWhyCmd(g *config.Flags) *cobra.Command {
	var output *outputFlag
	cmd := &cobra.Command{
		Use:   "why [-o text|json] PATH",
		Short: "One lock's verdict: who holds it, who waits and whether each will wake, what to do",
		Long: `why reads one lock once, as ls does (with the servers' watches and clients
where they tell, and the context's roots, so that a deadlock across locks
is seen), and says in a few lines what is going on: who holds it and since
when, whether its client is alive (silent, and when its session expires),
who waits and whether each will wake (a waiter whose session has no watch
on what it waits for never wakes: missing-watch; a cycle of waits), what
happens next ("when #12 releases, #13 holds"), and the one command to run.
For a chat or a runbook, where the console is not open. PATH is the lock
parent; a lock node's own path is taken as its parent's.

-o json (or --json) prints one object, documented in docs/commands.md.

Exit codes as ls --check: 2 when what ls --check fails on holds for this
lock (` + strings.ReplaceAll(checkFailingList(), "`", "") + `), or a cross-lock
deadlock passes through it; 3 when it could not tell (the ensemble
unreachable, the path not readable); 0 otherwise, a silent holder too (it
is said, and its session expires by itself).`,
		Example: `  zklock why /locks/billing
  zklock --context prod why -o json /locks/billing | jq -r .act.command`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := output.format()
			if err != nil {
				return err
			}
			return checkUnknown(runWhy(cmd, g, lockOf(args[0]), format == "json"))
		},
	}
	output = addOutputFlag(cmd, "text or json (schema in docs/commands.md)", "text", "json")
	return cmd
}

func runWhy(cmd *cobra.Command, g *config.Flags, p string, asJSON bool) error {
	snap, s, err := readSnapshot(cmd, g, []string{p}, nil, true, "why")
	if err != nil {
		return err
	}
	v := verdict.Judge(snap, p, verdict.Options{Fails: failsNow, Zklock: zklockLine(cmd, s)})
	if err := writeVerdict(cmd.OutOrStdout(), v, asJSON); err != nil {
		return err
	}
	switch {
	case v.State == verdict.StateUnknown:
		return fmt.Errorf("why: %s", v.Headline())
	case v.Failing:
		return exitCode(exitCheck, nil) // the verdict said why
	}
	return nil
}

// writeVerdict prints v as text or JSON.
func writeVerdict(w io.Writer, v verdict.Verdict, asJSON bool) error {
	var err error
	if asJSON {
		err = writeJSON(w, v.JSON())
	} else {
		_, err = io.WriteString(w, v.Text())
	}
	if err != nil {
		return fmt.Errorf("why: write: %w", err)
	}
	return nil
}

// lockOf is the lock parent p names: p, or its parent when p is a lock
// node's path (pasted from an alert or from ls -o name).
func lockOf(p string) string {
	if n, ok := ordering.ParseName(path.Base(p)); ok && n.Kind != ordering.KindOther && path.Dir(p) != "/" {
		return path.Dir(p)
	}
	return p
}

// zklockLine is how the command to act starts zklock on the ensemble this
// read was made on: its context, or the servers and chroot given on the
// command line (never credentials: those come from the same files or
// environment as this run's).
func zklockLine(cmd *cobra.Command, s *config.Settings) string {
	line := "zklock"
	switch {
	case s.ContextName != "":
		line += " --context " + model.SanitizeString(s.ContextName, 0)
	case cmd.Flags().Changed("servers"):
		line += " --servers " + model.SanitizeString(strings.Join(s.Servers, ","), 0)
		if s.Chroot != "" {
			line += " --chroot " + model.SanitizeString(s.Chroot, 0)
		}
	}
	return line
}
