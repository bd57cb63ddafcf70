package cmd

import (
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/ensemble"
	"github.com/zklock/zklock/model"
	"github.com/zklock/zklock/sessions"
	"github.com/zklock/zklock/zkview"
	"github.com/zklock/zklock/zkview/layouts"
)

// lsTimeout bounds reading the snapshot once connected: the listings and
// one round of four-letter words, which take well under a second on a
// healthy ensemble; a read of roots, bounded by its progress instead
// (boundRead), may take longer while it reads.
const lsTimeout = 30 * time.Second

func newLsCmd(g *config.Flags) *cobra.Command {
	var (
		check  bool
		roots  []string
		output *outputFlag
	)
	cmd := &cobra.Command{
		Use:   "ls [-o text|json|name] [--check] [--root PATH] PATH...",
		Short: "Print one snapshot of lock queues, then exit",
		Long: `ls reads the lock parents once (and the servers' four-letter words when
they allow them) and prints every queue in sequence order with its
warnings; -o json (or --json) prints the schema documented in docs/json.md
(an array, one object per path, each with its "schema" version); -o name
prints the full path of every lock node, one a line, for
zklock release --force --yes - to read.

--check exits 2 when any queue has a ` + strings.ReplaceAll(checkFailingList(), "`", "") + `
warning, or the sessions show a cross-lock deadlock (when the first read
shows a cycle of waits over sessions, --check reads again once it would
have stood ` + sessions.DeadlockAfter.String() + ` to judge it, as zklock sessions does; a
leader-mismatch fails once it has lasted ` + model.LeaderMismatchAfter.String() + `, read again the same way); 3 when it
could not tell (the ensemble unreachable, a path not readable); 0 when
healthy. ` + strings.ReplaceAll(orList(checkShown), "`", "") + ` are shown, not failed on.`,
		Example: `  zklock ls /locks/billing
  zklock ls --json --root /locks | jq '.[] | select(.warnings != [])'
  zklock ls --check /locks/billing || page-oncall`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := output.format()
			if err != nil {
				return err
			}
			err = runLs(cmd, g, args, roots, format, check)
			if check {
				return checkUnknown(err)
			}
			return err
		},
	}
	output = addOutputFlag(cmd, "text, json (schema in docs/json.md) or name (full node paths, one a line)", "text", "json", "name")
	cmd.Flags().BoolVar(&check, "check", false, "exit 2 on "+strings.ReplaceAll(checkFailingList(), "`", "")+", or a cross-lock deadlock; 3 when it cannot tell")
	cmd.Flags().StringArrayVar(&roots, "root", nil, "discover lock parents below this path (repeatable)")
	return cmd
}

func runLs(cmd *cobra.Command, g *config.Flags, args, roots []string, output string, check bool) error {
	snap, _, err := readSnapshot(cmd, g, args, roots, check, "ls")
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	switch output {
	case "json":
		err = writeLsJSON(out, snap)
	case "name":
		err = writeNodePaths(out, snap)
	default:
		err = writeLsText(out, snap)
	}
	if err != nil {
		return err
	}
	if err := unreadablePaths(snap); err != nil {
		return err
	}
	if check {
		if code := checkCode(snap); code != 0 {
			return exitCode(code, fmt.Errorf("check failed: %s", checkSummary(snap)))
		}
	}
	return nil
}

// readSnapshot is one read of the lock parents args and roots name (and
// the context's roots), as `ls` reads them: connected, read within
// lsTimeout (a read of roots bounded by its progress instead), the
// servers' view on. judge: a cross-lock cycle or a leader-mismatch the
// first read cannot date is read again once it would have stood long
// enough to judge (zkview.ConfirmCycles), as `ls --check` and `why` need.
// It returns the settings the read was made with; a failed read's error
// starts with name, the command's.
func readSnapshot(cmd *cobra.Command, g *config.Flags, args, roots []string, judge bool, name string) (*model.Snapshot, *config.Settings, error) {
	s, cfg, err := lockTargets(cmd, g, args, roots)
	if err != nil {
		return nil, nil, err
	}
	ctx := cmd.Context()
	sess, err := connect(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	defer sess.Close()
	progress := progressTo(cmd.ErrOrStderr(), cfg.Roots)
	lctx, cancel := boundRead(ctx, &cfg, lsTimeout, progress)
	defer cancel()
	snap, err := zkview.Load(lctx, sess, cfg)
	if progress != nil {
		progress.done()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, readErr(lctx, err))
	}
	if judge {
		// A cross-lock cycle is a deadlock once it has stood with no
		// handoff: read again when it would have (as `zklock sessions`).
		if snap, err = zkview.ConfirmCycles(lctx, sess, cfg, snap); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, readErr(lctx, err))
		}
	}
	return snap, s, nil
}

