package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/zkview"
)

func newSessionsCmd(g *config.Flags) *cobra.Command {
	var (
		check, noWait bool
		roots         []string
		output        *outputFlag
	)
	cmd := &cobra.Command{
		Use:   "sessions [-o text|json] [--check] [--no-wait] [--root PATH] PATH...",
		Short: "Who holds and waits on what across every lock: root blockers, cross-lock deadlocks",
		Long: `sessions reads the lock parents once and prints one line per session that
owns a lock node there: its client address (when the servers' four-letter
words tell), what it holds, what it waits on, how many other sessions wait
for it directly (DIRECT) and through others (BLOCKS), and how long the
longest-waiting of those has waited. The first line is the session to look
at first. -o json (or --json) prints the schema documented in docs/json.md.

Then every cycle of waits over sessions is spelled out: a cross-lock
deadlock (session A holds /x and waits on /y, session B holds /y and waits
on /x) is called "deadlock" once it has stood ` + sessions.DeadlockAfter.String() + ` with no handoff on
any of its waits, "cycle" before; "self-wait" is a session waiting behind
its own node. A session is not a thread: two threads of one process sharing
one session look like one session, and a cycle through it may unwind by
itself; how long it has stood with no progress is what to judge by.

One read tells how long a cycle has stood when its lock parents have had
no child change since its newest node was made (each parent's pzxid is no
newer than that node's czxid): it has stood since that node's creation,
and is a deadlock at once if that is ` + sessions.DeadlockAfter.String() + ` ago. For a cycle one read
cannot date, sessions waits until it would have stood ` + sessions.DeadlockAfter.String() + ` and reads
again: a cycle seen in both reads on the same nodes is a deadlock. With
--no-wait it prints the first read at once, such cycles as "cycle".

--check exits 2 when a deadlock is found, 3 when it could not tell (the
ensemble unreachable, a path not readable), 0 otherwise.`,
		Example: `  zklock sessions --root /locks
  zklock sessions --json /locks/a /locks/b | jq '.sessions[0]'
  zklock sessions --check --root /locks || page-oncall`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := output.format()
			if err != nil {
				return err
			}
			if check && noWait {
				return exitCode(exitUsage, fmt.Errorf("sessions: --check needs to judge cycles: drop --no-wait"))
			}
			err = runSessions(cmd, g, args, roots, format == "json", check, noWait)
			if check {
				return checkUnknown(err)
			}
			return err
		},
	}
	output = addOutputFlag(cmd, "text or json (schema in docs/json.md)", "text", "json")
	cmd.Flags().BoolVar(&check, "check", false, "exit 2 on a cross-lock deadlock; 3 when it cannot tell")
	cmd.Flags().BoolVar(&noWait, "no-wait", false, "print the first read at once, without judging the age of its cycles")
	cmd.Flags().StringArrayVar(&roots, "root", nil, "discover lock parents below this path (repeatable)")
	return cmd
}

func runSessions(cmd *cobra.Command, g *config.Flags, args, roots []string, asJSON, check, noWait bool) error {
	s, cfg, err := lockTargets(cmd, g, args, roots)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	sess, err := connect(ctx, s)
	if err != nil {
		return err
	}
	defer sess.Close()
	// Two reads at most, DeadlockAfter apart.
	progress := progressTo(cmd.ErrOrStderr(), cfg.Roots)
	lctx, cancel := boundRead(ctx, &cfg, lsTimeout+sessions.DeadlockAfter, progress)
	defer cancel()
	snap, err := zkview.Load(lctx, sess, cfg)
	if progress != nil {
		progress.done()
	}
	if err != nil {
		return fmt.Errorf("sessions: %w", readErr(lctx, err))
	}
	unjudged, _ := sessions.YoungCycles(snap)
	if unjudged && !noWait {
		if snap, err = zkview.ConfirmCycles(lctx, sess, cfg, snap); err != nil {
			return fmt.Errorf("sessions: %w", readErr(lctx, err))
		}
		unjudged = false
	}
	ss := sessions.SessionsOf(snap)
	out := cmd.OutOrStdout()
	if asJSON {
		err = writeSessionsJSON(out, ss)
	} else {
		err = writeSessionsText(out, ss)
		if err == nil && unjudged {
			_, err = fmt.Fprintf(out, "\n(one read: how long these cycles have stood is unknown, their parents changed since; without --no-wait, zklock reads again after %s to tell)\n", sessions.DeadlockAfter)
		}
	}
	if err != nil {
		return err
	}
	if err := unreadablePaths(snap); err != nil {
		return err
	}
	if check && deadlockCode(snap) != 0 {
		return exitCode(exitCheck, fmt.Errorf("check failed: %s", deadlockSummary(snap)))
	}
	return nil
}

// deadlockSummary names the cross-lock deadlocks of snap in one line.
func deadlockSummary(snap *model.Snapshot) string {
	var parts []string
	for _, d := range snap.Deadlocks {
		if d.State != model.CycleDeadlock {
			continue
		}
		ids := make([]string, len(d.Sessions))
		for i, s := range d.Sessions {
			ids[i] = model.SessionHex(s)
		}
		paths := make([]string, len(d.Paths))
		for i, p := range d.Paths {
			paths[i] = model.SanitizeString(p, 0)
		}
		parts = append(parts, fmt.Sprintf("cross-lock deadlock of %s on %s", strings.Join(ids, ", "), strings.Join(paths, ", ")))
	}
	return strings.Join(parts, "; ")
}
