package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"zklock/config"
	"zklock/zkview"
)

// lsTimeout bounds reading the snapshot once connected: the listings and
// one round of four-letter words, which take well under a second on a
// healthy ensemble.
const lsTimeout = 30 * time.Second

func newLsCmd(g *config.Flags) *cobra.Command {
	var (
		asJSON, check bool
		roots         []string
	)
	cmd := &cobra.Command{
		Use:   "ls [--json] [--check] [--root PATH] PATH...",
		Short: "Print one snapshot of lock queues, then exit",
		Long: `ls reads the lock parents once (and the servers' four-letter words when
they allow them) and prints every queue in sequence order with its
warnings; --json prints the schema documented in the README.

--check exits 2 when any queue has a split-holders, deadlock or
missing-watch warning, 1 on an error, 0 when healthy.`,
		Example: `  zklock ls /locks/billing
  zklock ls --json --root /locks | jq '.[] | select(.warnings != [])'
  zklock ls --check /locks/billing || page-oncall`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLs(cmd, g, args, roots, asJSON, check)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (schema in the README)")
	cmd.Flags().BoolVar(&check, "check", false, "exit 2 on split-holders, deadlock or missing-watch")
	cmd.Flags().StringArrayVar(&roots, "root", nil, "discover lock parents below this path (repeatable)")
	return cmd
}

func runLs(cmd *cobra.Command, g *config.Flags, args, roots []string, asJSON, check bool) error {
	paths, err := cleanPaths(args)
	if err != nil {
		return err
	}
	s, err := g.Resolve(cmd.Flags().Changed)
	if err != nil {
		return err
	}
	roots, err = cleanPaths(append(roots, s.Roots...))
	if err != nil {
		return fmt.Errorf("root: %w", err)
	}
	if len(paths) == 0 && len(roots) == 0 {
		return fmt.Errorf("ls: give lock parent paths or --root")
	}
	ctx := cmd.Context()
	sess, err := connect(ctx, s)
	if err != nil {
		return err
	}
	defer sess.Close()
	lctx, cancel := context.WithTimeout(ctx, lsTimeout)
	defer cancel()
	snap, err := zkview.Load(lctx, sess, zkview.Config{
		Paths:      paths,
		Roots:      roots,
		ServerView: true, // off by itself, said in the output, when the members refuse
		Context:    s.ContextName,
	})
	if err != nil {
		return fmt.Errorf("ls: %w", err)
	}
	out := cmd.OutOrStdout()
	if asJSON {
		err = zkview.WriteJSON(out, snap)
	} else {
		err = zkview.WriteText(out, snap)
	}
	if err != nil {
		return err
	}
	// A path that could not be read is an error, even when the rest was
	// printed: a probe must not call an unreadable lock healthy.
	var unreadable []string
	for _, q := range snap.Queues {
		switch q.State {
		case zkview.PathNoAuth:
			unreadable = append(unreadable, zkview.SanitizeString(q.Path, 0)+": not readable with these credentials (NoAuth; give --auth-file or ZK_AUTH)")
		case zkview.PathError:
			unreadable = append(unreadable, zkview.SanitizeString(q.Path, 0)+": "+zkview.SanitizeString(q.Err, 0))
		}
	}
	if len(unreadable) > 0 {
		return errors.New(strings.Join(unreadable, "; "))
	}
	if check {
		if code := zkview.CheckCode(snap); code != 0 {
			return exitCode(code, fmt.Errorf("check failed: %s", checkSummary(snap)))
		}
	}
	return nil
}

// checkSummary names the queues that fail --check and why, for the one
// line on stderr (the details are in the output).
func checkSummary(snap *zkview.Snapshot) string {
	var parts []string
	for _, q := range snap.Queues {
		var codes []string
		for _, w := range q.Warnings {
			switch w.Code {
			case zkview.WarnSplitHolders, zkview.WarnDeadlock, zkview.WarnMissingWatch:
				codes = append(codes, w.Code)
			}
		}
		if len(codes) > 0 {
			parts = append(parts, zkview.SanitizeString(q.Path, 0)+" "+strings.Join(codes, ","))
		}
	}
	return strings.Join(parts, "; ")
}