// unreadablePaths is an error naming the paths that could not be read,
// nil when all could: a probe must not call an unreadable lock healthy,
// even when the rest was printed.
func unreadablePaths(snap *model.Snapshot) error {
	var unreadable []string
	for _, q := range snap.Queues.All() {
		switch q.State {
		case model.PathNoAuth:
			unreadable = append(unreadable, model.SanitizeString(q.Path, 0)+": not readable with these credentials (NoAuth; "+ensemble.NoAuthFix+")")
		case model.PathError:
			unreadable = append(unreadable, model.SanitizeString(q.Path, 0)+": "+model.SanitizeString(q.Err(), 0))
		}
	}
	if len(unreadable) > 0 {
		return errors.New(strings.Join(unreadable, "; "))
	}
	return nil
}

// checkSummary names the queues that fail --check and why, and the
// cross-lock deadlocks, for the one line on stderr (the details are in
// the output).
func checkSummary(snap *model.Snapshot) string {
	var parts []string
	for _, q := range snap.Queues.All() {
		var codes []string
		for _, w := range q.Warnings() {
			if failsNow(w, snap.At) {
				codes = append(codes, w.Code)
			}
		}
		if len(codes) > 0 {
			parts = append(parts, model.SanitizeString(q.Path, 0)+" "+strings.Join(codes, ","))
		}
	}
	if d := deadlockSummary(snap); d != "" {
		parts = append(parts, d)
	}
	return strings.Join(parts, "; ")
}

// writeNodePaths writes the full path of every lock node, one a line, in
// queue order: what `zklock release --force --yes -` reads. A name that
// needs escaping is written escaped (the sanitizer's form), so it never
// reaches a terminal raw; release then refuses it.
func writeNodePaths(w io.Writer, snap *model.Snapshot) error {
	var b strings.Builder
	for _, q := range snap.Queues.All() {
		for _, n := range q.Nodes.All() {
			if n.Name == "" {
				continue // a plain ephemeral lock's waiter: it owns no node
			}
			parent := q.Path
			if n.Parent() != "" {
				parent = n.Parent()
			}
			b.WriteString(model.SanitizeString(path.Join(parent, n.Name), 0))
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lockTargets resolves the settings and what a reading command reads: its
// PATH arguments, its --root flags and the context's roots, as the
// zkview.Options every such command starts from (the server view on: it
// turns itself off, said in the output, where the members refuse).
func lockTargets(cmd *cobra.Command, g *config.Flags, args, roots []string) (*config.Settings, zkview.Options, error) {
	paths, err := cleanPaths(args)
	if err != nil {
		return nil, zkview.Options{}, err
	}
	s, err := g.Resolve(cmd.Flags().Changed)
	if err != nil {
		return nil, zkview.Options{}, err
	}
	roots, err = cleanPaths(append(slices.Clone(roots), s.Roots...))
	if err != nil {
		return nil, zkview.Options{}, fmt.Errorf("root: %w", err)
	}
	if len(paths) == 0 && len(roots) == 0 {
		return nil, zkview.Options{}, exitCode(exitUsage, errNothingToWatch)
	}
	return s, zkview.Options{
		Paths:           paths,
		Roots:           roots,
		ServerView:      true,
		Systems:         layouts.New,
		Context:         s.ContextName,
		Elections:       s.Elections,
		Barriers:        s.Barriers,
		SemaphoreLimits: s.Semaphores,
		AdminPorts:      s.AdminPorts,
		AdminTLS:        s.TLS.AdminConfig(),
	}, nil
}
