package cmd

// `zklock run`: hold a lock while a command runs, as `consul lock` and
// `flock` do. The command's stdin, stdout and stderr are zklock's; SIGINT
// and SIGTERM sent to zklock are passed on; the lock is released when the
// command exits; if the lock is lost meanwhile the command is stopped
// (SIGTERM, a grace period, SIGKILL), because it no longer runs alone.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/zklock/zklock/audit"
	"github.com/zklock/zklock/config"
	"github.com/zklock/zklock/holds"
	"github.com/zklock/zklock/lockops"
	"github.com/zklock/zklock/lockops/ordering"
	"github.com/zklock/zklock/lockrun"
	"github.com/zklock/zklock/model"
)

const (
	// exitCommandNotFound and exitCannotExec are the shells' codes for a
	// command that does not exist or cannot run.
	exitCommandNotFound = 127
	exitCannotExec      = 126
)

type runOptions struct {
	timeout    time.Duration
	grace      time.Duration
	note       string
	kind       string
	style      string
	allowMixed bool
	quiet      bool
	limit      int
}

func newRunCmd(g *config.Flags) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [flags] PATH -- CMD [ARGS...]",
		Short: "Hold a lock while a command runs",
		Long: `run takes the lock at PATH (a lock parent), runs CMD with zklock's stdin,
stdout and stderr, releases the lock when CMD exits and exits with CMD's
code. CMD sees ZKLOCK_PATH (the lock parent), ZKLOCK_NODE (the full
path of its lock node), ZKLOCK_FENCING_TOKEN (the node's czxid: pass it
to the resource, which refuses a token lower than the highest it saw),
ZKLOCK_SEQ (the node's sequence, when it has one) and ZKLOCK_SESSION
(0x...) in its environment. SIGINT, SIGTERM and SIGHUP
sent to zklock are passed on to CMD.

While it waits, run says on stderr where it is in the queue, the node it
watches, who holds the lock and for how long (one line redrawn in place on
a terminal, erased once the lock is held; one line per change otherwise);
--quiet turns that off.

If the lock is lost while CMD runs (session expired, node deleted by
someone else), CMD is sent SIGTERM, then SIGKILL after --grace, and zklock
exits 69; also when CMD exited before the loss was told and the release
finds the session ended (zklock stopped past its session timeout). If
--timeout passes before the lock is held, CMD does not run and zklock
exits 75 (EX_TEMPFAIL: busy, try later).

The node is named like the clients already in the queue (Curator style
for an empty queue, or --style); a queue of recipes that cannot see each
other is refused unless --allow-mixed.

On a semaphore (Curator's leases and locks, or Kazoo's lease children,
max_leases data or PATH-__lock__ sibling; or --kind lease) run takes one
lease in the protocol its clients use, so that they count it. The limit
comes from --limit, else the context's semaphores:, else the parent (Kazoo
states it; the console can deduce Curator's while a lease waits); without
one a Curator semaphore is refused. On a LeaderLatch election (or one the
context names under elections:, or --kind election) run joins as a
participant and CMD runs while it leads.`,
		Example: `  zklock run --timeout 30s --note "reindex" /locks/search -- ./reindex.sh --full
  zklock run --kind read /locks/catalog -- pg_dump catalog
  zklock run --limit 3 /jobs/gpu-slots -- ./train.sh
  zklock run /services/scheduler/leader -- ./scheduler --active`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runUnderLock(cmd, g, args, o) },
	}
	f := cmd.Flags()
	f.DurationVar(&o.timeout, "timeout", 0, "give up (exit 75) if the lock is not held within this long (0: wait)")
	f.DurationVar(&o.grace, "grace", lockrun.DefaultGrace, "after a lost lock, time between SIGTERM and SIGKILL")
	f.StringVar(&o.note, "note", "", "text added to the lock node's data (who and why)")
	f.StringVar(&o.kind, "kind", "mutex", "mutex, read, write, lease (one of a semaphore's) or election (default: as the parent holds)")
	f.IntVar(&o.limit, "limit", 0, "a semaphore's number of leases (Curator keeps it in its clients only)")
	f.StringVar(&o.style, "style", "", "node naming: curator or kazoo (default: as the queue)")
	f.BoolVar(&o.allowMixed, "allow-mixed", false, "join a queue that mixes recipes (two holders are then possible)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "say nothing on stderr while waiting in the queue")
	return cmd
}

var errRunUsage = errors.New("usage: zklock run [flags] PATH -- CMD [ARGS...]")

// runUnderLock is `zklock run`: it takes the lock, runs the command while
// it holds it, and returns the command's exit code (or why it could not).
func runUnderLock(cmd *cobra.Command, g *config.Flags, args []string, o runOptions) error {
	p, argv, err := parseRunArgs(cmd.ArgsLenAtDash(), args, o)
	if err != nil {
		return err
	}
	lockOpts, err := runLockOptions(o)
	if err != nil {
		return err
	}
	s, err := g.Resolve(cmd.Flags().Changed)
	if err != nil {
		return err
	}
	if err := s.RequireWrite("run a command under a lock"); err != nil {
		return err
	}
	// Found before queueing: a typo must not hold up the queue.
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return exitCode(exitCommandNotFound, fmt.Errorf("run: %w", err))
	}
	auditLog, err := audit.Open(s)
	if err != nil {
		return err
	}
	defer auditLog.Close()

	// Signals are caught from here on: while waiting they cancel the
	// wait (the node is deleted), while CMD runs they are passed on.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	ctx := cmd.Context()
	sess, err := connect(ctx, s)
	if err != nil {
		return err
	}
	defer sess.Close()

	return runConnected(ctx, sess, auditLog, &lockrun.Job{Path: p, Argv: argv, Bin: bin, Timeout: o.timeout, Grace: o.grace,
		Session: sess, Signals: sigs, Warn: warn}, s, o, cmd.Flags().Changed("kind"), lockOpts)
}

// runConnected is `zklock run` once connected: refuse what is no lock,
// choose the hold, then wait, run CMD and release between the audit's
// two lines. It returns the error to exit with (exitCode's code).
func runConnected(ctx context.Context, sess *lockops.Session, auditLog *audit.Log, j *lockrun.Job, s *config.Settings, o runOptions, explicit bool, lockOpts []lockops.Option) error {
	p := j.Path
	if err := lockrun.RefuseNotALock(ctx, sess, s.Barriers, p); err != nil {
		return err
	}
	if !o.quiet {
		j.Reporter = lockrun.NewReporter(os.Stderr, isTerminal(os.Stderr), sess, p)
		lockOpts = append(lockOpts, lockops.WithProgress(j.Reporter.Progress))
	}
	hold, err := holds.Take(ctx, sess, p, holds.Want{
		Kind: o.kind, Explicit: explicit, Limit: o.limit,
		Semaphores: s.Semaphores, Elections: s.Elections, Options: lockOpts, Warn: warn,
	})
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	j.Hold = hold
	rec := audit.Record{Action: "run", Path: p, Kind: hold.Kind(), Command: j.Argv, Session: model.SessionHex(sess.ID())}
	var exit error
	err = auditLog.Do(rec, func(r *audit.Record) error {
		res := j.Run(ctx)
		code := runExitCode(res)
		r.Outcome, r.ExitCode, r.Node = res.Outcome.String(), &code, res.Node
		if res.Err != nil {
			r.Error = oneLine(res.Err.Error())
		}
		if code != exitOK || res.Err != nil {
			exit = exitCode(code, res.Err)
		}
		return nil
	})
	if errors.Is(err, audit.ErrNotDone) {
		return err
	}
	if err != nil {
		warn(err) // the run's exit code stands
	}
	return exit
}

// runExitCode is what zklock exits with after a run: CMD's code once it
// ran, else run's own (PRODUCT.md: Exit codes).
func runExitCode(res lockrun.Result) int {
	switch res.Outcome {
	case lockrun.Exited:
		return res.Code
	case lockrun.Interrupted:
		return exitSignal
	case lockrun.NotAcquired:
		return exitNotAcquired
	case lockrun.NotStarted:
		return exitCannotExec
	case lockrun.Lost:
		return exitLost
	}
	return exitFailure
}

// runWithoutDash is run's own usage error for a flag error of a `run`
// command line that has no --: the flag is CMD's (`zklock run /x sh -c
// true` reads -c as zklock's), and the line names what to write, not the
// flag parser's "unknown shorthand flag". err otherwise.
func runWithoutDash(root *cobra.Command, args []string, err error) error {
	var fe flagError
	if !errors.As(err, &fe) || slices.Contains(args, "--") {
		return err
	}
	if c, _, ferr := root.Find(args); ferr != nil || c.Name() != "run" || c.Parent() != root {
		return err
	}
	return exitCode(exitUsage, fmt.Errorf("run: put -- between the lock path and the command; without it CMD's flags are read as zklock's (%v) (%w)", fe, errRunUsage))
}

// parseRunArgs splits `run`'s arguments into the lock path and CMD with
// its arguments, and checks what can be checked before connecting: the
// path, --kind, --limit, --timeout and --grace.
func parseRunArgs(dash int, args []string, o runOptions) (p string, argv []string, err error) {
	switch {
	case len(args) == 0:
		return "", nil, exitCode(exitUsage, fmt.Errorf("run: no lock path and no command (%w)", errRunUsage))
	case dash < 0:
		// Without --, CMD's own flags would be read as zklock's.
		return "", nil, exitCode(exitUsage, fmt.Errorf("run: put -- between the lock path and the command (%w)", errRunUsage))
	case dash != 1:
		return "", nil, exitCode(exitUsage, fmt.Errorf("run: one lock path before --, got %d (%w)", dash, errRunUsage))
	case len(args) < 2:
		return "", nil, exitCode(exitUsage, fmt.Errorf("run: no command after -- (%w)", errRunUsage))
	case o.timeout < 0 || o.grace < 0:
		return "", nil, exitCode(exitUsage, errors.New("run: --timeout and --grace must not be negative"))
	}
	p, argv = args[0], args[1:]
	if err := lockops.ValidPath(p); err != nil {
		return "", nil, err
	}
	if p == "/" {
		return "", nil, errors.New("run: the root cannot be a lock parent")
	}
	if err := checkRunKind(o); err != nil {
		return "", nil, err
	}
	return p, argv, nil
}

// runLockOptions are the lock options the flags choose: note, style and
// allow-mixed.
func runLockOptions(o runOptions) ([]lockops.Option, error) {
	opts := []lockops.Option{lockops.WithNote(o.note)}
	if o.style != "" {
		st, err := ordering.ParseStyle(o.style)
		if err != nil {
			return nil, err
		}
		opts = append(opts, lockops.WithStyle(st))
	}
	if o.allowMixed {
		opts = append(opts, lockops.WithAllowMixed())
	}
	return opts, nil
}

// checkRunKind refuses a --kind value before connecting.
func checkRunKind(o runOptions) error {
	switch o.kind {
	case holds.KindLease, holds.KindElection:
	default:
		if _, err := holds.ParseKind(o.kind); err != nil {
			return fmt.Errorf("--kind %q: want mutex, read, write, lease or election", o.kind)
		}
	}
	if o.limit < 0 {
		return fmt.Errorf("--limit %d: want 1 or more", o.limit)
	}
	return nil
}
